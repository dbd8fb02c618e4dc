/**
 * `cluster.describe` latency over HTTP while the cluster ingests at full speed.
 *
 * The host as `npm run serve` runs it: the HTTP host in this process, the engine in a child
 * process (`startRemoteService`), on a temp data dir. After the brokers run, a topic with 3
 * partitions and RF=3 is created; then, for `windowMs` of wall time, PRODUCERS loops each keep
 * one `records.produce` (acks=all, RECORDS records of VALUE_BYTES bytes, round-robin partitions)
 * in flight over HTTP from a third process (`http-load.ts`, standing for the browser), while a probe POSTs `/api/cluster.describe` every PROBE_EVERY_MS and
 * times each answer (request sent → JSON body parsed). The figure is the p99 of those times.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { startHttpHost } from '../main/http/http-host.js';
import { startRemoteService } from '../main/engine/forked-engine.js';
import { fileURLToPath } from 'node:url';
import { makeTempDir, removeTempDir } from './produce-throughput.js';

const LOAD_ENTRY = fileURLToPath(new URL('./http-load.ts', import.meta.url));

export const PRODUCERS = 8;
export const RECORDS = 100;
export const VALUE_BYTES = 100;
export const PROBE_EVERY_MS = 20;
const TOPIC = 'load';
const PARTITIONS = 3;

export interface DescribeUnderLoad {
  /** Latencies of `cluster.describe` in ms, in the order sent. */
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Failed describe answers (not ok) — they still count in the latencies. */
  describeErrors: number;
  /** Produce requests acknowledged / failed in the window, and the records acked per second. */
  produced: number;
  produceErrors: number;
  recordsPerSec: number;
  windowMs: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function measureDescribeUnderLoad(windowMs = 3_000): Promise<DescribeUnderLoad> {
  const dataDir = makeTempDir('replica-bench-host-');
  const engine = await startRemoteService({ dataDir, seed: 1, logger: { error: () => {} } });
  try {
    const token = randomBytes(32).toString('hex');
    const host = await startHttpHost({ service: engine, port: 0, token, logger: { error: () => {} } });
    try {
      const post = async (method: string, body: unknown): Promise<{ ok: boolean; error?: { retriable?: boolean; message?: string } }> => {
        const res = await fetch(`${host.origin}/api/${method}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
        return (await res.json()) as { ok: boolean; error?: { retriable?: boolean; message?: string } };
      };

      if (!(await engine.ready())) throw new Error('the brokers did not start');
      const created = await post('topics.create', { name: TOPIC, partitions: PARTITIONS, replicationFactor: 3 });
      if (!created.ok) throw new Error(`topics.create failed: ${created.error?.message}`);
      const value = 'x'.repeat(VALUE_BYTES);
      const records = Array.from({ length: RECORDS }, () => ({ value }));
      // Wait until every partition takes records (leaders elected).
      for (let p = 0; p < PARTITIONS; p++) {
        for (let attempt = 0; ; attempt++) {
          const r = await post('records.produce', { topic: TOPIC, partition: p, acks: 'all', records });
          if (r.ok) break;
          if (attempt > 200 || !r.error?.retriable) throw new Error(`warm-up produce failed: ${r.error?.message}`);
          await sleep(25);
        }
      }

      // The producers run in a process of their own, as the browser would: this process is the host.
      const load = fork(LOAD_ENTRY, [JSON.stringify({ origin: host.origin, token, topic: TOPIC, partitions: PARTITIONS, producers: PRODUCERS, records: RECORDS, valueBytes: VALUE_BYTES })], {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      const loadExit = new Promise<void>((done) => load.once('exit', () => done()));
      const loadMessage = <T>(): Promise<T> =>
        new Promise<T>((done, reject) => {
          load.once('message', (m) => done(m as T));
          load.once('exit', (code) => reject(new Error(`the load process exited with ${code}`)));
        });
      await loadMessage<{ started: true }>();
      let stop = false;
      const latencies: number[] = [];
      let describeErrors = 0;
      const probe = async (): Promise<void> => {
        while (!stop) {
          const t0 = performance.now();
          const r = await post('cluster.describe', {}).catch(() => ({ ok: false }));
          const ms = performance.now() - t0;
          if (stop) break;
          latencies.push(ms);
          if (!r.ok) describeErrors++;
          await sleep(Math.max(0, PROBE_EVERY_MS - ms));
        }
      };

      const started = performance.now();
      const probing = probe();
      await sleep(windowMs);
      stop = true;
      const counted = loadMessage<{ produced: number; errors: number }>();
      load.send({ stop: true });
      const { produced, errors: produceErrors } = await counted;
      const elapsed = performance.now() - started;
      await probing;
      await loadExit;

      const sorted = [...latencies].sort((a, b) => a - b);
      return {
        samples: latencies.length,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        maxMs: sorted[sorted.length - 1] ?? NaN,
        describeErrors,
        produced,
        produceErrors,
        recordsPerSec: (produced * RECORDS * 1000) / elapsed,
        windowMs: elapsed,
      };
    } finally {
      await host.close();
    }
  } finally {
    await engine.close();
    removeTempDir(dataDir);
  }
}
