/**
 * `records.delete` on the embedded cluster, done as Kafka's admin client does deleteRecords: each
 * partition goes to its leader as the controller's metadata names it (one DeleteRecords request
 * per leader), and each leader's answer is that partition's outcome. A partition named twice is
 * answered once, with the last offset given (the admin client keys its request by partition).
 *
 * Before any request: a topic or partition that does not exist is UNKNOWN_TOPIC_OR_PARTITION, a
 * partition without a leader LEADER_NOT_AVAILABLE. A leader that does not answer is
 * REQUEST_TIMED_OUT (cut off) or NETWORK_EXCEPTION (its process is gone).
 */
import type { DeleteRecordsResultView } from '../../api/records-delete-contract.js';
import type { MethodParsedInput } from '../../api/contract.js';
import type { BrokerAnswer, ClientDeleteRecordsResponse, Engine } from '../../core/engine.js';
import type { KafkaErrorName } from '../../api/errors.js';
import type { Answer } from './group-methods.js';

/** The admin client's default timeout for the brokers' wait (default.api.timeout.ms is 60 s; the request's own timeout 30 s). */
const DEFAULT_TIMEOUT_MS = 30_000;

/** Each partition once, with the last offset given for it, in the order first named. */
export function lastOffsetPerPartition(partitions: readonly { topic: string; partition: number; offset: number }[]): Map<string, { topic: string; partition: number; offset: number }> {
  const wanted = new Map<string, { topic: string; partition: number; offset: number }>();
  for (const p of partitions) {
    const key = `${p.topic}\u0000${p.partition}`;
    wanted.set(key, { topic: p.topic, partition: p.partition, offset: p.offset });
  }
  return wanted;
}

export function recordsDeleteMethod(engine: Engine, answer: Answer) {
  return {
    'records.delete': async ({ partitions, timeoutMs = DEFAULT_TIMEOUT_MS }: MethodParsedInput<'records.delete'>): Promise<DeleteRecordsResultView[]> => {
      const wanted = lastOffsetPerPartition(partitions);
      const results = new Map<string, DeleteRecordsResultView>();
      const fail = (key: string, errorCode: KafkaErrorName): void => {
        const p = wanted.get(key)!;
        results.set(key, { topic: p.topic, partition: p.partition, lowWatermark: -1, errorCode });
      };
      const byLeader = new Map<number, string[]>();
      for (const [key, p] of wanted) {
        const topic = engine.metadata.topicsByName.get(p.topic);
        const state = topic?.partitions.get(p.partition);
        if (!state) fail(key, 'UNKNOWN_TOPIC_OR_PARTITION');
        else if (state.leader < 0) fail(key, 'LEADER_NOT_AVAILABLE');
        else byLeader.set(state.leader, [...(byLeader.get(state.leader) ?? []), key]);
      }
      await Promise.all(
        [...byLeader].map(async ([leader, keys]) => {
          const request = { type: 'deleteRecords' as const, timeoutMs, partitions: keys.map((k) => wanted.get(k)!) };
          const a = await answer<BrokerAnswer<ClientDeleteRecordsResponse>>((done) => engine.deleteRecordsRequest(leader, request, done));
          if (a.kind === 'unreachable') return keys.forEach((k) => fail(k, a.reason === 'timeout' ? 'REQUEST_TIMED_OUT' : 'NETWORK_EXCEPTION'));
          a.response.partitions.forEach((r, i) => results.set(keys[i]!, { topic: r.topic, partition: r.partition, lowWatermark: r.lowWatermark, errorCode: r.error }));
        }),
      );
      return [...wanted.keys()].map((k) => results.get(k)!);
    },
  };
}
