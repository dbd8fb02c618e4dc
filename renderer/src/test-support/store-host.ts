/**
 * Store tests: a real `npm run serve` process on a temp data directory and a client on the
 * renderer's own HTTP transport (Bearer token; `ws` stands in for the browser's WebSocket), so
 * stores are tested against the typed client exactly as the console uses it.
 */
import { createPinia, setActivePinia } from 'pinia';
import WebSocket from 'ws';
import { removeDir, startServe, type ServedHost } from '../../../e2e/support/harness.js';
import { createClient, type Client } from '../api/client.js';
import { createHttpTransport, type SocketLike } from '../api/http-transport.js';
import { setClient } from '../api/instance.js';

export interface StoreHost {
  host: ServedHost;
  client: Client;
  close(): Promise<void>;
}

export async function startStoreHost(extraArgs: string[] = []): Promise<StoreHost> {
  // A new cluster with Kafka's own defaults (3 brokers, no racks, no profile): the store tests'
  // expectations (min.insync.replicas 1 from DEFAULT_CONFIG, …) are Kafka's defaults.
  const host = await startServe({ extraArgs: ['--brokers', '3', ...extraArgs] });
  const client = createClient(
    createHttpTransport({
      baseUrl: host.origin,
      token: host.token,
      createSocket: (url, headers) => new WebSocket(url, { headers: { ...headers, Host: new URL(url).host } }) as unknown as SocketLike,
    }),
  );
  setClient(client);
  setActivePinia(createPinia());
  return {
    host,
    client,
    async close() {
      client.transport.close();
      await host.stop();
      removeDir(host.dataDir);
    },
  };
}

/** Wait until `check` returns a truthy value (bounded), polling every 50 ms. */
export async function until<T>(check: () => T | Promise<T>, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
