/**
 * The embedded driver's method table, in a file of its own: cluster-service.ts builds the table
 * from the `*-methods.ts` files beside it, and they name its type (as kafka-driver/kafka-methods.ts
 * does for the Kafka driver).
 */
import type { ClusterMethodName, MethodParsedInput, MethodResult } from '../../api/contract.js';

/** Every cluster method of the contract, as the embedded driver answers it. */
export type EmbeddedMethods = { [M in ClusterMethodName]: (input: MethodParsedInput<M>) => MethodResult<M> | Promise<MethodResult<M>> };

/** Starts an async engine operation and resolves with its answer (the service's clock handling included). */
export type Answer = <T>(start: (done: (value: T) => void) => void) => Promise<T>;
