/**
 * The LSO check made all through the fault run (KIP-98): a partition's last stable offset never
 * passes a transaction still open on it. Every WATCH_EVERY_MS of engine time, for each
 * transaction a producer of the run has batches acknowledged in and has neither ended nor given
 * up, the watch asks the transaction's coordinator (the leader of its `__transaction_state`
 * partition, as DescribeTransactions answers) what it holds. While that coordinator holds the
 * transaction Ongoing for the same producer id and epoch with the partition in it, no COMMIT or
 * ABORT marker can have been sent for it (markers follow PrepareCommit/PrepareAbort, and a
 * coordinator that loads the log finds a written Prepare state, never Ongoing), so the leader of
 * the partition must answer an LSO at or below the offset of the transaction's first batch there.
 *
 * The same holds for the offsets a transaction commits for a group (TxnOffsetCommit, KIP-447):
 * they are written to `__consumer_offsets` as data of the transaction and become the group's only
 * with the COMMIT marker. So while the coordinator holds the transaction Ongoing with the group's
 * `__consumer_offsets` partition in it, the group's coordinator must answer an OffsetFetch with
 * require_stable for a partition the transaction committed an offset of with
 * UNSTABLE_OFFSET_COMMIT, and one without it anything but the transaction's offset.
 *
 * Transactions it cannot decide on are skipped at that sample, never guessed: coordinator down,
 * loading or moved, a fence that bumped the epoch, Prepare states (a marker may be written and
 * its answer still on the way), no live leader or group coordinator.
 */
import type { DescribeTransactionsResponse } from '../../core/txn/messages.js';
import type { OffsetFetchResponse } from '../../core/group/messages.js';
import { OFFSETS_TOPIC } from '../../core/group/host.js';
import { offsetsPartitionFor } from '../../core/group/partition-for.js';
import { TRANSACTION_STATE_TOPIC } from '../../core/txn/host.js';
import type { RunContext } from './context.js';

const WATCH_EVERY_MS = 100;

/** A transaction of the run's own producers, as its producer knows it. */
export interface WatchedTxn {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  /** The offset of its first acknowledged batch, by topic and partition. */
  firstOffsets: Map<string, { topic: string; partition: number; offset: number }>;
  /** The group offsets its acknowledged TxnOffsetCommit holds pending until its marker. */
  groupOffsets?: { groupId: string; topic: string; partition: number; offset: number }[];
  /** Its producer has not sent EndTxn (or had it answered) nor given it up. */
  open(): boolean;
}

export class LsoWatch {
  private readonly txns = new Set<WatchedTxn>();
  /** Samples at which the coordinator held a watched transaction open (the check was made). */
  checked = 0;
  /** Of those, the OffsetFetch checks of a transaction's pending group offsets. */
  offsetsChecked = 0;

  constructor(private readonly ctx: RunContext) {}

  /** Watch `txn` while it is open; a batch acknowledged later is added through `acked`. */
  watch(txn: WatchedTxn): void {
    this.txns.add(txn);
  }

  /** A batch of `txn` was acknowledged at `offset`: the first one on its partition marks where the transaction starts there. */
  acked(txn: WatchedTxn, topic: string, partition: number, offset: number): void {
    const k = `${topic}-${partition}`;
    if (!txn.firstOffsets.has(k)) txn.firstOffsets.set(k, { topic, partition, offset });
  }

  /** `txn`'s TxnOffsetCommit of `offset` for `groupId`'s `topic`-`partition` was acknowledged. */
  offsetsAcked(txn: WatchedTxn, groupId: string, topic: string, partition: number, offset: number): void {
    (txn.groupOffsets ??= []).push({ groupId, topic, partition, offset });
  }

  start(): void {
    const loop = (): void => {
      if (!this.ctx.trafficOn) return;
      this.sample();
      this.ctx.sim.scheduler.schedule(WATCH_EVERY_MS, loop);
    };
    this.ctx.sim.scheduler.schedule(WATCH_EVERY_MS, loop);
  }

  /** One sample: every open transaction against its coordinator and the LSO of each of its partitions. */
  sample(): void {
    for (const t of [...this.txns]) {
      if (!t.open()) {
        this.txns.delete(t);
        continue;
      }
      if (t.firstOffsets.size === 0 && !t.groupOffsets) continue;
      const held = this.describe(t.transactionalId);
      if (!held || held.state !== 'Ongoing' || held.producerId !== t.producerId || held.producerEpoch !== t.producerEpoch) continue;
      const inTxn = new Set(held.topics.flatMap((x) => x.partitions.map((p) => `${x.name}-${p}`)));
      for (const o of t.groupOffsets ?? []) this.checkPendingOffset(t, o, inTxn);
      for (const [k, first] of t.firstOffsets) {
        if (!inTxn.has(k)) continue;
        const lso = this.leaderLso(first.topic, first.partition);
        if (lso === null) continue;
        this.checked++;
        if (lso > first.offset) {
          this.ctx.violation(
            `${k}: LSO ${lso} passes the open transaction of ${t.transactionalId} (producer ${t.producerId}, epoch ${t.producerEpoch}), which starts at offset ${first.offset} there and its coordinator holds Ongoing`,
            `lso-${k}-${t.producerId}-${t.producerEpoch}-${first.offset}`,
          );
        }
      }
    }
  }

