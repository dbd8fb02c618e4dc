/**
 * The one door into a cluster. Every host (the HTTP host, the Electron IPC bridge, the CLI) talks
 * to an `EngineService`, and every engine behind a host is one: the engine service in this
 * process, the engine process seen from its parent, and later a driver for an external Kafka
 * cluster.
 *
 * A call is checked once, by the service that runs it, with `checkCall`: the method name against
 * the contract, then the input against the method's schema. Hosts relay what they receive without
 * parsing it, so the same bad input answers the same envelope whichever host it came through.
 * A host may still refuse a method name it cannot route (the HTTP host's 404), with
 * `unknownMethodError`, the same error the service would answer.
 */
import { contract, isMethodName, targetsCluster, type MethodName, type MethodParsedInput, type MethodResult, type Result } from './contract.js';
import type { ErrorView } from './errors.js';
import type { EngineEvent } from './events.js';

/** A listener of the engine's event stream. */
export type EngineEventListener = (event: EngineEvent) => void;

/** A cluster, as every host sees it. */
export interface EngineService {
  /**
   * Run one contract method; the result is typed from the contract. The input is `unknown` on
   * purpose: the service checks it against the method's schema (`checkCall`), so a host relays
   * what it received unparsed, and a wrong input is an INVALID_INPUT envelope whether it came
   * from a wire or from code. Never throws or rejects: every outcome is an envelope.
   */
  call<M extends MethodName>(method: M, input: unknown): Promise<Result<MethodResult<M>>>;
  /** A method name not checked yet (a host's wire): INVALID_REQUEST when the contract has no such method. */
  call(method: string, input: unknown): Promise<Result<unknown>>;
  /** Receive every engine event, in order; returns the unsubscribe function. */
  subscribe(listener: EngineEventListener): () => void;
}

/** Where a service or host reports its own bugs (INTERNAL errors, failing listeners), with the stack. */
export interface ErrorLogger {
  error(message: string, error: unknown): void;
}

/** One problem of an INVALID_INPUT: the field's path in the input (array positions as numbers) and what is wrong. */
export interface InputIssueView {
  path: (string | number)[];
  message: string;
}

/**
 * A call that passed `checkCall`: the method, its parsed input, and the connection it addresses
 * (absent: the host's own cluster).
 */
export type CheckedCall = { [M in MethodName]: { ok: true; method: M; input: MethodParsedInput<M>; connection?: string } }[MethodName];

/** The error of a method name the contract does not have. */
export function unknownMethodError(method: unknown): ErrorView {
  return { code: 'INVALID_REQUEST', message: `Unknown method ${JSON.stringify(typeof method === 'string' ? method : String(method))}.`, retriable: false };
}

function invalidInput(method: string, issues: InputIssueView[]): { ok: false; error: ErrorView } {
  const text = issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
  return { ok: false, error: { code: 'INVALID_INPUT', message: `Invalid input for ${method}: ${text}`, retriable: false, details: issues } };
}

/**
 * The `connection` of a call to a method that targets a cluster, taken out of its input (the
 * rest is the method's own input). `connection` undefined: the host's own cluster.
 */
export function splitConnection(method: MethodName, input: unknown): { ok: true; connection: string | undefined; input: unknown } | { ok: false; error: ErrorView } {
  if (!targetsCluster(method) || typeof input !== 'object' || input === null || Array.isArray(input) || !Object.hasOwn(input, 'connection')) {
    return { ok: true, connection: undefined, input };
  }
  const { connection, ...rest } = input as Record<string, unknown>;
  if (connection === undefined) return { ok: true, connection: undefined, input: rest };
  if (typeof connection !== 'string' || connection.length === 0) return invalidInput(method, [{ path: ['connection'], message: 'expected a connection id (a non-empty string)' }]);
  return { ok: true, connection, input: rest };
}

/**
 * The one schema check of a call: INVALID_REQUEST for an unknown method, INVALID_INPUT for input
 * that fails the method's schema (`details`: every issue with its field path), else the parsed
 * input. A missing input (undefined or null) is `{}`. A method that targets a cluster may carry
 * `connection` beside its input (see connections.ts); it comes back apart from the input.
 */
export function checkCall(method: unknown, input: unknown): CheckedCall | { ok: false; error: ErrorView } {
  if (typeof method !== 'string' || !isMethodName(method)) return { ok: false, error: unknownMethodError(method) };
  const split = splitConnection(method, input ?? {});
  if (!split.ok) return split;
  const parsed = contract[method].input.safeParse(split.input);
  if (parsed.success) return { ok: true, method, input: parsed.data, ...(split.connection !== undefined ? { connection: split.connection } : {}) } as CheckedCall;
  return invalidInput(
    method,
    parsed.error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'number' ? p : String(p))), message: i.message })),
  );
}
