/**
 * What a read_committed consumer of one partition keeps, read from offset 0 to the LSO through
 * the partition leader's Fetch, as Kafka's Fetcher does: control batches skipped, and the
 * batches of each aborted transaction the leader lists skipped from its first offset up to its
 * producer's ABORT marker. The fault run's transactional checks read their topics through it.
 */
import type { ClientFetchPartitionResponse } from '../../core/broker/messages.js';
import type { Engine } from '../../core/engine.js';
import { markerOf } from '../../core/log/control-records.js';
import type { RecordBatch } from '../../core/log/records.js';
import type { RunContext, TopicPartition } from './context.js';

type FetchAnswer = Parameters<Parameters<Engine['fetchRequest']>[2]>[0];
const decoder = new TextDecoder();

function fetchCommitted(ctx: RunContext, topic: string, partition: number, offset: number): ClientFetchPartitionResponse | null {
  const leader = ctx.sim.engine.metadata.topicsByName.get(topic)?.partitions.get(partition)?.leader ?? -1;
  if (leader < 0) return null;
  const a = ctx.sim.await<FetchAnswer>(
    (done) =>
      ctx.sim.engine.fetchRequest(
        leader,
        { type: 'clientFetch', maxWaitMs: 0, minBytes: 0, maxBytes: 64 << 20, isolationLevel: 'read_committed', partitions: [{ topic, partition, fetchOffset: offset, partitionMaxBytes: 64 << 20, currentLeaderEpoch: -1 }] },
        done,
      ),
    60_000,
  );
  return a.kind === 'response' && a.response.partitions[0]?.error === 'NONE' ? a.response.partitions[0] : null;
}

/**
 * What a read_committed consumer keeps of `batches` (read from `from`, below `lso`), told of the
 * `aborted` transactions as Fetch lists them: Kafka's Fetcher skips control batches, and each
 * aborted transaction's batches from its first offset up to its producer's ABORT marker.
 */
export function keptByReadCommitted(batches: readonly RecordBatch[], aborted: readonly { producerId: number; firstOffset: number }[], from: number, lso: number): { values: string[]; next: number } {
  const kept: string[] = [];
  const pending = [...aborted].sort((a, b) => a.firstOffset - b.firstOffset);
  const skipping = new Set<number>();
  let next = from;
  for (const b of batches) {
    if (b.lastOffset < next || b.baseOffset >= lso) continue;
    while (pending.length > 0 && pending[0]!.firstOffset <= b.lastOffset) skipping.add(pending.shift()!.producerId);
    const pid = b.producer?.producerId ?? -1;
    const marker = markerOf(b);
    if (marker) {
      if (marker.type === 'ABORT') skipping.delete(pid);
    } else if (!(b.transactional && skipping.has(pid))) {
      b.records.forEach((r, i) => {
        if (b.baseOffset + i >= next && r.value) kept.push(decoder.decode(r.value));
      });
    }
    next = b.lastOffset + 1;
  }
  return { values: kept, next };
}

/** The values a read_committed consumer of `topic`-`partition` gets, in order. */
export function readCommittedValues(ctx: RunContext, topic: string, partition: number): string[] {
  const kept: string[] = [];
  let offset = 0;
  for (let guard = 0; guard < 1000; guard++) {
    const f = fetchCommitted(ctx, topic, partition, offset);
    if (!f) throw new Error(`${topic}-${partition}: no leader answered the read_committed fetch`);
    if (offset >= f.lastStableOffset || f.batches.length === 0) break;
    const got = keptByReadCommitted(f.batches, f.abortedTransactions ?? [], offset, f.lastStableOffset);
    kept.push(...got.values);
    offset = got.next;
  }
  return kept;
}

/** Every replica of each partition caught up with its leader, and no transaction holding any (LSO = HW = LEO on the leader). */
export function partitionsSettled(ctx: RunContext, tps: readonly TopicPartition[]): boolean {
  const engine = ctx.sim.engine;
  return tps.every((tp) => {
    const view = engine.describePartition(tp.topic, tp.partition);
    if (!view || view.leader < 0 || view.isr.length !== view.replicas.length) return false;
    const leader = ctx.sim.internals.brokers.get(view.leader)?.partitionFor(tp.topic, tp.partition);
    if (!leader) return false;
    const log = leader.log;
    return log.highWatermark === log.logEndOffset && log.lastStableOffset === log.highWatermark && view.replicaStates.every((r) => r.logEndOffset === log.logEndOffset);
  });
}
