/**
 * Black-box Kafka tests: a real `npm run serve` on a fresh data directory with Kafka listeners on
 * free ports, its bootstrap servers, and the requests its listeners decoded (which API versions
 * the clients really sent: REPLICA_STUDIO_KAFKA_TRACE, `broker apiKey apiVersion clientId`).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterView, TopicView } from '../../app/api/views.js';
import { apiDefinition } from '../../app/protocol/generated/index.js';
import { api, startServe, type ServedHost } from './harness.js';

export interface KafkaServe {
  host: ServedHost;
  /** `127.0.0.1:P1,127.0.0.1:P2,…` as cluster.describe reports it. */
  bootstrap: string;
  describe(): Promise<ClusterView>;
  topic(name: string): Promise<TopicView>;
  /** API name → versions received so far, e.g. { Produce: [7], Fetch: [11] }. */
  versions(clientIdPrefix?: string): Record<string, number[]>;
  stop(): Promise<void>;
}

export async function startKafkaServe(options: { brokers?: number; profile?: string; extraArgs?: string[] } = {}): Promise<KafkaServe> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rs-kafka-e2e-'));
  const trace = join(dataDir, '..', `${dataDir.split('/').pop()}-requests.log`);
  const previous = process.env['REPLICA_STUDIO_KAFKA_TRACE'];
  process.env['REPLICA_STUDIO_KAFKA_TRACE'] = trace;
  let host: ServedHost;
  try {
    host = await startServe({ dataDir, extraArgs: ['--kafka-port', '0', ...(options.brokers ? ['--brokers', String(options.brokers)] : []), ...(options.profile ? ['--profile', options.profile] : []), ...(options.extraArgs ?? [])] });
  } finally {
    if (previous === undefined) delete process.env['REPLICA_STUDIO_KAFKA_TRACE'];
    else process.env['REPLICA_STUDIO_KAFKA_TRACE'] = previous;
  }
  const describe = (): Promise<ClusterView> => api<ClusterView>(host, 'cluster.describe', {});
  const bootstrap = (await describe()).bootstrapServers;
  return {
    host,
    bootstrap,
    describe,
    topic: (name) => api<TopicView>(host, 'topics.describe', { name }),
    versions(clientIdPrefix = '') {
      const out: Record<string, Set<number>> = {};
      const text = existsSync(trace) ? readFileSync(trace, 'utf8') : '';
      for (const line of text.split('\n')) {
        const [, key, version, ...client] = line.split(' ');
        if (key === undefined || version === undefined || !client.join(' ').startsWith(clientIdPrefix)) continue;
        const name = apiDefinition(Number(key))?.name ?? `key ${key}`;
        (out[name] ??= new Set()).add(Number(version));
      }
      return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v].sort((a, b) => a - b)]));
    },
    async stop() {
      await host.stop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(trace, { force: true });
    },
  };
}

/** Polls (real time) until `check` holds, for at most `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
