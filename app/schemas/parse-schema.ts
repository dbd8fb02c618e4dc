/**
 * A schema's text parsed by its format, and the compatibility levels of the registry applied to a
 * candidate and the versions it follows.
 */
import { parseAvro } from './avro-schema.js';
import { parseJsonSchema } from './json-schema.js';
import { parseProtobuf } from './protobuf-schema.js';
import type { ParsedSchema, ResolvedReference, SchemaType } from './schema-types.js';

export function parseSchema(type: SchemaType, text: string, references: readonly ResolvedReference[] = []): ParsedSchema {
  switch (type) {
    case 'AVRO':
      return parseAvro(text, references);
    case 'PROTOBUF':
      return parseProtobuf(text, references);
    case 'JSON':
      return parseJsonSchema(text, references);
  }
}

/** Confluent's compatibility levels; BACKWARD is the default. */
export const COMPATIBILITY_LEVELS = ['BACKWARD', 'BACKWARD_TRANSITIVE', 'FORWARD', 'FORWARD_TRANSITIVE', 'FULL', 'FULL_TRANSITIVE', 'NONE'] as const;
export type CompatibilityLevel = (typeof COMPATIBILITY_LEVELS)[number];
export const DEFAULT_COMPATIBILITY: CompatibilityLevel = 'BACKWARD';

/**
 * Why `candidate` may not follow `previous` (oldest first, the versions not deleted) under
 * `level`: empty when it may. BACKWARD: a reader with the candidate reads data written with the
 * latest version; FORWARD: a reader with the latest reads the candidate's data; FULL: both. The
 * `_TRANSITIVE` forms ask it of every previous version, not only the latest.
 */
export function compatibilityProblems(level: CompatibilityLevel, candidate: ParsedSchema, previous: readonly { version: number; parsed: ParsedSchema }[]): string[] {
  if (level === 'NONE' || previous.length === 0) return [];
  const against = level.endsWith('_TRANSITIVE') ? [...previous].reverse() : [previous[previous.length - 1]!];
  const backward = level.startsWith('BACKWARD') || level.startsWith('FULL');
  const forward = level.startsWith('FORWARD') || level.startsWith('FULL');
  const problems: string[] = [];
  for (const { version, parsed: old } of against) {
    if (old.type !== candidate.type) {
      problems.push(`Incompatible schema type: version ${version} is ${old.type}, the new schema is ${candidate.type}`);
      continue;
    }
    if (backward) for (const p of candidate.readProblems(old)) problems.push(`${level} against version ${version}: ${p}`);
    if (forward) for (const p of old.readProblems(candidate)) problems.push(`${level} against version ${version} (its reader on the new data): ${p}`);
  }
  return problems;
}
