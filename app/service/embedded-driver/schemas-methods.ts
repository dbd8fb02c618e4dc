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
import type { RecordSource } from '../workbench/record-source.js';
import { schemaUsage } from '../workbench/schema-usage.js';

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
    'schemas.usage': ({ topic, maxScan }: MethodParsedInput<'schemas.usage'>): Promise<SchemaUsageView> =>
      schemaUsage(source, topic, maxScan, async () => {
        await registry.sync();
        return (id) => [...new Set(registry.state.usesOf(id).map((u) => u.subject))];
      }),
  };
}
