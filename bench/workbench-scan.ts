/**
 * `npm run bench -- workbench`: the Messages workbench's server-side scan. A cluster (in this
 * process, real SQLite, one broker) holds 1,000,000 records of JSON values over 3 partitions;
 * `records.search` scans all of them twice from the beginning, in reads of at most 100,000
 * examined records each, as the page's export does:
 *
 * - a plain scan: a time-range filter no record matches (the cheapest test: no payload decoded);
 * - a CEL scan: `value.n == -1 && headers["source"] == "bench"` — every value parsed as JSON and
 *   the expression evaluated on every record (none matches).
 *
 * The figure `workbench.scan.cel.records-per-sec` is the CEL scan's rate with the plain scan's as
 * its limit (goal 0.5); the peak heap during the scans is in its context, to show the scan holds a
 * chunk at a time, not the million.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openCluster } from '../main/engine/open-cluster.js';
import type { RecordsSearchView } from '../app/api/contract.js';
import { figure, fmt, type Figure } from './figures.js';

export const SCAN_RECORDS = Number(process.env.SCAN_RECORDS ?? 1_000_000);
const PARTITIONS = 3;
const PER_REQUEST = 2000;
const READ_MAX_SCAN = 100_000;

export async function measureWorkbenchScan(): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'rs-bench-workbench-'));
  const cluster = openCluster({ dataDir: dir, brokers: 1, kafkaPort: 0, logger: { error: () => {} } });
  try {
    if (!(await cluster.ready(60_000))) throw new Error('the cluster did not start');
    const s = cluster.service;
    const ok = async <T>(p: Promise<{ ok: true; value: T } | { ok: false; error: { code: string; message: string } }>): Promise<T> => {
      const r = await p;
      if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
      return r.value;
    };
    await ok(s.call('topics.create', { name: 'scan', partitions: PARTITIONS, replicationFactor: 1, configs: { 'retention.ms': '-1', 'retention.bytes': '-1' } }));
    const filling = performance.now();
    for (let base = 0; base < SCAN_RECORDS; base += PER_REQUEST) {
      const records = Array.from({ length: PER_REQUEST }, (_, k) => ({ key: `k${base + k}`, value: JSON.stringify({ n: base + k, kind: 'order', amount: (base + k) % 1000 }), headers: [{ key: 'source', value: 'till' }] }));
      const r = await ok(s.call('records.produce', { topic: 'scan', partition: (base / PER_REQUEST) % PARTITIONS, acks: 1, records }));
      if (r.errorCode !== 'NONE') throw new Error(`produce: ${r.errorCode}`);
    }
    console.log(`  filled ${fmt(SCAN_RECORDS)} records in ${((performance.now() - filling) / 1000).toFixed(1)} s`);

    let peakHeap = 0;
    const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 50);
    const scan = async (filter: object): Promise<{ perSec: number; scanned: number; reads: number }> => {
      const started = performance.now();
      let from: object = { beginning: true };
      let scanned = 0;
      let reads = 0;
      for (;;) {
        const r: RecordsSearchView = await ok(s.call('records.search', { topic: 'scan', from: from as { beginning: true }, filter, limit: 1, maxScan: READ_MAX_SCAN, timeBudgetMs: 600_000 }));
        scanned += r.scanned;
        reads++;
        if (r.records.length > 0) throw new Error('the bench filter matched a record');
        if (r.stoppedBecause === 'end') break;
        from = { positions: r.next.map((n) => ({ partition: n.partition, offset: n.offset })) };
      }
      return { perSec: scanned / ((performance.now() - started) / 1000), scanned, reads };
    };
    const plain = await scan({ time: { fromMs: 8_000_000_000_000 } });
    const cel = await scan({ cel: 'value.n == -1 && headers["source"] == "bench"' });
    clearInterval(sampler);
    console.log(
      `  plain scan ${fmt(Math.round(plain.perSec))} records/s (${fmt(plain.scanned)} in ${plain.reads} reads); CEL scan ${fmt(Math.round(cel.perSec))} records/s (${fmt(cel.scanned)} in ${cel.reads} reads); peak heap ${(peakHeap / 1048576).toFixed(0)} MiB`,
    );
    if (plain.scanned !== SCAN_RECORDS || cel.scanned !== SCAN_RECORDS) throw new Error(`scanned ${plain.scanned} and ${cel.scanned}, not ${SCAN_RECORDS}`);
    return [{ ...figure('workbench.scan.cel.records-per-sec', cel.perSec, 'records/s', plain.perSec), context: { plainRecordsPerSec: Math.round(plain.perSec), peakHeapMiB: Math.round(peakHeap / 1048576), records: SCAN_RECORDS } }];
  } finally {
    cluster.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
