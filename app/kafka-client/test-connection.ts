/**
 * `connections.test`: connect as the console would (TLS, SASL, ApiVersions), read the cluster's
 * metadata once, and report what was found, or exactly where it failed (errors.ts: DNS, refused,
 * TLS, SASL, timeout, protocol). No retries, one bounded attempt: a user waits for the answer.
 */
import type { ConnectionTestView } from '../api/connections.js';
import { KafkaAdminClient } from './admin-client.js';
import type { KafkaConnectionConfig } from './config.js';
import { failureOf } from './errors.js';
import { guessKafkaVersion } from './version-guess.js';

export async function testKafkaConnection(config: KafkaConnectionConfig, timeoutMs = 10_000): Promise<ConnectionTestView> {
  const started = Date.now();
  const elapsedMs = (): number => Date.now() - started;
  let client: KafkaAdminClient | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    client = new KafkaAdminClient({ ...config, retries: 0, connectionTimeoutMs: Math.min(config.connectionTimeoutMs ?? timeoutMs, timeoutMs), requestTimeoutMs: timeoutMs });
    const c = client;
    const found = await Promise.race([
      (async () => {
        await c.connect();
        const [metadata, versions] = [await c.metadata([]), await c.apiVersions()];
        return { metadata, versions };
      })(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error(`no answer from ${config.bootstrapServers.join(', ')} within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })), timeoutMs);
      }),
    ]);
    return {
      ok: true,
      clusterId: found.metadata.clusterId,
      controllerId: found.metadata.controllerId >= 0 ? found.metadata.controllerId : null,
      brokerCount: found.metadata.brokers.length,
      brokers: found.metadata.brokers,
      kafkaVersion: guessKafkaVersion(found.versions),
      apiCount: found.versions.length,
      elapsedMs: elapsedMs(),
    };
  } catch (e) {
    const { stage, message } = failureOf(e);
    return { ok: false, stage, message, elapsedMs: elapsedMs() };
  } finally {
    if (timer) clearTimeout(timer);
    await client?.close().catch(() => {});
  }
}
