/**
 * The typed client every store uses: `client.call('topics.describe', { name })` resolves with the
 * method's value or rejects with a `ClientError` carrying the contract's error (Kafka's name,
 * message, retriable). Types come from app/api/contract.ts; nothing is re-declared here. Calls
 * that target a cluster go to the connection this window looks at (active-connection.ts).
 */
import type { EngineEvent, ErrorView, MethodInput, MethodName, MethodResult, Result } from '../../../app/api/contract.js';
import { isActiveClusterEvent, withConnection } from './active-connection.js';
import type { ConnectionStatus, Transport } from './transport.js';

export class ClientError extends Error {
  constructor(
    readonly error: ErrorView,
    readonly method: MethodName,
  ) {
    super(`${error.code}: ${error.message}`);
    this.name = 'ClientError';
  }
  get code(): ErrorView['code'] {
    return this.error.code;
  }
}

/**
 * One contract call answered with its envelope (it never throws): what pure helpers (drill steps,
 * broker actions) take, so they run against any client, in the console or in Node.
 */
export type Call = <M extends MethodName>(method: M, input: MethodInput<M>) => Promise<Result<MethodResult<M>>>;

export interface Client {
  readonly transport: Transport;
  /** The value, or throws ClientError. */
  call<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodResult<M>>;
  /** The envelope as the engine sent it (for callers that show per-item errors themselves). */
  result<M extends MethodName>(method: M, input: MethodInput<M>): Promise<Result<MethodResult<M>>>;
  subscribe(listener: (event: EngineEvent) => void): () => void;
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
}

export function createClient(transport: Transport): Client {
  return {
    transport,
    async call(method, input) {
      const result = await transport.call(method, withConnection(method, input) as MethodInput<typeof method>);
      if (!result.ok) throw new ClientError(result.error, method);
      return result.value;
    },
    result: (method, input) => transport.call(method, withConnection(method, input) as MethodInput<typeof method>),
    // Only the events of the cluster this window looks at (other local clusters' carry their connection).
    subscribe: (listener) => transport.subscribe((event) => isActiveClusterEvent(event) && listener(event)),
    onStatus: (listener) => transport.onStatus(listener),
  };
}
