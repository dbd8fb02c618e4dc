/**
 * The Schema Registry's operations over its `_schemas` log: what Confluent's REST resources do,
 * without HTTP (main/schema-registry/ maps requests onto these methods).
 *
 * Invariants:
 * - Every read first catches up with the log (`sync`), so a registry sees what another wrote.
 * - Writes are serialised: one at a time, each decided on a state that has caught up, appended
 *   with acks=all, then applied by reading it back — the state is always a projection of the log.
 * - The same schema (format, canonical text and references) has one id across subjects; ids are
 *   not reused while the log names them (see registry-state.ts).
 * - A registration is checked against the subject's versions that are not deleted, at the
 *   subject's compatibility level, else the global one, else BACKWARD.
 */
import { compatibilityProblems, COMPATIBILITY_LEVELS, DEFAULT_COMPATIBILITY, parseSchema, type CompatibilityLevel } from './parse-schema.js';
import * as E from './registry-errors.js';
import { configKey, modeKey, REGISTRY_MODES, RegistryState, schemaKey, schemaValue, type RegistryMode, type SchemasRecord, type StoredVersion } from './registry-state.js';
import { SCHEMA_TYPES, SchemaParseError, type ParsedSchema, type ResolvedReference, type SchemaReference, type SchemaType } from './schema-types.js';

/** The `_schemas` topic as the registry uses it: read from an offset, append with acks=all. */
export interface SchemasLog {
  /** Records from `fromOffset` (a bounded chunk), and the offset after the last one returned and the log's end (HW). */
  read(fromOffset: number): Promise<{ records: SchemasRecord[]; nextOffset: number; endOffset: number }>;
  append(records: SchemasRecord[]): Promise<void>;
}

export interface SchemaInput {
  schema: string;
  schemaType?: string;
  references?: SchemaReference[];
}

export interface SchemaVersionView {
  subject: string;
  id: number;
  version: number;
  schemaType?: SchemaType;
  schema: string;
  references?: SchemaReference[];
}

/** Times a registration is decided again because another registry's record took its version or id. */
const MAX_WRITE_RACES = 8;

export class SchemaRegistry {
  readonly state = new RegistryState();
  private offset = 0;
  private writing: Promise<unknown> = Promise.resolve();
  private readonly parsed = new Map<string, ParsedSchema>();

  constructor(private readonly log: SchemasLog) {}

  /** Read the log up to its end. */
  async sync(): Promise<void> {
    for (;;) {
      const chunk = await this.log.read(this.offset);
      for (const r of chunk.records) this.state.apply(r);
      this.offset = chunk.nextOffset;
      if (chunk.nextOffset >= chunk.endOffset || chunk.records.length === 0) return;
    }
  }

  private write<T>(work: () => Promise<T>): Promise<T> {
    const run = this.writing.then(async () => {
      await this.sync();
      return work();
    });
    this.writing = run.catch(() => undefined);
    return run;
  }

  private async append(records: SchemasRecord[]): Promise<void> {
    try {
      await this.log.append(records);
    } catch (e) {
      throw E.storeError(`Error while writing to the _schemas topic: ${(e as Error).message}`);
    }
    await this.sync();
  }

  // ------------------------------------------------------------------ settings

  compatibility(subject: string | null): CompatibilityLevel {
    return (subject !== null ? this.state.configs.get(subject) : undefined) ?? this.state.configs.get(null) ?? DEFAULT_COMPATIBILITY;
  }

  async getConfig(subject: string | null, defaultToGlobal = false): Promise<{ compatibilityLevel: CompatibilityLevel }> {
    await this.sync();
    if (subject === null || defaultToGlobal) return { compatibilityLevel: this.compatibility(subject) };
    const own = this.state.configs.get(subject);
    if (own === undefined) throw E.subjectCompatibilityNotConfigured(subject);
    return { compatibilityLevel: own };
  }

  setConfig(subject: string | null, level: unknown): Promise<{ compatibility: CompatibilityLevel }> {
    const upper = typeof level === 'string' ? level.toUpperCase() : level;
    if (!COMPATIBILITY_LEVELS.includes(upper as CompatibilityLevel)) return Promise.reject(E.invalidCompatibility(level));
    return this.write(async () => {
      await this.append([{ key: configKey(subject), value: JSON.stringify({ compatibilityLevel: upper }) }]);
      return { compatibility: upper as CompatibilityLevel };
    });
  }

  deleteConfig(subject: string | null): Promise<{ compatibilityLevel: CompatibilityLevel }> {
    return this.write(async () => {
      const before = subject === null ? this.compatibility(null) : this.state.configs.get(subject);
      if (before === undefined) throw E.subjectCompatibilityNotConfigured(subject!);
      await this.append([{ key: configKey(subject), value: null }]);
      return { compatibilityLevel: before };
    });
  }

