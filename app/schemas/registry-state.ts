/**
 * The Schema Registry's state as a projection of its compacted `_schemas` topic: every replica of
 * the registry (another `serve` of the same data, the console's decoder in the engine's process)
 * builds the same state by applying the topic's records in offset order.
 *
 * The records are Confluent's own, so a registry that reads a topic Confluent's wrote (or the
 * reverse) agrees on subjects and ids; each key is one compaction key:
 *   SCHEMA  {"keytype":"SCHEMA","subject":s,"version":v,"magic":1} → {"subject","version","id",
 *           "schemaType" (absent for AVRO),"schema","references" (when any),"deleted"}; a
 *           tombstone is a permanent delete of that version.
 *   CONFIG  {"keytype":"CONFIG","subject":s|null,"magic":0} → {"compatibilityLevel"} (null: unset)
 *   MODE    {"keytype":"MODE","subject":s|null,"magic":0} → {"mode"} (null: unset)
 * Other key types (NOOP, DELETE_SUBJECT, …) carry nothing this state needs and are skipped, as
 * is a record that does not parse (it is counted, so a corrupt topic is seen, not hidden).
 *
 * Invariant: ids only grow while the log holds them — `maxId` is the largest id any record read
 * named, kept after the version that used it is deleted. Once the cleaner has removed a permanent
 * delete's records (after delete.retention.ms), a state built afresh no longer sees that id, as
 * with Confluent's registry.
 */
import type { SchemaReference, SchemaType } from './schema-types.js';
import type { CompatibilityLevel } from './parse-schema.js';

export const SCHEMAS_TOPIC = '_schemas';

export type RegistryMode = 'READWRITE' | 'READONLY';
export const REGISTRY_MODES: readonly RegistryMode[] = ['READWRITE', 'READONLY'];

export interface StoredVersion {
  subject: string;
  version: number;
  id: number;
  schemaType: SchemaType;
  schema: string;
  references: SchemaReference[];
  deleted: boolean;
}

/** A record of `_schemas` as text (both are JSON). */
export interface SchemasRecord {
  key: string | null;
  value: string | null;
}

/** The key of one subject version. */
export function schemaKey(subject: string, version: number): string {
  return JSON.stringify({ keytype: 'SCHEMA', subject, version, magic: 1 });
}

export function schemaValue(v: StoredVersion): string {
  return JSON.stringify({
    subject: v.subject,
    version: v.version,
    id: v.id,
    ...(v.schemaType !== 'AVRO' ? { schemaType: v.schemaType } : {}),
    ...(v.references.length > 0 ? { references: v.references } : {}),
    schema: v.schema,
    deleted: v.deleted,
  });
}

export function configKey(subject: string | null): string {
  return JSON.stringify({ keytype: 'CONFIG', subject, magic: 0 });
}

export function modeKey(subject: string | null): string {
  return JSON.stringify({ keytype: 'MODE', subject, magic: 0 });
}

export class RegistryState {
  /** subject → version → stored version (soft-deleted ones included). */
  readonly subjects = new Map<string, Map<number, StoredVersion>>();
  /** Compatibility per subject; the global one under null. */
  readonly configs = new Map<string | null, CompatibilityLevel>();
  readonly modes = new Map<string | null, RegistryMode>();
  maxId = 0;
  /**
   * The schema that first named each id, in log order: when two registries gave one id to two
   * schemas at once, every reader agrees whose it is (the later writer takes another, see
   * SchemaRegistry.register).
   */
  readonly idOwners = new Map<number, StoredVersion>();
  /** Records of `_schemas` that were not the registry's JSON. */
  unreadable = 0;

  apply(record: SchemasRecord): void {
    let key: { keytype?: unknown; subject?: unknown; version?: unknown };
    try {
      key = JSON.parse(record.key ?? 'null') as typeof key;
      if (key === null || typeof key !== 'object') throw new Error('not an object');
    } catch {
      this.unreadable++;
      return;
    }
    const subject = typeof key.subject === 'string' ? key.subject : null;
    try {
      switch (key.keytype) {
        case 'SCHEMA':
          return this.applySchema(subject, key.version, record.value);
        case 'CONFIG':
          return this.applySetting(this.configs, subject, record.value, 'compatibilityLevel');
        case 'MODE':
          return this.applySetting(this.modes, subject, record.value, 'mode');
        default:
          return;
      }
    } catch {
      this.unreadable++;
    }
  }

  private applySchema(subject: string | null, version: unknown, value: string | null): void {
    if (subject === null || typeof version !== 'number') throw new Error('a SCHEMA key names a subject and a version');
    const versions = this.subjects.get(subject) ?? new Map<number, StoredVersion>();
    if (value === null) {
      versions.delete(version);
      if (versions.size === 0) this.subjects.delete(subject);
      return;
    }
    const v = JSON.parse(value) as Partial<StoredVersion> & { schemaType?: SchemaType };
    if (typeof v.id !== 'number' || typeof v.schema !== 'string') throw new Error('a SCHEMA value has an id and a schema');
    const stored: StoredVersion = {
      subject,
      version,
      id: v.id,
      schemaType: v.schemaType ?? 'AVRO',
      schema: v.schema,
      references: v.references ?? [],
      deleted: v.deleted === true,
    };
    versions.set(version, stored);
    if (!this.idOwners.has(v.id)) this.idOwners.set(v.id, stored);
    this.subjects.set(subject, versions);
    this.maxId = Math.max(this.maxId, v.id);
  }

  private applySetting<T>(map: Map<string | null, T>, subject: string | null, value: string | null, field: string): void {
    if (value === null) {
      map.delete(subject);
      return;
    }
    const v = (JSON.parse(value) as Record<string, unknown>)[field];
    if (typeof v !== 'string') throw new Error(`a setting's value has ${field}`);
    map.set(subject, v as T);
  }

  /** The versions of `subject`, oldest first (soft-deleted ones only with `deleted`). */
  versionsOf(subject: string, deleted = false): StoredVersion[] {
    const all = [...(this.subjects.get(subject)?.values() ?? [])].sort((a, b) => a.version - b.version);
    return deleted ? all : all.filter((v) => !v.deleted);
  }

  /** Every version that uses schema `id` (soft-deleted ones included). */
  usesOf(id: number): StoredVersion[] {
    const out: StoredVersion[] = [];
    for (const versions of this.subjects.values()) for (const v of versions.values()) if (v.id === id) out.push(v);
    return out.sort((a, b) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : a.version - b.version));
  }

  /** The versions whose references name `subject` version `version`. */
  referencedBy(subject: string, version: number): StoredVersion[] {
    const out: StoredVersion[] = [];
    for (const versions of this.subjects.values()) {
      for (const v of versions.values()) if (!v.deleted && v.references.some((r) => r.subject === subject && r.version === version)) out.push(v);
    }
    return out;
  }

  /** Every schema by id: the first version (by subject, then version) that uses it. */
  schemaById(id: number): StoredVersion | undefined {
    return this.usesOf(id)[0];
  }
}