  /** The group's coordinator hides `o` (pending in the open transaction `t`) from OffsetFetch, with and without require_stable. */
  private checkPendingOffset(t: WatchedTxn, o: NonNullable<WatchedTxn['groupOffsets']>[number], inTxn: ReadonlySet<string>): void {
    const offsets = this.ctx.sim.engine.metadata.topicsByName.get(OFFSETS_TOPIC);
    if (!offsets) return;
    const p = offsetsPartitionFor(o.groupId, offsets.partitions.size);
    if (!inTxn.has(`${OFFSETS_TOPIC}-${p}`)) return;
    const broker = this.ctx.sim.internals.brokers.get(offsets.partitions.get(p)?.leader ?? -1);
    if (!broker?.isAlive) return;
    const fetch = (requireStable: boolean) => {
      let answer: OffsetFetchResponse | null = null;
      // The group coordinator answers OffsetFetch from memory, at once.
      broker.handleGroupRequest({ type: 'group', api: 'offsetFetch', groupId: o.groupId, topics: [{ name: o.topic, partitions: [o.partition] }], requireStable }, (r) => (answer = r as OffsetFetchResponse));
      const a = answer as OffsetFetchResponse | null;
      return a?.errorCode === 'NONE' ? a.topics.find((x) => x.name === o.topic)?.partitions.find((x) => x.partition === o.partition) : undefined;
    };
    const stable = fetch(true);
    const plain = fetch(false);
    if (!stable || !plain) return;
    this.offsetsChecked++;
    const what = `${o.groupId}'s offset ${o.offset} of ${o.topic}-${o.partition}, pending in the open transaction of ${t.transactionalId} (producer ${t.producerId}, epoch ${t.producerEpoch}) that its coordinator holds Ongoing`;
    if (stable.errorCode !== 'UNSTABLE_OFFSET_COMMIT') {
      this.ctx.violation(`OffsetFetch with require_stable answers ${stable.errorCode} (offset ${stable.offset}) for ${what}; UNSTABLE_OFFSET_COMMIT expected`, `unstable-${o.groupId}-${o.topic}-${o.partition}-${t.producerId}-${t.producerEpoch}`);
    }
    if (plain.errorCode === 'NONE' && plain.offset === o.offset) {
      this.ctx.violation(`OffsetFetch answers ${what} before its COMMIT marker`, `pending-visible-${o.groupId}-${o.topic}-${o.partition}-${t.producerId}-${t.producerEpoch}`);
    }
  }

  /** What the current coordinator of the id holds, as DescribeTransactions answers (null: it cannot answer now). */
  private describe(transactionalId: string): DescribeTransactionsResponse['transactionStates'][number] | null {
    const image = this.ctx.sim.engine.metadata;
    const log = image.topicsByName.get(TRANSACTION_STATE_TOPIC);
    if (!log) return null;
    const leader = log.partitions.get(offsetsPartitionFor(transactionalId, log.partitions.size))?.leader ?? -1;
    const broker = this.ctx.sim.internals.brokers.get(leader);
    if (!broker?.isAlive) return null;
    let answer: DescribeTransactionsResponse | null = null;
    // The coordinator answers DescribeTransactions from memory, at once.
    broker.handleTxnRequest({ type: 'txn', api: 'describeTransactions', transactionalIds: [transactionalId] }, (r) => (answer = r as DescribeTransactionsResponse));
    const held = (answer as DescribeTransactionsResponse | null)?.transactionStates[0];
    return held && held.errorCode === 'NONE' ? held : null;
  }

  /** The LSO the partition's leader (per the controller's metadata) answers, or null without a live leader. */
  private leaderLso(topic: string, partition: number): number | null {
    const leader = this.ctx.sim.engine.metadata.topicsByName.get(topic)?.partitions.get(partition)?.leader ?? -1;
    const broker = this.ctx.sim.internals.brokers.get(leader);
    if (!broker?.isAlive) return null;
    const replica = broker.partitionFor(topic, partition);
    return replica?.isLeader ? replica.log.lastStableOffset : null;
  }
}
