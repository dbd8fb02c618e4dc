/**
 * Synthetic records written straight into every replica of a partition (the engine's
 * `fillSynthetic`, which `records.fill` uses first: a twin being made fills 100,000 empty
 * partitions). Each batch goes where replication would put it, in the order it would, without a
 * request crossing the network: the leader appends it as a produce with acks=1 (validated, offsets
 * and epoch assigned, sized and counted as any producer's batch, producer id -1), each follower
 * appends the leader's very batches as a fetch answer hands them over (its epoch cache takes the
 * leader's epoch at their base), the leader takes each follower's new log end as the fetch that
 * reports it (its high watermark moves to the log end, `highWatermark.advanced` as usual), and each
 * follower takes that high watermark as the next fetch answer gives it. Each follower's fetcher
 * names the new position in its next fetch (`followerMoved`), so the leader's fetch session moves
 * on too instead of sending every filled batch again from the old one (replica-fetcher.ts drops an
 * answer to a position it left). The result is what produce and replication give: every replica
 * byte-identical, HW = LEO, the same log start and epoch caches, each byte sent to a follower once.
 * Every write of one call is in one transaction per broker file (the storage's `batch`), each
 * replica's checkpoint with it, so a restart finds the fill whole.
 *
 * Only where replication would write the same: a partition that exists, is not internal, has a
 * leader and no reassignment, whose ISR is every replica, whose every replica's broker runs
 * (registered, unfenced, not shutting down) and serves it at the partition's leader epoch, whose
 * followers fetch (not stalled) and reach the leader, whose leader has no ISR change in flight, and
 * whose every replica's log is empty at the same offset. Any other partition is left untouched,
 * with the reason, for the replicated path (records-fill.ts in the service).
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { Broker } from '../broker/broker.js';
import type { ReplicaPartition } from '../broker/partition.js';
import { replicaKey } from '../log/log-store.js';
import type { LogRecord, RecordBatch } from '../log/records.js';
import { isInternalTopic } from '../topic-names.js';
import type { ClusterContext } from './context.js';

/** One partition's synthetic records: `records` records without a key, values of `valueBytes` bytes, in batches of at most `batchRecords`. */
export interface SyntheticFill {
  topic: string;
  partition: number;
  records: number;
  valueBytes: number;
  batchRecords: number;
}

/**
 * Written directly (`errorCode` NONE, or why the leader refused the first batch it refused, or a
 * broker's storage failed; `records` committed, `nextOffset` the HW after them, -1 for none), or
 * left untouched with the reason; `later` when only the replicas' brokers have not applied the
 * controller's latest metadata for it yet (they do with their next heartbeats).
 */
export type SyntheticFillResult = { direct: true; errorCode: KafkaErrorName; message?: string; records: number; nextOffset: number } | { direct: false; reason: string; later?: true };

type Refusal = { reason: string; later?: true };
const later = (reason: string): Refusal => ({ reason, later: true });

interface Replica {
  broker: Broker;
  p: ReplicaPartition;
}

/** The replicas to write, leader first; or why replication must do it. */
function replicasOf(ctx: ClusterContext, fill: SyntheticFill): { leader: Replica; followers: Replica[] } | Refusal {
  const topic = ctx.controller.image.topicsByName.get(fill.topic);
  const state = topic?.partitions.get(fill.partition);
  const name = `${fill.topic}-${fill.partition}`;
  if (!topic || !state) return { reason: `${name} does not exist` };
  if (isInternalTopic(fill.topic)) return { reason: `${fill.topic} is an internal topic` };
  if (state.leader < 0) return { reason: `${name} has no leader` };
  if (state.addingReplicas.length > 0 || state.removingReplicas.length > 0) return { reason: `${name} is being reassigned` };
  if (state.isr.length !== state.replicas.length || state.replicas.some((r) => !state.isr.includes(r))) {
    return { reason: `the ISR of ${name} [${state.isr.join(',')}] is not all of its replicas [${state.replicas.join(',')}]` };
  }
  const key = replicaKey(topic.topicId, fill.partition);
  let leader: Replica | undefined;
  const followers: Replica[] = [];
  let empty = -1;
  for (const id of state.replicas) {
    const broker = ctx.brokers.get(id);
    if (!broker || ctx.brokerState(id) !== 'running') return { reason: `broker ${id} is not running` };
    const p = broker.partitionByKey(key);
    if (!p || p.leaderEpoch !== state.leaderEpoch) return later(`broker ${id} does not serve ${name} at leader epoch ${state.leaderEpoch} yet`);
    const log = p.log;
    if (log.logEndOffset !== log.logStartOffset) return { reason: `${name} is not empty on broker ${id}` };
    if (empty >= 0 && log.logEndOffset !== empty) return { reason: `the replicas of ${name} are empty at different offsets` };
    empty = log.logEndOffset;
    if (id === state.leader) {
      if (!p.isLeader || p.pendingIsr !== null || p.committedIsr.length !== state.replicas.length) return later(`broker ${id} is not yet the leader of ${name} with every replica in sync`);
      leader = { broker, p };
    } else {
      if (p.isLeader || p.leaderId !== state.leader) return later(`broker ${id} does not follow broker ${state.leader} for ${name} yet`);
      if (!broker.isFetchingAllowed() || !ctx.network.linkUp(id, state.leader)) return { reason: `broker ${id} cannot fetch ${name} from its leader` };
      followers.push({ broker, p });
    }
  }
  return leader ? { leader, followers } : { reason: `${name}'s leader ${state.leader} is not a replica` };
}