  mode(subject: string | null): RegistryMode {
    return (subject !== null ? this.state.modes.get(subject) : undefined) ?? this.state.modes.get(null) ?? 'READWRITE';
  }

  async getMode(subject: string | null, defaultToGlobal = false): Promise<{ mode: RegistryMode }> {
    await this.sync();
    if (subject === null || defaultToGlobal) return { mode: this.mode(subject) };
    const own = this.state.modes.get(subject);
    if (own === undefined) throw E.subjectModeNotConfigured(subject);
    return { mode: own };
  }

  setMode(subject: string | null, mode: unknown): Promise<{ mode: RegistryMode }> {
    const upper = typeof mode === 'string' ? mode.toUpperCase() : mode;
    if (!REGISTRY_MODES.includes(upper as RegistryMode)) return Promise.reject(E.invalidMode(mode));
    return this.write(async () => {
      await this.append([{ key: modeKey(subject), value: JSON.stringify({ mode: upper }) }]);
      return { mode: upper as RegistryMode };
    });
  }

  deleteMode(subject: string): Promise<{ mode: RegistryMode }> {
    return this.write(async () => {
      const before = this.state.modes.get(subject);
      if (before === undefined) throw E.subjectModeNotConfigured(subject);
      await this.append([{ key: modeKey(subject), value: null }]);
      return { mode: before };
    });
  }

  // ------------------------------------------------------------------ reading

  async subjects(deleted = false, prefix = ''): Promise<string[]> {
    await this.sync();
    return [...this.state.subjects.keys()].filter((s) => s.startsWith(prefix) && this.state.versionsOf(s, deleted).length > 0).sort();
  }

  async versions(subject: string, deleted = false): Promise<number[]> {
    await this.sync();
    const versions = this.state.versionsOf(subject, deleted);
    if (versions.length === 0) throw E.subjectNotFound(subject);
    return versions.map((v) => v.version);
  }

  /** A version by number, `latest` or -1; soft-deleted ones only with `deleted`. */
  async version(subject: string, version: string, deleted = false, format?: string): Promise<SchemaVersionView> {
    await this.sync();
    const v = this.findVersion(subject, version, deleted);
    return { ...view(v), schema: this.formatted(v, format) };
  }

  private findVersion(subject: string, version: string, deleted: boolean): StoredVersion {
    const all = this.state.versionsOf(subject, true);
    if (all.length === 0) throw E.subjectNotFound(subject);
    if (version === 'latest' || version === '-1') {
      const live = all.filter((v) => !v.deleted);
      const latest = live[live.length - 1];
      if (!latest) throw E.subjectNotFound(subject);
      return latest;
    }
    const n = parseVersion(version);
    const found = all.find((v) => v.version === n);
    if (!found || (found.deleted && !deleted)) throw E.versionNotFound(n);
    return found;
  }

  /** A stored schema's text in `format`: `serialized` gives a Protobuf file as Confluent's registry does (a base64 FileDescriptorProto). */
  private formatted(v: StoredVersion, format: string | undefined): string {
    if (format !== 'serialized' || v.schemaType !== 'PROTOBUF') return v.schema;
    return parseSchema(v.schemaType, v.schema, this.resolve(v.references)).serialized!();
  }

  async schemaById(id: number, subject?: string, format?: string): Promise<{ schema: string; schemaType?: SchemaType; references?: SchemaReference[] }> {
    await this.sync();
    const uses = this.state.usesOf(id);
    const v = (subject !== undefined ? uses.find((u) => u.subject === subject) : undefined) ?? uses[0];
    if (!v) throw E.schemaNotFound(id);
    return { schema: this.formatted(v, format), ...(v.schemaType !== 'AVRO' ? { schemaType: v.schemaType } : {}), ...(v.references.length ? { references: v.references } : {}) };
  }

  async idUses(id: number): Promise<{ subject: string; version: number }[]> {
    await this.sync();
    const uses = this.state.usesOf(id).filter((v) => !v.deleted);
    if (uses.length === 0 && this.state.usesOf(id).length === 0) throw E.schemaNotFound(id);
    return uses.map((v) => ({ subject: v.subject, version: v.version }));
  }

  async referencedBy(subject: string, version: string): Promise<number[]> {
    await this.sync();
    const v = this.findVersion(subject, version, false);
    return this.state.referencedBy(subject, v.version).map((r) => r.id);
  }

