/**
 * What an encoder accepts: the decoded shape with every field optional, at every depth. A field
 * left out is written as its schema default, as a field Kafka's generated Java classes never
 * set; so a handler names only the fields it means.
 */
export type Init<T> = T extends Uint8Array | string | number | bigint | boolean | null | undefined
  ? T
  : T extends readonly (infer U)[]
    ? Init<U>[]
    : { [K in keyof T]?: Init<T[K]> };
