/**
 * `transactions.*` on the cluster the console runs: the shared logic (../txn-methods.ts) over the
 * engine's door — the transaction APIs sent to one broker as a Kafka client's would go
 * (ListTransactions, DescribeTransactions, DescribeProducers, and the admin's WriteTxnMarkers),
 * ListOffsets read_committed for the LSO, Fetch read_uncommitted for the records a preview counts.
 * The log end offset is the leader replica's own (the console can see it on its own cluster).
 */
import { KafkaError, type KafkaErrorName } from '../../api/errors.js';
import { LATEST_TIMESTAMP, NO_LEADER_EPOCH, type BrokerAnswer, type ClientFetchResponse, type ClientListOffsetsResponse, type Engine, type TxnApiRequest, type TxnResponseOf } from '../../core/engine.js';
import { txnMethodsOver, type TxnMethods, type TxnPartitionInfo } from '../txn-methods.js';
import type { Answer } from './group-methods.js';

/** Bytes per Fetch while a preview counts records. */
const READ_BYTES = 1024 * 1024;

export function txnMethods(engine: Engine, answer: Answer): TxnMethods {
  async function ask<R extends TxnApiRequest>(brokerId: number, request: R): Promise<TxnResponseOf<R>> {
    const a = await answer<BrokerAnswer<TxnResponseOf<R>>>((done) => engine.txnRequest(brokerId, request, done));
    if (a.kind === 'unreachable') throw new KafkaError(a.reason === 'timeout' ? 'REQUEST_TIMED_OUT' : 'NETWORK_EXCEPTION', `Broker ${brokerId} did not answer ${request.api} (${a.reason}).`);
    return a.response;
  }
  const leaderOf = (topic: string, partition: number): number => engine.metadata.topicsByName.get(topic)?.partitions.get(partition)?.leader ?? -1;

  async function latest(topic: string, partition: number, isolationLevel: 'read_committed' | 'read_uncommitted'): Promise<number> {
    const leader = leaderOf(topic, partition);
    if (leader < 0) throw new KafkaError('LEADER_NOT_AVAILABLE', `Partition ${topic}-${partition} has no leader.`);
    const a = await answer<BrokerAnswer<ClientListOffsetsResponse>>((done) =>
      engine.listOffsetsRequest(leader, { type: 'listOffsets', isolationLevel, partitions: [{ topic, partition, timestamp: LATEST_TIMESTAMP, currentLeaderEpoch: NO_LEADER_EPOCH }] }, done),
    );
    if (a.kind === 'unreachable') throw new KafkaError('NETWORK_EXCEPTION', `The leader of ${topic}-${partition} (broker ${leader}) did not answer.`);
    const p = a.response.partitions[0]!;
    if (p.error !== 'NONE') throw new KafkaError(p.error, `ListOffsets on ${topic}-${partition} failed with ${p.error}.`);
    return p.offset;
  }

  return txnMethodsOver({
    now: () => engine.scheduler.now(),
    brokers: async () => engine.listBrokers().filter((b) => b.state === 'running' && !b.isolated).map((b) => b.id),
    listTransactions: (brokerId, f) => ask(brokerId, { api: 'listTransactions', stateFilters: f.stateFilters, producerIdFilters: f.producerIdFilters, durationFilterMs: -1 }),
    describeTransactions: (brokerId, transactionalIds) => ask(brokerId, { api: 'describeTransactions', transactionalIds }),
    async describeProducers(brokerId, topic, partitions) {
      const r = await ask(brokerId, { api: 'describeProducers', topics: [{ name: topic, partitions }] });
      return r.topics.flatMap((t) => t.partitions);
    },
    async writeAbortMarker(brokerId, m) {
      const r = await ask(brokerId, {
        api: 'writeTxnMarkers',
        markers: [{ producerId: m.producerId, producerEpoch: m.producerEpoch, coordinatorEpoch: m.coordinatorEpoch, result: 'ABORT', topics: [{ name: m.topic, partitions: [m.partition] }] }],
      });
      return (r.markers[0]?.topics[0]?.partitions[0]?.errorCode ?? 'UNKNOWN_SERVER_ERROR') as KafkaErrorName;
    },
    async partitions(topic) {
      const topics = topic === undefined ? [...engine.metadata.topicsByName.keys()] : [topic];
      const out: TxnPartitionInfo[] = [];
      for (const name of topics) {
        const t = engine.metadata.topicsByName.get(name);
        if (!t) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic ${name} does not exist.`);
        for (const [partition, s] of [...t.partitions].sort((a, b) => a[0] - b[0])) out.push({ topic: name, partition, leader: s.leader, replicas: [...s.replicas] });
      }
      return out;
    },
    async offsets(topic, partitions) {
      const out = new Map<number, { logStartOffset: number; lastStableOffset: number; highWatermark: number; logEndOffset: number | null }>();
      for (const partition of partitions) {
        const [lastStableOffset, highWatermark] = await Promise.all([latest(topic, partition, 'read_committed'), latest(topic, partition, 'read_uncommitted')]);
        const d = engine.describePartition(topic, partition);
        const leo = d?.replicaStates.find((r) => r.brokerId === d.leader)?.logEndOffset;
        out.set(partition, { logStartOffset: d?.logStartOffset ?? 0, lastStableOffset, highWatermark, logEndOffset: leo ?? null });
      }
      return out;
    },
    async recordProducers(topic, partition, from, to, maxRecords) {
      const out: { offset: number; producerId: number }[] = [];
      let at = from;
      while (at < to && out.length < maxRecords) {
        const leader = leaderOf(topic, partition);
        const a = await answer<BrokerAnswer<ClientFetchResponse>>((done) =>
          engine.fetchRequest(
            leader,
            {
              type: 'clientFetch',
              maxWaitMs: 0,
              minBytes: 1,
              maxBytes: READ_BYTES,
              isolationLevel: 'read_uncommitted',
              partitions: [{ topic, partition, fetchOffset: at, currentLeaderEpoch: NO_LEADER_EPOCH, partitionMaxBytes: READ_BYTES }],
            },
            done,
          ),
        );
        if (a.kind === 'unreachable') throw new KafkaError('NETWORK_EXCEPTION', `The leader of ${topic}-${partition} (broker ${leader}) did not answer.`);
        const p = a.response.partitions[0];
        if (!p || p.error !== 'NONE') throw new KafkaError(p?.error ?? 'UNKNOWN_SERVER_ERROR', `Fetching ${topic}-${partition} at offset ${at} failed with ${p?.error ?? 'no answer'}.`);
        if (p.batches.length === 0) break;
        for (const batch of p.batches) {
          const last = batch.lastOffset;
          if (!batch.control) {
            batch.records.forEach((_, i) => {
              const offset = batch.baseOffset + (batch.offsetDeltas?.[i] ?? i);
              if (offset >= at && offset < to && out.length < maxRecords) out.push({ offset, producerId: batch.producer?.producerId ?? -1 });
            });
          }
          at = Math.max(at, last + 1);
        }
      }
      return out;
    },
  });
}