  /** A stored schema parsed (cached by id), for decoding records that name it. */
  async parsedById(id: number): Promise<ParsedSchema> {
    const cached = this.parsed.get(`id:${id}`);
    if (cached) return cached;
    await this.sync();
    const v = this.state.schemaById(id);
    if (!v) throw E.schemaNotFound(id);
    const parsed = parseSchema(v.schemaType, v.schema, this.resolve(v.references));
    this.parsed.set(`id:${id}`, parsed);
    return parsed;
  }

  // ------------------------------------------------------------------ registering

  private resolve(refs: readonly SchemaReference[], depth = 0): ResolvedReference[] {
    if (depth > 32) throw E.invalidSchema('Invalid schema: references nest deeper than 32 (a cycle?)');
    return refs.map((r) => {
      const v = this.state.subjects.get(r.subject)?.get(r.version);
      if (!v || v.deleted) throw E.invalidSchema(`Invalid schema: reference ${r.name} names subject '${r.subject}' version ${r.version}, which does not exist`);
      return { name: r.name, schemaType: v.schemaType, schema: v.schema, references: this.resolve(v.references, depth + 1) };
    });
  }

  private parseInput(input: SchemaInput): { type: SchemaType; parsed: ParsedSchema; references: SchemaReference[] } {
    if (typeof input.schema !== 'string' || input.schema.length === 0) throw E.invalidSchema('Empty schema');
    const type = (input.schemaType ?? 'AVRO').toUpperCase() as SchemaType;
    if (!SCHEMA_TYPES.includes(type)) throw E.invalidSchema(`Invalid schema type ${JSON.stringify(input.schemaType)}: one of ${SCHEMA_TYPES.join(', ')}`);
    const references = (input.references ?? []).map((r) => ({ name: String(r.name), subject: String(r.subject), version: Number(r.version) }));
    try {
      return { type, parsed: parseSchema(type, input.schema, this.resolve(references)), references };
    } catch (e) {
      if (e instanceof SchemaParseError) throw E.invalidSchema(e.message);
      throw e;
    }
  }

  private sameSchema(v: StoredVersion, type: SchemaType, parsed: ParsedSchema, references: readonly SchemaReference[]): boolean {
    if (v.schemaType !== type || JSON.stringify(v.references) !== JSON.stringify(references)) return false;
    if (v.schema === parsed.text) return true;
    try {
      return parseSchema(v.schemaType, v.schema, this.resolve(v.references)).canonical === parsed.canonical;
    } catch {
      return false;
    }
  }

  /** POST /subjects/{subject}: the version of `subject` that has this schema. */
  async lookup(subject: string, input: SchemaInput, deleted = false): Promise<SchemaVersionView> {
    await this.sync();
    const all = this.state.versionsOf(subject, deleted);
    if (all.length === 0) throw E.subjectNotFound(subject);
    const { type, parsed, references } = this.parseInput(input);
    const found = all.find((v) => this.sameSchema(v, type, parsed, references));
    if (!found) throw E.schemaNotFound();
    return view(found);
  }

  /** Why `input` may not be registered in `subject` now (BACKWARD etc.), against `version` or the level's versions. */
  async check(subject: string, input: SchemaInput, version?: string): Promise<string[]> {
    await this.sync();
    const { parsed } = this.parseInput(input);
    const live = this.state.versionsOf(subject);
    if (version !== undefined && version !== 'latest' && version !== '-1') {
      const v = this.findVersion(subject, version, false);
      return compatibilityProblems(this.compatibility(subject).replace('_TRANSITIVE', '') as CompatibilityLevel, parsed, [this.parsedVersion(v)]);
    }
    return compatibilityProblems(this.compatibility(subject), parsed, live.map((v) => this.parsedVersion(v)));
  }

  private parsedVersion(v: StoredVersion): { version: number; parsed: ParsedSchema } {
    return { version: v.version, parsed: parseSchema(v.schemaType, v.schema, this.resolve(v.references)) };
  }

  /**
   * POST /subjects/{subject}/versions: the schema's id, registering it as the next version when new.
   *
   * Another registry on the same topic (the REST API's and the console's each serialise only their
   * own writes) may have decided on the same version or id before this one's record landed. Once
   * written and read back, the log decides: a version another record overwrote is registered
   * again (at the next version, checked against the one that won), and an id that the log gave
   * first to another schema is replaced by a new one under the same key.
   */
  register(subject: string, input: SchemaInput): Promise<{ id: number }> {
    return this.write(async () => {
      const { type, parsed, references } = this.parseInput(input);
      const mine = (v: StoredVersion | undefined): boolean => v !== undefined && this.sameSchema(v, type, parsed, references);
      let decided = this.decideRegistration(subject, type, parsed, references, mine);
      for (let race = 0; race < MAX_WRITE_RACES; race++) {
        if (decided.existing) return { id: decided.id };
        const { version, id } = decided;
        await this.append([{ key: schemaKey(subject, version), value: schemaValue({ subject, version, id, schemaType: type, schema: parsed.text, references, deleted: false }) }]);
        const now = this.state.subjects.get(subject)?.get(version);
        if (!mine(now)) decided = this.decideRegistration(subject, type, parsed, references, mine);
        else if (!mine(this.state.idOwners.get(now!.id))) decided = { existing: false, version, id: this.state.maxId + 1 };
        else return { id: now!.id };
      }
      throw E.storeError(`Error while registering in ${subject}: other registries kept writing the same versions`);
    });
  }

