/**
 * The Messages workbench on the embedded cluster: `records.search` over the engine's door, with
 * payloads framed by the cluster's own Schema Registry decoded by their schemas. The registry's
 * state is read from its `_schemas` topic through the service's own contract calls (the same
 * records the registry's REST API writes), without creating the topic.
 */
import type { MethodParsedInput } from '../../api/contract.js';
import type { RecordsSearchView } from '../../api/records-search-contract.js';
import type { EngineService } from '../../api/service.js';
import type { Engine } from '../../core/engine.js';
import { SchemaRegistry } from '../../schemas/registry.js';
import { schemasTopic } from '../../schemas/schemas-topic.js';
import type { SchemaLookup } from '../workbench/payload.js';
import { searchRecords } from '../workbench/search.js';
import { engineRecordSource } from './engine-record-source.js';
import { schemasMethods } from './schemas-methods.js';
import { producedRecords, type EncodingRegistry } from '../workbench/produce-encoding.js';
import type { LogRecord } from '../../core/log/records.js';
import type { Answer } from './group-methods.js';

/** The cluster's registry as a schema lookup: a stored schema by id, with its first subject and version. */
export function registryLookup(registry: SchemaRegistry): SchemaLookup {
  return {
    async byId(id) {
      try {
        const parsed = await registry.parsedById(id);
        const use = registry.state.usesOf(id)[0];
        return { parsed, ...(use ? { subject: use.subject, version: use.version } : {}) };
      } catch {
        return null;
      }
    },
  };
}

/** The cluster's registry as produce's encoder sees it. */
export function registryEncoding(registry: SchemaRegistry): EncodingRegistry {
  return { idOf: async (subject, version) => (await registry.version(subject, version)).id, parsedById: (id) => registry.parsedById(id) };
}

export function workbenchMethods(engine: Engine, answer: Answer, self: Pick<EngineService, 'call'>) {
  const source = engineRecordSource(engine, answer);
  const registry = new SchemaRegistry(schemasTopic(self, { create: false }));
  const lookup = registryLookup(registry);
  const encoding = registryEncoding(registry);
  // The Schemas page registers too: this one makes `_schemas` on its first write, as the REST API's does.
  const writer = new SchemaRegistry(schemasTopic(self));
  return {
    methods: {
      'records.search': (input: MethodParsedInput<'records.search'>): Promise<RecordsSearchView> => searchRecords(source, input, lookup),
      ...schemasMethods(registry, writer, source),
    },
    /** A produce call's records as bytes (text, base64, or encoded with a schema of the cluster's registry). */
    producedRecords: (input: MethodParsedInput<'records.produce'>, nowMs: number): LogRecord[] | Promise<LogRecord[]> => producedRecords(input, nowMs, encoding),
  };
}
