/**
 * The typed client every store uses: `client.call('topics.describe', { name })` resolves with the
 * method's value or rejects with a `ClientError` carrying the contract's error (Kafka's name,
 * message, retriable). Types come from app/api/contract.ts; nothing is re-declared here. Calls
 * that target a cluster go to the connection this window looks at (active-connection.ts).
 */
import type { EngineEvent, ErrorView, MethodInput, MethodName, MethodResult, Result } from '../../../app/api/contract.js';
import { activeConnection, isActiveClusterEvent, withConnection, type ActiveConnection } from './active-connection.js';
import { approveChange } from './external-changes.js';
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
  /**
   * The value of `method` on connection `target` rather than the window's (a twin's plan executed
   * on its source): a change to an external `target` asks first, naming that cluster.
   */
  callOn<M extends MethodName>(target: ActiveConnection, method: M, input: MethodInput<M>): Promise<MethodResult<M>>;
  subscribe(listener: (event: EngineEvent) => void): () => void;
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
}

/** The error of a change to an external cluster the user did not confirm: nothing was sent. */
export function declinedError(connectionName: string): ErrorView {
  return { code: 'CANCELLED', message: `Nothing was sent: the change to ${connectionName} was not confirmed.`, retriable: false, details: { declined: true } };
}

export function createClient(transport: Transport): Client {
  /** The call as sent, or a CANCELLED envelope when a change to an external cluster is not confirmed (external-changes.ts). */
  async function send<M extends MethodName>(method: M, input: MethodInput<M>): Promise<Result<MethodResult<M>>> {
    const connection = activeConnection();
    if (!(await approveChange(connection, method, input))) return { ok: false, error: declinedError(connection!.name) };
    return transport.call(method, withConnection(method, input) as MethodInput<M>);
  }
  return {
    transport,
    async call(method, input) {
      const result = await send(method, input);
      if (!result.ok) throw new ClientError(result.error, method);
      return result.value;
    },
    result: send,
    async callOn(target, method, input) {
      if (!(await approveChange(target, method, input))) throw new ClientError(declinedError(target.name), method);
      const result = await transport.call(method, { ...(input as object), connection: target.id } as MethodInput<typeof method>);
      if (!result.ok) throw new ClientError(result.error, method);
      return result.value;
    },
    // Only the events of the cluster this window looks at (other local clusters' carry their connection).
    subscribe: (listener) => transport.subscribe((event) => isActiveClusterEvent(event) && listener(event)),
    onStatus: (listener) => transport.onStatus(listener),
  };
}