  /** The id a live version of `subject` already has for the schema, or the version and id it gets. */
  private decideRegistration(subject: string, type: SchemaType, parsed: ParsedSchema, references: SchemaReference[], mine: (v: StoredVersion | undefined) => boolean): { existing: boolean; version: number; id: number } {
    if (this.mode(subject) === 'READONLY') throw E.operationNotPermitted(`Subject ${subject} is in read-only mode`);
    const owns = (v: StoredVersion) => mine(v) && mine(this.state.idOwners.get(v.id));
    const all = this.state.versionsOf(subject, true);
    const live = all.filter((v) => !v.deleted);
    const existing = live.find(owns);
    if (existing) return { existing: true, version: existing.version, id: existing.id };
    const problems = compatibilityProblems(this.compatibility(subject), parsed, live.map((v) => this.parsedVersion(v)));
    if (problems.length > 0) throw E.incompatibleSchema(problems);
    let id = this.state.maxId + 1;
    for (const versions of this.state.subjects.values()) {
      const same = [...versions.values()].find(owns);
      if (same) {
        id = same.id;
        break;
      }
    }
    return { existing: false, version: (all[all.length - 1]?.version ?? 0) + 1, id };
  }

  // ------------------------------------------------------------------ deleting

  /** DELETE /subjects/{subject}/versions/{version}: soft, or (after a soft delete) permanent. */
  deleteVersion(subject: string, version: string, permanent = false): Promise<number> {
    return this.write(async () => {
      if (this.mode(subject) === 'READONLY') throw E.operationNotPermitted(`Subject ${subject} is in read-only mode`);
      const v = this.findVersion(subject, version, true);
      const users = this.state.referencedBy(subject, v.version);
      if (users.length > 0) throw E.referenceExists(`One or more references exist to the schema {subject=${subject},version=${v.version}}: ${users.map((u) => `${u.subject} v${u.version}`).join(', ')}`);
      if (permanent) {
        if (!v.deleted) throw E.versionNotSoftDeleted(subject, v.version);
        await this.append([{ key: schemaKey(subject, v.version), value: null }]);
      } else {
        if (v.deleted) throw E.versionSoftDeleted(subject, v.version);
        await this.append([{ key: schemaKey(subject, v.version), value: schemaValue({ ...v, deleted: true }) }]);
      }
      return v.version;
    });
  }

  /** DELETE /subjects/{subject}: every version, soft, or (after a soft delete) permanent. */
  deleteSubject(subject: string, permanent = false): Promise<number[]> {
    return this.write(async () => {
      if (this.mode(subject) === 'READONLY') throw E.operationNotPermitted(`Subject ${subject} is in read-only mode`);
      const all = this.state.versionsOf(subject, true);
      if (all.length === 0) throw E.subjectNotFound(subject);
      const live = all.filter((v) => !v.deleted);
      for (const v of all) {
        const users = this.state.referencedBy(subject, v.version).filter((u) => u.subject !== subject);
        if (users.length > 0) throw E.referenceExists(`One or more references exist to the schema {subject=${subject},version=${v.version}}`);
      }
      if (permanent) {
        if (live.length > 0) throw E.subjectNotSoftDeleted(subject);
        await this.append(all.map((v) => ({ key: schemaKey(subject, v.version), value: null })));
        return all.map((v) => v.version);
      }
      if (live.length === 0) throw E.subjectSoftDeleted(subject);
      await this.append(live.map((v) => ({ key: schemaKey(subject, v.version), value: schemaValue({ ...v, deleted: true }) })));
      return live.map((v) => v.version);
    });
  }
}

function parseVersion(version: string): number {
  const n = Number(version);
  if (!/^\d+$/.test(version) || !Number.isInteger(n) || n < 1 || n > 0x7fffffff) throw E.invalidVersion(version);
  return n;
}

function view(v: StoredVersion): SchemaVersionView {
  return {
    subject: v.subject,
    id: v.id,
    version: v.version,
    ...(v.schemaType !== 'AVRO' ? { schemaType: v.schemaType } : {}),
    schema: v.schema,
    ...(v.references.length > 0 ? { references: v.references } : {}),
  };
}
