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
import { contract, isMethodName, type MethodName, type MethodParsedInput, type MethodResult, type Result } from './contract.js';
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

/** A call that passed `checkCall`: the method and its parsed input. */
export type CheckedCall = { [M in MethodName]: { ok: true; method: M; input: MethodParsedInput<M> } }[MethodName];

/** The error of a method name the contract does not have. */
export function unknownMethodError(method: unknown): ErrorView {
  return { code: 'INVALID_REQUEST', message: `Unknown method ${JSON.stringify(typeof method === 'string' ? method : String(method))}.`, retriable: false };
}

/**
 * The one schema check of a call: INVALID_REQUEST for an unknown method, INVALID_INPUT for input
 * that fails the method's schema (`details`: every issue with its field path), else the parsed
 * input. A missing input (undefined or null) is `{}`.
 */
export function checkCall(method: unknown, input: unknown): CheckedCall | { ok: false; error: ErrorView } {
  if (typeof method !== 'string' || !isMethodName(method)) return { ok: false, error: unknownMethodError(method) };
  const parsed = contract[method].input.safeParse(input ?? {});
  if (parsed.success) return { ok: true, method, input: parsed.data } as CheckedCall;
  const issues: InputIssueView[] = parsed.error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'number' ? p : String(p))), message: i.message }));
  const text = issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
  return { ok: false, error: { code: 'INVALID_INPUT', message: `Invalid input for ${method}: ${text}`, retriable: false, details: issues } };
}
