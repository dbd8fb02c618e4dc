/**
 * `transactions.*` on an external cluster: the shared logic (../txn-methods.ts) over the
 * cluster's brokers, as `kafka-transactions.sh` reaches them (kafka-client/txn-requests.ts):
 * ListTransactions to every broker, DescribeTransactions to a coordinator, DescribeProducers,
 * ListOffsets and WriteTxnMarkers to a partition's leader, Fetch for the records a preview counts.
 * Kafka tells clients no leader's log end offset (DescribeLogDirs' lag is 0 on a leader), so it
 * stays null here; the preview counts up to the high watermark.
 */
import { KafkaError } from '../../api/errors.js';
import type { KafkaAdminClient } from '../../kafka-client/admin-client.js';
import { describeProducers, describeTransactions, latestOffsets, listTransactions, writeAbortMarker } from '../../kafka-client/txn-requests.js';
import type { PartitionOffsetsView } from '../../api/transactions-contract.js';
import type { DescribedTransaction, ListedTransaction } from '../../core/engine.js';
import { txnMethodsOver, type TxnMethods, type TxnPartitionInfo } from '../txn-methods.js';

const READ_BYTES = 1024 * 1024;

export function kafkaTxnMethods(client: KafkaAdminClient): TxnMethods {
  async function partitionsOf(topic?: string): Promise<TxnPartitionInfo[]> {
    const md = await client.metadata(topic === undefined ? undefined : [topic]);
    const out: TxnPartitionInfo[] = [];
    for (const t of md.topics) {
      if (t.errorCode !== 'NONE') throw new KafkaError(t.errorCode, t.errorCode === 'UNKNOWN_TOPIC_OR_PARTITION' ? `Topic ${t.name} does not exist.` : `Reading the metadata of ${t.name} failed with ${t.errorCode}.`);
      for (const p of [...t.partitions].sort((a, b) => a.partition - b.partition)) out.push({ topic: t.name, partition: p.partition, leader: p.leader, replicas: p.replicas });
    }
    if (topic !== undefined && out.length === 0) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic ${topic} does not exist.`);
    return out;
  }
  return txnMethodsOver({
    now: () => Date.now(),
    brokers: async () => (await client.metadata([])).brokers.map((b) => b.id).sort((a, b) => a - b),
    async listTransactions(brokerId, f) {
      const r = await listTransactions(client, brokerId, f.stateFilters, f.producerIdFilters);
      return { errorCode: r.errorCode, unknownStateFilters: [], transactionStates: r.transactionStates.map((t) => ({ ...t, state: t.state as ListedTransaction['state'] })) };
    },
    async describeTransactions(brokerId, ids) {
      const r = await describeTransactions(client, brokerId, ids);
      return { transactionStates: r.map((d) => ({ ...d, state: d.state as DescribedTransaction['state'] })) };
    },
    describeProducers: (brokerId, topic, partitions) => describeProducers(client, brokerId, topic, partitions),
    writeAbortMarker: (brokerId, m) => writeAbortMarker(client, brokerId, m),
    partitions: partitionsOf,
    async offsets(topic, partitions) {
      const parts = (await partitionsOf(topic)).filter((p) => partitions.includes(p.partition));
      const starts = await client.offsets(topic);
      const byLeader = new Map<number, number[]>();
      for (const p of parts) byLeader.set(p.leader, [...(byLeader.get(p.leader) ?? []), p.partition]);
      const out = new Map<number, PartitionOffsetsView>();
      for (const [leader, ps] of byLeader) {
        if (leader < 0) throw new KafkaError('LEADER_NOT_AVAILABLE', `Partition ${topic}-${ps[0]} has no leader.`);
        const [committed, uncommitted] = await Promise.all([latestOffsets(client, leader, topic, ps, 1), latestOffsets(client, leader, topic, ps, 0)]);
        for (const p of ps) {
          const lso = committed.get(p);
          const hw = uncommitted.get(p);
          const failed = [lso, hw].find((x) => !x || x.errorCode !== 'NONE');
          if (failed !== undefined) throw new KafkaError(failed?.errorCode ?? 'UNKNOWN_TOPIC_OR_PARTITION', `ListOffsets on ${topic}-${p} failed with ${failed?.errorCode ?? 'no answer'}.`);
          out.set(p, { logStartOffset: starts.find((s) => s.partition === p)?.logStartOffset ?? 0, lastStableOffset: lso!.offset, highWatermark: hw!.offset, logEndOffset: null });
        }
      }
      return out;
    },
    async recordProducers(topic, partition, from, to, maxRecords) {
      const out: { offset: number; producerId: number }[] = [];
      let at = from;
      while (at < to && out.length < maxRecords) {
        const got = await client.records.fetchProducers(topic, partition, at, READ_BYTES);
        if (got.length === 0) break;
        for (const r of got) if (!r.control && r.offset < to && out.length < maxRecords) out.push({ offset: r.offset, producerId: r.producerId });
        at = Math.max(at + 1, got[got.length - 1]!.offset + 1);
      }
      return out;
    },
  });
}
