/**
 * The Electron transport: the sandboxed preload exposes `window.replicaStudio` with one function
 * per contract method plus `subscribe` (main/preload/preload.ts). The IPC bridge on the main side
 * checks the sender and the payload; this side only forwards.
 */
import type { ContractClient, EngineEvent, MethodInput, MethodName, MethodResult, Result } from '../../../app/api/contract.js';
import type { Transport } from './transport.js';

/** What the preload puts on `window` (kept in step with main/preload/preload.ts by the type). */
export type PreloadBridge = ContractClient & { subscribe(listener: (event: EngineEvent) => void): () => void };

export function preloadBridge(): PreloadBridge | undefined {
  return (globalThis as { replicaStudio?: PreloadBridge }).replicaStudio;
}

export function createPreloadTransport(bridge: PreloadBridge): Transport {
  return {
    kind: 'electron',
    call<M extends MethodName>(method: M, input: MethodInput<M>): Promise<Result<MethodResult<M>>> {
      const fn = bridge[method] as unknown as (input: MethodInput<M>) => Promise<Result<MethodResult<M>>>;
      return fn(input);
    },
    subscribe: (listener) => bridge.subscribe(listener),
    onStatus(listener) {
      listener('open');
      return () => {};
    },
    close() {},
  };
}
