/**
 * `schemas.*`, the decoding of registry-framed records and the encoding of produced ones on an
 * external cluster whose connection names its Schema Registry by URL: the same views as the local
 * registry's, read over Confluent's REST API (registry-client.ts).
 */
import type { MethodParsedInput } from '../../api/contract.js';
import type { SchemaCheckView, SchemaRegistryView, SchemaSubjectView, SchemaUsageView } from '../../api/schemas-contract.js';
import { parseSchema } from '../../schemas/parse-schema.js';
import type { ParsedSchema, ResolvedReference, SchemaReference, SchemaType } from '../../schemas/schema-types.js';
import type { EncodingRegistry } from '../workbench/produce-encoding.js';
import type { SchemaLookup } from '../workbench/payload.js';
import type { RecordSource } from '../workbench/record-source.js';
import { schemaUsage } from '../workbench/schema-usage.js';
import { registryCode, type RegistryClient } from './registry-client.js';

interface VersionBody {
  subject: string;
  version: number;
  id: number;
  schemaType?: SchemaType;
  schema: string;
  references?: SchemaReference[];
}

const enc = encodeURIComponent;

/** `work`'s answer, or `fallback` when the registry answers one of `codes`. */
async function unless<T>(codes: number[], fallback: T, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (e) {
    const code = registryCode(e);
    if (code !== null && codes.includes(code)) return fallback;
    throw e;
  }
}

export function externalSchemasMethods(http: RegistryClient, source: RecordSource) {
  const subjectsOfId = (id: number) => unless([40403], [], http.get<{ subject: string; version: number }[]>(`/schemas/ids/${id}/versions`)).then((l) => [...new Set(l.map((x) => x.subject))]);
  const draftBody = (input: MethodParsedInput<'schemas.check'>) => ({ schema: input.schema, ...(input.schemaType && input.schemaType !== 'AVRO' ? { schemaType: input.schemaType } : {}), ...(input.references ? { references: input.references } : {}) });

  return {
    'schemas.list': async (): Promise<SchemaRegistryView> => {
      const names = await http.get<string[]>('/subjects?deleted=true');
      const subjects: SchemaSubjectView[] = [];
      for (const subject of [...names].sort()) {
        const all = await http.get<number[]>(`/subjects/${enc(subject)}/versions?deleted=true`);
        const live = new Set(await unless([40401], [], http.get<number[]>(`/subjects/${enc(subject)}/versions`)));
        const versions = [];
        for (const v of all) {
          const body = await http.get<VersionBody>(`/subjects/${enc(subject)}/versions/${v}?deleted=true`);
          versions.push({ version: body.version, id: body.id, schemaType: body.schemaType ?? 'AVRO', schema: body.schema, references: body.references ?? [], deleted: !live.has(v) });
        }
        const compatibility = await unless([40401, 40408], null, http.get<{ compatibilityLevel: string }>(`/config/${enc(subject)}`).then((c) => c.compatibilityLevel));
        const mode = await unless([40401, 40409], null, http.get<{ mode: string }>(`/mode/${enc(subject)}`).then((m) => m.mode));
        subjects.push({ subject, versions, compatibility, mode });
      }
      const globalCompatibility = (await http.get<{ compatibilityLevel: string }>('/config')).compatibilityLevel;
      const globalMode = (await unless([40409], { mode: 'READWRITE' }, http.get<{ mode: string }>('/mode'))).mode;
      return { subjects, globalCompatibility, globalMode };
    },
    'schemas.check': async (input: MethodParsedInput<'schemas.check'>): Promise<SchemaCheckView> => {
      const level = (await http.get<{ compatibilityLevel: string }>(`/config/${enc(input.subject)}?defaultToGlobal=true`)).compatibilityLevel;
      // A subject with no versions yet takes any valid schema (40401/40402), as registering would.
      const r = await unless([40401, 40402], { is_compatible: true, messages: [] as string[] }, http.post<{ is_compatible: boolean; messages?: string[] }>(`/compatibility/subjects/${enc(input.subject)}/versions/latest?verbose=true`, draftBody(input)));
      return { compatible: r.is_compatible, level, messages: r.is_compatible ? [] : (r.messages ?? []) };
    },
    'schemas.register': (input: MethodParsedInput<'schemas.register'>): Promise<{ id: number }> => http.post<{ id: number }>(`/subjects/${enc(input.subject)}/versions`, draftBody(input)),
    'schemas.usage': ({ topic, maxScan }: MethodParsedInput<'schemas.usage'>): Promise<SchemaUsageView> =>
      schemaUsage(source, topic, maxScan, async (ids) => {
        const found = new Map<number, string[]>();
        for (const id of ids) found.set(id, await subjectsOfId(id));
        return (id) => found.get(id) ?? [];
      }),
  };
}

/**
 * Schemas by id from the registry, parsed with their references and cached while the driver
 * lives: for decoding what records.search reads (`lookup`, null when the registry cannot say) and
 * for encoding what records.produce writes (`encoding`, which says why it cannot).
 */
export function externalSchemas(http: RegistryClient): { lookup: SchemaLookup; encoding: EncodingRegistry } {
  const parsed = new Map<number, Promise<ParsedSchema>>();
  const resolve = async (refs: readonly SchemaReference[], depth: number): Promise<ResolvedReference[]> => {
    if (depth > 32) throw new Error('references nest deeper than 32');
    const out: ResolvedReference[] = [];
    for (const r of refs) {
      const v = await http.get<VersionBody>(`/subjects/${enc(r.subject)}/versions/${r.version}`);
      out.push({ name: r.name, schemaType: v.schemaType ?? 'AVRO', schema: v.schema, references: await resolve(v.references ?? [], depth + 1) });
    }
    return out;
  };
  const parsedById = (id: number): Promise<ParsedSchema> => {
    let found = parsed.get(id);
    if (!found) {
      found = (async () => {
        const s = await http.get<{ schema: string; schemaType?: SchemaType; references?: SchemaReference[] }>(`/schemas/ids/${id}`);
        return parseSchema(s.schemaType ?? 'AVRO', s.schema, await resolve(s.references ?? [], 0));
      })();
      // Not cached when it fails: the registry may answer next time.
      found.catch(() => parsed.delete(id));
      parsed.set(id, found);
    }
    return found;
  };
  const uses = new Map<number, Promise<{ subject: string; version: number } | undefined>>();
  const firstUse = (id: number) => {
    let found = uses.get(id);
    if (!found) {
      found = unless([40403], [], http.get<{ subject: string; version: number }[]>(`/schemas/ids/${id}/versions`)).then((l) => l[0]);
      found.catch(() => uses.delete(id));
      uses.set(id, found);
    }
    return found;
  };
  return {
    lookup: {
      async byId(id) {
        try {
          const [schema, use] = await Promise.all([parsedById(id), firstUse(id)]);
          return { parsed: schema, ...(use ? { subject: use.subject, version: use.version } : {}) };
        } catch {
          return null;
        }
      },
    },
    encoding: {
      idOf: async (subject, version) => (await http.get<VersionBody>(`/subjects/${enc(subject)}/versions/${enc(version)}`)).id,
      parsedById,
    },
  };
}
