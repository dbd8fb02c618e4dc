/**
 * The building blocks of the contract's method table: a method is its input schema plus a
 * type-only marker of its result. A module of its own so that parts of the table can live in
 * files of their own (connections-contract.ts) without importing contract.ts.
 */
import type { z } from 'zod';

declare const resultType: unique symbol;

/** A type-only marker of a method's result type; it carries no runtime value. */
export interface ResultMarker<T> {
  readonly [resultType]?: T;
}

/** The marker of a result of type T. */
export function returns<T>(): ResultMarker<T> {
  return {};
}

/** One method: its input schema and (type-only) result. */
export function method<S extends z.ZodType, T>(input: S, result: ResultMarker<T>): { input: S; result: ResultMarker<T> } {
  return { input, result };
}