const current = (r: Replica): boolean => r.broker.isCurrent(r.p);

/** Write one partition's batches to every replica, then move the high watermarks as the next fetches would. */
function write(ctx: ClusterContext, fill: SyntheticFill, { leader, followers }: { leader: Replica; followers: Replica[] }, value: Uint8Array): SyntheticFillResult {
  const now = ctx.scheduler.now();
  const start = leader.p.log.logEndOffset;
  let failure: { errorCode: KafkaErrorName; message?: string } | null = null;
  const storageFailed = (r: Replica): void => {
    failure ??= { errorCode: 'KAFKA_STORAGE_ERROR', message: `Broker ${r.broker.brokerId}'s storage failed while ${fill.topic}-${fill.partition}'s synthetic records were written.` };
  };
  for (let left = fill.records; left > 0 && failure === null; ) {
    const n = Math.min(left, fill.batchRecords);
    left -= n;
    const records: LogRecord[] = Array.from({ length: n }, () => ({ key: null, value, headers: [], timestamp: now }));
    const base = leader.p.log.logEndOffset;
    const appended = leader.broker.guarded(() =>
      leader.p.appendAsLeader(records, 1, 0, (o) => {
        if (o.errorCode !== 'NONE') failure = { errorCode: o.errorCode, ...(o.errorMessage ? { message: o.errorMessage } : {}) };
      }),
    );
    if (!appended) storageFailed(leader);
    if (failure !== null) break;
    const batches: RecordBatch[] = leader.p.log.read(base, leader.p.log.logEndOffset, Number.MAX_SAFE_INTEGER);
    const bytes = batches.reduce((s, b) => s + b.sizeBytes, 0);
    for (const f of followers) {
      if (!current(f)) continue;
      if (!f.broker.guarded(() => f.p.applyFetched(batches, leader.p.log.highWatermark, leader.p.log.logStartOffset))) {
        storageFailed(f);
        continue;
      }
      f.broker.traffic.replicationBytesIn += bytes;
      leader.broker.traffic.replicationBytesOut += bytes;
    }
  }
  if (current(leader)) {
    // Each follower's log end reaches the leader as its next fetch would report it.
    for (const f of followers) {
      if (!current(f)) continue;
      const log = f.p.log;
      leader.broker.guarded(() => leader.p.checkFollowerFetch(f.broker.brokerId, f.broker.brokerEpoch, log.logEndOffset, log.latestEpoch(), f.p.leaderEpoch, log.logStartOffset));
    }
    if (!leader.broker.guarded(() => leader.p.log.saveCheckpoint())) storageFailed(leader);
  }
  const hw = current(leader) ? leader.p.log.highWatermark : start;
  for (const f of followers) {
    if (!current(f)) continue;
    // The fetch answer after: the leader's high watermark, then the follower's checkpoint with it.
    const wrote = f.broker.guarded(() => {
      f.p.lastLeaderHighWatermark = hw;
      f.p.applyFetched([], hw, leader.p.log.logStartOffset);
      f.p.log.saveCheckpoint();
    });
    if (!wrote) storageFailed(f);
    f.broker.followerMoved(f.p);
  }
  const f = failure as { errorCode: KafkaErrorName; message?: string } | null;
  if (f === null && current(leader) && hw < leader.p.log.logEndOffset) {
    return { direct: true, errorCode: 'NOT_ENOUGH_REPLICAS_AFTER_APPEND', message: `${fill.topic}-${fill.partition}'s synthetic records are on its leader but not on every replica.`, records: hw - start, nextOffset: hw > start ? hw : -1 };
  }
  return { direct: true, errorCode: f?.errorCode ?? 'NONE', ...(f?.message ? { message: f.message } : {}), records: hw - start, nextOffset: hw > start ? hw : -1 };
}

/** Write each partition directly where replication would write the same; leave the others, saying why. */
export function fillSynthetic(ctx: ClusterContext, fills: readonly SyntheticFill[]): SyntheticFillResult[] {
  const values = new Map<number, Uint8Array>();
  const valueOf = (bytes: number): Uint8Array => {
    let v = values.get(bytes);
    if (!v) values.set(bytes, (v = new Uint8Array(bytes).fill(0x78)));
    return v;
  };
  const run = (): SyntheticFillResult[] =>
    fills.map((fill) => {
      const replicas = replicasOf(ctx, fill);
      return 'reason' in replicas ? { direct: false, ...replicas } : write(ctx, fill, replicas, valueOf(fill.valueBytes));
    });
  const storage = ctx.opts.storage;
  return storage.batch ? storage.batch(run) : run();
}
