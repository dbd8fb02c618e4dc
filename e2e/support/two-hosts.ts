/**
 * The two hosts of the differential suites: the console host (`npm run serve` with a config
 * directory of its own) and a second `serve` host that the console reaches only over the Kafka
 * protocol, as an external connection. `call` is a contract call on the console host that answers
 * the envelope (errors included, for comparing Kafka's codes); `on(side)` sends it to the console's
 * own cluster ('embedded') or to the connection ('kafka').
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionView } from '../../app/api/connections.js';
import { removeDir, startServe, type ServedHost } from './harness.js';
import { startKafkaServe, type KafkaServe } from './kafka-serve.js';

export type Envelope<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string; details?: unknown } };
export type Side = 'embedded' | 'kafka';

export interface TwoHosts {
  console_: ServedHost;
  external: KafkaServe;
  /** The console's connection id of the second host. */
  connection: string;
  call<T>(method: string, input: unknown): Promise<Envelope<T>>;
  on(side: Side): <T>(method: string, input?: Record<string, unknown>) => Promise<Envelope<T>>;
  stop(): Promise<void>;
}

export async function startTwoHosts(): Promise<TwoHosts> {
  const configDir = mkdtempSync(join(tmpdir(), 'rs-diff-config-'));
  const [console_, external] = await Promise.all([startServe({ extraArgs: ['--config', configDir] }), startKafkaServe()]);
  async function call<T>(method: string, input: unknown): Promise<Envelope<T>> {
    const res = await fetch(`${console_.origin}/api/${method}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${console_.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
      signal: AbortSignal.timeout(30_000),
    });
    return (await res.json()) as Envelope<T>;
  }
  const stop = async (): Promise<void> => {
    await console_.stop();
    await external.stop();
    removeDir(configDir);
  };
  const added = await call<ConnectionView>('connections.addExternal', { name: 'second host', settings: { bootstrapServers: external.bootstrap.split(',') } });
  if (!added.ok) {
    await stop();
    throw new Error(JSON.stringify(added.error));
  }
  const connection = added.value.id;
  const on = (side: Side) => <T>(method: string, input: Record<string, unknown> = {}) => call<T>(method, side === 'kafka' ? { ...input, connection } : input);
  return { console_, external, connection, call, on, stop };
}

/** The value of an envelope; an error envelope throws with Kafka's code. */
export async function value<T>(e: Promise<Envelope<T>>): Promise<T> {
  const r = await e;
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}

/** The envelope's error code, NONE when it succeeded. */
export const code = (r: Envelope<unknown>): string => (r.ok ? 'NONE' : r.error.code);
