/**
 * The Kafka driver's method table and what it is given, in a file of their own: kafka-driver.ts
 * builds the table from the `*-methods.ts` files beside it, and they name its type.
 */
import type { ClusterMethodName, MethodParsedInput, MethodResult } from '../../api/contract.js';

/** Every cluster method of the contract, as the Kafka driver answers it. */
export type KafkaMethods = { [M in ClusterMethodName]: (input: MethodParsedInput<M>) => Promise<MethodResult<M>> | MethodResult<M> };

/** Where profiles imported while looking at an external cluster are kept. */
export interface ImportedProfiles {
  load(): Record<string, string>;
  save(name: string, json: string): void;
}
