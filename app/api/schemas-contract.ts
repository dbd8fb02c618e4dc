/**
 * `schemas.*` (spread into `contract` in contract.ts): the Schemas page's view of the cluster's
 * Schema Registry — the same subjects, versions and ids its REST API serves (the records of the
 * `_schemas` topic) — and which schema ids a topic's records carry. A registry error is
 * INVALID_REQUEST with Confluent's code in `details.registryErrorCode` (40401, 409, 42201, …).
 */
import { z } from 'zod';
import { method, returns } from './contract-kit.js';

export const schemaDraftSchema = z.strictObject({
  subject: z.string().min(1),
  schema: z.string().min(1),
  schemaType: z.enum(['AVRO', 'PROTOBUF', 'JSON']).optional(),
  references: z.array(z.strictObject({ name: z.string().min(1), subject: z.string().min(1), version: z.int().min(1) })).optional(),
});

/** One subject: its versions (soft-deleted ones marked) and settings. */
export interface SchemaSubjectView {
  subject: string;
  versions: { version: number; id: number; schemaType: 'AVRO' | 'PROTOBUF' | 'JSON'; schema: string; references: { name: string; subject: string; version: number }[]; deleted: boolean }[];
  /** The subject's own compatibility level, or null when it follows the global one. */
  compatibility: string | null;
  mode: string | null;
}

export interface SchemaRegistryView {
  subjects: SchemaSubjectView[];
  globalCompatibility: string;
  globalMode: string;
}

export interface SchemaCheckView {
  compatible: boolean;
  /** The level the draft was checked at (the subject's, else the global one). */
  level: string;
  /** Why not, one line per problem. */
  messages: string[];
}

export interface SchemaUsageView {
  topic: string;
  /** Records examined (from the beginning, at most `maxScan`). */
  scanned: number;
  ids: { id: number; part: 'key' | 'value'; records: number; subjects: string[] }[];
  /** Records with neither key nor value in the registry's wire format. */
  unframed: number;
  /** False when `maxScan` stopped the scan before every partition's high watermark. */
  complete: boolean;
}

export const schemasMethods = {
  /** Every subject with its versions (soft-deleted ones included, marked) and settings. */
  'schemas.list': method(z.strictObject({}), returns<SchemaRegistryView>()),
  /** Whether `schema` may be registered in `subject` now, and why not. */
  'schemas.check': method(schemaDraftSchema, returns<SchemaCheckView>()),
  /** Register `schema` in `subject` (the id it has when it is already there). */
  'schemas.register': method(schemaDraftSchema, returns<{ id: number }>()),
  /** Which schema ids a topic's records carry, from its beginning (at most `maxScan` records, default 100,000). */
  'schemas.usage': method(z.strictObject({ topic: z.string().min(1), maxScan: z.int().min(1).max(10_000_000).optional() }), returns<SchemaUsageView>()),
} as const;
