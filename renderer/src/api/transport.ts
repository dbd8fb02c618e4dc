/**
 * How the console reaches the engine. Two implementations: the Electron preload bridge
 * (`window.replicaStudio`) and HTTP + WebSocket against the headless host. Both carry the same
 * contract (app/api/contract.ts) and answer with its envelopes; nothing here re-declares a shape.
 */
import type { EngineEvent, MethodInput, MethodName, MethodResult, Result } from '../../../app/api/contract.js';

/** `open`: events flow; `connecting`: (re)connecting, the state may be stale; `closed`: given up. */
export type ConnectionStatus = 'connecting' | 'open' | 'closed';

export interface Transport {
  readonly kind: 'electron' | 'http';
  call<M extends MethodName>(method: M, input: MethodInput<M>): Promise<Result<MethodResult<M>>>;
  /** Every engine event, in order; returns the unsubscribe function. */
  subscribe(listener: (event: EngineEvent) => void): () => void;
  /** Connection changes of the event stream (the Electron bridge is always open). */
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
  close(): void;
}
