/**
 * The registry's `_schemas` topic reached through the contract (`records.consume`,
 * `records.produce` with acks=all, `topics.create`), as any client of the cluster would: so its
 * schemas are replicated with the cluster, survive restarts and failovers, and a registry started
 * on the same data reads what this one wrote.
 *
 * The topic is made on first use: one partition (the registry's records are totally ordered),
 * replicated to up to three brokers, `cleanup.policy=compact` (each key is one subject version
 * or setting; a permanent delete is a tombstone). A `_schemas` an earlier build made with
 * `cleanup.policy=delete` and infinite retention is switched to compact on first use.
 *
 * A reader that must not make the topic (the console's decoder: browsing creates nothing) passes
 * `create: false`; until the registry has written, it reads an empty log.
 */
import type { EngineService } from '../api/service.js';
import type { ErrorView } from '../api/errors.js';
import type { SchemasLog } from './registry.js';
import { SCHEMAS_TOPIC, type SchemasRecord } from './registry-state.js';

/** Records read per `records.consume` call. */
const READ_CHUNK = 1000;

export class SchemasTopicError extends Error {
  constructor(readonly error: ErrorView) {
    super(`${error.code}: ${error.message}`);
  }
}

export function schemasTopic(service: Pick<EngineService, 'call'>, options: { topic?: string; create?: boolean } = {}): SchemasLog {
  const topic = options.topic ?? SCHEMAS_TOPIC;
  const create = options.create ?? true;
  let ready: Promise<void> | null = null;
  const ensure = (): Promise<void> => {
    if (!create) return Promise.resolve();
    ready ??= ensureTopic(service, topic).catch((e: unknown) => {
      ready = null;
      throw e;
    });
    return ready;
  };
  return {
    async read(fromOffset) {
      await ensure();
      const r = await service.call('records.consume', { topic, partition: 0, offset: fromOffset, maxRecords: READ_CHUNK });
      if (!r.ok) {
        if (!create && r.error.code === 'UNKNOWN_TOPIC_OR_PARTITION') return { records: [], nextOffset: fromOffset, endOffset: fromOffset };
        const details = r.error.details as { logStartOffset?: number; highWatermark?: number } | undefined;
        // Below the log start (records deleted): continue from it; past the end: nothing yet.
        if (r.error.code === 'OFFSET_OUT_OF_RANGE' && details?.logStartOffset !== undefined && fromOffset < details.logStartOffset) {
          return { records: [], nextOffset: details.logStartOffset, endOffset: details.highWatermark ?? details.logStartOffset };
        }
        throw new SchemasTopicError(r.error);
      }
      const { records, highWatermark } = r.value;
      const last = records[records.length - 1];
      // No record below the HW from here: the rest was compacted away.
      const nextOffset = last ? last.offset + 1 : Math.max(fromOffset, highWatermark);
      return { records: records.map((x): SchemasRecord => ({ key: x.key, value: x.value })), nextOffset, endOffset: highWatermark };
    },
    async append(records) {
      await ensure();
      const r = await service.call('records.produce', { topic, partition: 0, acks: 'all', records: records.map((x) => ({ key: x.key, value: x.value })) });
      if (!r.ok) throw new SchemasTopicError(r.error);
      if (r.value.errorCode !== 'NONE') throw new SchemasTopicError({ code: r.value.errorCode, message: r.value.errorMessage ?? `Writing to ${topic} failed with ${r.value.errorCode}`, retriable: true });
    },
  };
}

async function ensureTopic(service: Pick<EngineService, 'call'>, topic: string): Promise<void> {
  const described = await service.call('topics.describe', { name: topic });
  if (described.ok) {
    const policy = await service.call('configs.describe', { resource: { type: 'topic', name: topic } });
    const current = policy.ok ? policy.value.find((c) => c.name === 'cleanup.policy')?.value : undefined;
    // Made `delete` (infinite retention) by builds whose brokers refused compaction.
    if (current !== undefined && current !== 'compact') await service.call('configs.alter', { resource: { type: 'topic', name: topic }, set: { 'cleanup.policy': 'compact' } });
    return;
  }
  if (described.error.code !== 'UNKNOWN_TOPIC_OR_PARTITION') throw new SchemasTopicError(described.error);
  const brokers = await service.call('brokers.list', {});
  const replicationFactor = Math.max(1, Math.min(3, brokers.ok ? brokers.value.length : 1));
  const create = (configs: Record<string, string>) => service.call('topics.create', { name: topic, partitions: 1, replicationFactor, configs });
  const created = await create({ 'cleanup.policy': 'compact' });
  if (!created.ok && created.error.code !== 'TOPIC_ALREADY_EXISTS') throw new SchemasTopicError(created.error);
}
