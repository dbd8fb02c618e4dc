/**
 * `schemas.*` on the embedded cluster: the Schemas page over the same registry state the REST API
 * serves (the `_schemas` topic, read through the service's own contract calls), and a bounded
 * scan of a topic for the schema ids its records carry.
 */
import type { MethodParsedInput } from '../../api/contract.js';
import { KafkaError } from '../../api/errors.js';
import type { SchemaCheckView, SchemaRegistryView, SchemaUsageView } from '../../api/schemas-contract.js';
import type { SchemaRegistry } from '../../schemas/registry.js';
import { RegistryError } from '../../schemas/registry-errors.js';
import { readHeader } from '../../schemas/wire-format.js';
import type { RecordSource } from '../workbench/record-source.js';

const SCAN_CHUNK_BYTES = 1024 * 1024;

async function registryCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof RegistryError) throw new KafkaError('INVALID_REQUEST', `${e.message} (Schema Registry error ${e.code})`, { registryErrorCode: e.code });
    throw e;
  }
}

/**
 * `reader` never makes `_schemas` (opening the Schemas page creates nothing); `writer` makes it on
 * its first write, as the REST API's registry does.
 */
export function schemasMethods(reader: SchemaRegistry, writer: SchemaRegistry, source: RecordSource) {
  const registry = reader;
  return {
    'schemas.list': (): Promise<SchemaRegistryView> =>
      registryCall(async () => {
        await registry.sync();
        const st = registry.state;
        return {
          subjects: [...st.subjects.keys()].sort().map((subject) => ({
            subject,
            versions: st.versionsOf(subject, true).map((v) => ({ version: v.version, id: v.id, schemaType: v.schemaType, schema: v.schema, references: v.references, deleted: v.deleted })),
            compatibility: st.configs.get(subject) ?? null,
            mode: st.modes.get(subject) ?? null,
          })),
          globalCompatibility: registry.compatibility(null),
          globalMode: registry.mode(null),
        };
      }),
    'schemas.check': (input: MethodParsedInput<'schemas.check'>): Promise<SchemaCheckView> =>
      registryCall(async () => {
        const messages = await registry.check(input.subject, { schema: input.schema, ...(input.schemaType ? { schemaType: input.schemaType } : {}), ...(input.references ? { references: input.references } : {}) }).catch((e: unknown) => {
          if (e instanceof RegistryError && e.code === 40401) return [];
          throw e;
        });
        return { compatible: messages.length === 0, level: registry.compatibility(input.subject), messages };
      }),
    'schemas.register': (input: MethodParsedInput<'schemas.register'>): Promise<{ id: number }> =>
      registryCall(() => writer.register(input.subject, { schema: input.schema, ...(input.schemaType ? { schemaType: input.schemaType } : {}), ...(input.references ? { references: input.references } : {}) })),
    'schemas.usage': async ({ topic, maxScan = 100_000 }: MethodParsedInput<'schemas.usage'>): Promise<SchemaUsageView> => {
      const partitions = await source.partitions(topic);
      const bounds = await source.bounds(topic, partitions);
      const counts = new Map<string, { id: number; part: 'key' | 'value'; records: number }>();
      let scanned = 0;
      let unframed = 0;
      const reached: number[] = [];
      for (const b of bounds) {
        let at = b.logStartOffset;
        while (at < b.highWatermark && scanned < maxScan) {
          const chunk = await source.read(topic, b.partition, at, SCAN_CHUNK_BYTES);
          if (chunk.length === 0) {
            at = b.highWatermark; // the rest was compacted away
            break;
          }
          for (const r of chunk) {
            if (scanned >= maxScan) break;
            scanned++;
            at = r.offset + 1;
            let framed = false;
            for (const [part, bytes] of [['key', r.key], ['value', r.value]] as const) {
              const h = bytes ? readHeader(bytes) : null;
              if (!h) continue;
              framed = true;
              const k = `${part}:${h.schemaId}`;
              const c = counts.get(k) ?? { id: h.schemaId, part, records: 0 };
              c.records++;
              counts.set(k, c);
            }
            if (!framed) unframed++;
          }
        }
        reached.push(at);
      }
      const complete = bounds.every((b, i) => reached[i]! >= b.highWatermark);
      await registry.sync();
      const ids = [...counts.values()]
        .sort((a, b) => a.id - b.id || a.part.localeCompare(b.part))
        .map((c) => ({ ...c, subjects: [...new Set(registry.state.usesOf(c.id).map((u) => u.subject))] }));
      return { topic, scanned, ids, unframed, complete };
    },
  };
}
