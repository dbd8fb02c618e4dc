/**
 * The one client of the running console. `main.ts` picks the transport (the preload bridge in
 * Electron, HTTP + WebSocket in a browser) and sets it; stores reach the engine only through
 * `client()`. Tests set a client on a real host's HTTP transport.
 */
import { createClient, type Client } from './client.js';
import { createHttpTransport } from './http-transport.js';
import { createPreloadTransport, preloadBridge } from './preload-transport.js';

let current: Client | undefined;

export function setClient(client: Client): void {
  current = client;
}

export function client(): Client {
  if (!current) throw new Error('No client: call setClient() before using a store.');
  return current;
}

/** The transport for where the page runs. */
export function defaultClient(): Client {
  const bridge = preloadBridge();
  return createClient(bridge ? createPreloadTransport(bridge) : createHttpTransport());
}
