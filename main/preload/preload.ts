/**
 * The sandboxed preload: exposes `window.replicaStudio` with one async function per contract
 * method (generated from `methodNames`) plus `subscribe(listener)`, which returns its unsubscribe.
 * No raw send/on reaches the page. Bundled into one CJS file (sandboxed preloads cannot require
 * local files): `npm run build:electron`.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { methodNames, type ContractClient, type EngineEvent } from '../../app/api/contract.js';

// Channel names are repeated here rather than imported from main/electron: the preload imports
// only electron and app/api (the layer rules of docs/development.md#conventions). ipc-bridge.ts owns the same two strings.
const INVOKE_CHANNEL = 'rs:invoke';
const EVENT_CHANNEL = 'rs:event';

/** What the page sees as `window.replicaStudio`. */
export type ReplicaStudioApi = ContractClient & {
  subscribe(listener: (event: EngineEvent) => void): () => void;
};

function buildApi(): ReplicaStudioApi {
  const api: Record<string, unknown> = {};
  for (const method of methodNames) {
    api[method] = (input: unknown) => ipcRenderer.invoke(INVOKE_CHANNEL, method, input ?? {});
  }
  api.subscribe = (listener: (event: EngineEvent) => void): (() => void) => {
    if (typeof listener !== 'function') throw new TypeError('subscribe(listener): listener must be a function');
    // The page gets the events only, never the IpcRendererEvent (which carries `sender`). Main
    // sends the events of one turn as an array (main/electron/main.ts); each reaches the listener.
    const handler = (_event: IpcRendererEvent, payload: EngineEvent | EngineEvent[]): void => {
      for (const event of Array.isArray(payload) ? payload : [payload]) listener(event);
    };
    ipcRenderer.on(EVENT_CHANNEL, handler);
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, handler);
    };
  };
  return api as ReplicaStudioApi;
}

contextBridge.exposeInMainWorld('replicaStudio', buildApi());
