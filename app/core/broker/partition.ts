/**
 * One replica of a partition on one broker, as leader or follower.
 *
 * Leader invariants (docs/semantics.md#high-watermark-and-what-consumers-read, #isr-membership,
 * #produce-acks-and-mininsyncreplicas):
 * - HW = min LEO over the maximal ISR (plus caught-up, ISR-eligible followers not yet in it);
 *   it never moves backwards, and it does not move while the committed ISR is below the
 *   effective min ISR = min(min.insync.replicas, replica count) ("strict min ISR", 3.7+).
 * - A follower is caught up when its LEO equals the leader's or it reached the leader LEO of its
 *   previous fetch within replica.lag.time.max.ms. Out-of-sync ISR members are removed by the
 *   periodic shrink check; a follower joins when its LEO >= HW and >= the epoch start offset and
 *   it is ISR-eligible. One AlterPartition in flight at a time.
 * - acks=all: admission needs committed ISR >= effective min ISR (NOT_ENOUGH_REPLICAS); the
 *   request waits until HW passes the batch, then answers NONE, or
 *   NOT_ENOUGH_REPLICAS_AFTER_APPEND when the maximal ISR is too small, or REQUEST_TIMED_OUT.
 * Follower: appends what it fetches, HW = min(leader HW, own LEO), truncates on DivergingEpoch.
 *
 * One replica's leader and follower halves share its state (followers, ISR, HW waiters), which is
 * why they stay one class; what the leader knows of each follower is in follower-states.ts, the
 * shapes of the ISR it holds and who may join it in isr-state.ts, the answers it gives in
 * partition-answers.ts, DeleteRecords' checks in delete-records.ts, the transaction writes a
 * coordinator makes through it in partition-txn.ts.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { EngineEvent } from '../../api/events.js';
import { replicaKey } from '../log/log-store.js';
import type { PartitionLog } from '../log/partition-log.js';
import { DelayedProduces, type DelayedOutcome } from './delayed-produce.js';
import { FollowerStates, type FollowerState } from './follower-states.js';
import { isIsrEligible, shared, type PendingIsr } from './isr-state.js';
import { FETCH_OK, type FollowerFetchCheck, type LowWatermarkOutcome, type ProduceOutcome } from './partition-answers.js';
import { keylessRecordErrors, produceRulesOf, type BatchCompression, type ProducedBatchValidator } from '../log/produced-batch.js';
import { estimateBatchSize, recordCount, withRecordsOnFirstRead, type LogRecord, type RecordBatch } from '../log/records.js';
import type { VerificationGuard } from '../log/producer-state.js';
import type { MetadataImage } from '../metadata/image.js';
import type { LeaderRecoveryState, PartitionState } from '../metadata/records.js';
import type { BrokerTraffic } from '../metrics.js';
import type { BrokerRuntimeConfig, TopicRuntimeConfig } from '../runtime-config.js';
import type { Scheduler } from '../time.js';

export type { FollowerFetchCheck, LowWatermarkOutcome, ProduceOutcome } from './partition-answers.js';

export interface PartitionHost {
  readonly brokerId: number;
  readonly scheduler: Scheduler;
  readonly image: MetadataImage;
  /** Where a leader counts what it appends from produce requests. */
  readonly traffic: BrokerTraffic;
  topicConfig(topicId: string): TopicRuntimeConfig;
  brokerConfig(): BrokerRuntimeConfig;
  emit(event: EngineEvent): void;
  sendAlterPartition(partition: ReplicaPartition, proposedIsr: number[], recovery: LeaderRecoveryState): void;
  /** Validates Kafka clients' record batches (absent: this engine takes none). */
  readonly producedBatches: ProducedBatchValidator | undefined;
  /** New data on a leader: wake the fetches parked on it. */
  onPartitionChanged(partition: ReplicaPartition): void;
  /** A leader is about to append: followers idle at its log end are credited with their last fetch (fetch-sessions.ts). */
  beforeLeaderAppend(partition: ReplicaPartition): void;
  /** Something a follower fetch must re-check changed on a leader (an AlterPartition answer, the log start). */
  onLeaderStateChanged(partition: ReplicaPartition): void;
  /** The leader's HW moved: clients may read more. */
  onHighWatermarkAdvanced(partition: ReplicaPartition): void;
}

/** The Produce version records from inside the engine are validated as (the newest served: every codec allowed). */
const PRODUCE_VERSION_FOR_RECORDS = 8;

export class ReplicaPartition {
  role: 'leader' | 'follower' = 'follower';
  /** Latest partition state this broker applied from metadata. */
  state: PartitionState;
  leaderEpoch = -1;
  partitionEpoch = -1;
  committedIsr: readonly number[] = [];
  leaderEpochStartOffset = 0;
  pendingIsr: PendingIsr | null = null;
  /** What this leader knows of each follower (follower-states.ts). */
  /**
   * Only a leader hears from followers: made when first needed and dropped on resigning, so the
   * two thirds of replicas that follow (RF 3) hold none.
   */
  private followerStates: FollowerStates | null = null;
  private get followers(): FollowerStates {
    return (this.followerStates ??= new FollowerStates());
  }
  /**
   * acks=all answers waiting for the HW, and DeleteRecords waiting for the low watermark (the same
   * waiter, on another watermark): made by the first wait (null until then), as most replicas of a
   * large cluster never park a request, and an empty waiter per replica adds up to real heap.
   */
  private delayedProduces: DelayedProduces<ProduceOutcome> | null = null;
  private delayedDeletes: DelayedProduces<LowWatermarkOutcome> | null = null;
  /** Follower fetch state: when the fetcher may include this partition again. */
  fetchDelayedUntil = 0;
  /** Follower: the leader's HW in its last fetch answer (out of sync while our LEO is below it). */
  lastLeaderHighWatermark = 0;

  constructor(
    private readonly host: PartitionHost,
    readonly topic: string,
    readonly log: PartitionLog,
    initial: PartitionState,
    /**
     * `replicaKey(topicId, partition)`: the very string the broker's replica map holds it under,
     * so the sets keyed by it (fetch sessions' dirty sets) hash it once, not a new copy per change.
     */
    readonly key = replicaKey(initial.topicId, initial.partition),
  ) {
    this.state = initial;
  }

  get topicId(): string {
    return this.state.topicId;
  }
  get partition(): number {
    return this.state.partition;
  }
  get leaderId(): number {
    return this.state.leader;
  }
  get isLeader(): boolean {
    return this.role === 'leader';
  }
  get maximalIsr(): readonly number[] {
    return this.pendingIsr?.maximal ?? this.committedIsr;
  }

  now(): number {
    return this.host.scheduler.now();
  }
  private config(): TopicRuntimeConfig {
    return this.host.topicConfig(this.topicId);
  }
  effectiveMinIsr(): number {
    return Math.min(this.config().minInsyncReplicas, this.state.replicas.length);
  }

  // ---------------------------------------------------------------- metadata

  /** Apply a partition state in which this broker is the leader. */
  becomeLeader(next: PartitionState): void {
    const wasLeader = this.role === 'leader';
    const newEpoch = !wasLeader || next.leaderEpoch > this.leaderEpoch;
    const now = this.now();
    if (newEpoch) {
      this.log.assignEpochStart(next.leaderEpoch, this.log.logEndOffset);
      this.leaderEpochStartOffset = this.log.logEndOffset;
      this.pendingIsr = null;
      this.followers.startEpoch(next, this.host.brokerId, wasLeader, this.log.logEndOffset, now);
      this.committedIsr = shared(next, next.isr);
      this.partitionEpoch = next.partitionEpoch;
    } else if (next.partitionEpoch > this.partitionEpoch) {
      this.committedIsr = shared(next, next.isr);
      this.partitionEpoch = next.partitionEpoch;
      this.pendingIsr = null;
    }
    this.followers.matchReplicas(next, this.host.brokerId);
    this.state = next;
    this.leaderEpoch = next.leaderEpoch;
    this.role = 'leader';
    this.maybeIncrementHighWatermark();
  }

  /** Apply a partition state in which another broker leads (or nobody: leader -1). */
  becomeFollower(next: PartitionState): void {
    if (this.role === 'leader') this.resignLeadership();
    this.role = 'follower';
    this.state = next;
    this.leaderEpoch = next.leaderEpoch;
    this.partitionEpoch = next.partitionEpoch;
    this.committedIsr = shared(next, next.isr);
    this.fetchDelayedUntil = 0;
  }

  /** Leadership ends (new metadata, replica removed, broker stopping): fail parked produces. */
  resignLeadership(): void {
    this.failWaiters('NOT_LEADER_OR_FOLLOWER');
    this.pendingIsr = null;
    this.followerStates = null;
    this.role = 'follower';
  }

  failWaiters(error: KafkaErrorName): void {
    this.delayedProduces?.failAll(error);
    this.delayedDeletes?.failAll(error);
  }

  // ---------------------------------------------------------------- leader: produce

  /** acks=-1 is refused before the append while the committed ISR is below the effective min ISR. */
  minIsrRefusal(acks: number): ProduceOutcome | null {
    if (acks !== -1 || this.committedIsr.length >= this.effectiveMinIsr()) return null;
    return {
      errorCode: 'NOT_ENOUGH_REPLICAS',
      baseOffset: -1,
      errorMessage: `The size of the current ISR [${this.committedIsr.join(',')}] is insufficient to satisfy the min.isr requirement of ${this.effectiveMinIsr()} for partition ${this.topic}-${this.partition}`,
    };
  }

  /**
   * Records from inside the engine (the contract's `records.produce`, drills, the group
   * coordinator). With a validator they go the way a Kafka client's batch goes — encoded as a
   * producer would send them, then the same LogValidator rules (LogAppendTime, recompression,
   * the timestamp bounds) — so the two paths can never disagree. Without one (simulations that
   * take no client bytes) they are stamped and sized here.
   */
  appendAsLeader(records: LogRecord[], acks: -1 | 0 | 1, timeoutMs: number, respond: (o: ProduceOutcome) => void, compression?: BatchCompression): void {
    const raw = this.host.producedBatches?.producerBatch(records, compression);
    if (typeof raw === 'string') return respond({ errorCode: 'UNSUPPORTED_COMPRESSION_TYPE', baseOffset: -1, errorMessage: raw });
    if (raw) return this.appendClientBatchAsLeader(raw, PRODUCE_VERSION_FOR_RECORDS, acks, timeoutMs, respond);
    if (this.role !== 'leader') return respond({ errorCode: 'NOT_LEADER_OR_FOLLOWER', baseOffset: -1 });
    const cfg = this.config();
    const refusal = this.minIsrRefusal(acks);
    if (refusal) return respond(refusal);
    const keyless = cfg.cleanupPolicyCompact ? keylessRecordErrors(records, `${this.topic}-${this.partition}`) : null;
    if (keyless) return respond({ errorCode: 'INVALID_RECORD', baseOffset: -1, ...keyless });
    const now = this.now();
    const stamped = cfg.messageTimestampType === 'LogAppendTime' ? records.map((r) => ({ ...r, timestamp: now })) : records;
    const size = estimateBatchSize(stamped);
    if (size > cfg.maxMessageBytes) {
      return respond({ errorCode: 'MESSAGE_TOO_LARGE', baseOffset: -1, errorMessage: `The batch is ${size} bytes, larger than max.message.bytes ${cfg.maxMessageBytes}` });
    }
    const sizeBefore = this.log.sizeBytes();
    this.host.beforeLeaderAppend(this);
    const batch = this.log.appendAsLeader(stamped, this.leaderEpoch, now, cfg, size);
    this.afterLeaderAppend(batch, sizeBefore, acks, timeoutMs, respond);
  }

  /**
   * A Kafka client's batch, as its bytes: validated by the engine's LogValidator port (offsets
   * and epoch assigned, the client's bytes kept unless the topic recompresses), judged against
   * the idempotent producer's state, appended, then answered per acks like any other write. A
   * retried batch an idempotent producer already wrote is answered with its original offsets
   * (and, with acks=-1, once those are committed) and is not written again.
   */
  appendClientBatchAsLeader(raw: Uint8Array | null, produceVersion: number, acks: -1 | 0 | 1, timeoutMs: number, respond: (o: ProduceOutcome) => void, guard?: VerificationGuard): void {
    if (this.role !== 'leader') return respond({ errorCode: 'NOT_LEADER_OR_FOLLOWER', baseOffset: -1 });
    const validator = this.host.producedBatches;
    if (!validator) return respond({ errorCode: 'INVALID_REQUEST', baseOffset: -1, errorMessage: 'This engine was created without a record batch validator: it takes no client batches.' });
    const refusal = this.minIsrRefusal(acks);
    if (refusal) return respond(refusal);
    const cfg = this.config();
    const now = this.now();
    const base = this.log.logEndOffset;
    const v = validator.validate({ records: raw, produceVersion, baseOffset: base, leaderEpoch: this.leaderEpoch, nowMs: now, topicPartition: `${this.topic}-${this.partition}` }, produceRulesOf(cfg));
    if (!v.ok) return respond({ errorCode: v.error, baseOffset: -1, errorMessage: v.message, ...(v.recordErrors.length > 0 ? { recordErrors: v.recordErrors } : {}) });
    if (v.transactional && !v.producer) return respond({ errorCode: 'INVALID_RECORD', baseOffset: -1, errorMessage: 'A transactional record batch needs a producer id' });
    const count = v.count;
    if (v.producer) {
      const verdict = this.log.producerState().check({ ...v.producer, count, transactional: v.transactional }, base, guard);
      if (verdict.kind === 'error') return respond({ errorCode: verdict.error, baseOffset: -1, errorMessage: verdict.message });
      if (verdict.kind === 'duplicate') return this.answerDuplicate(verdict.firstOffset, verdict.lastOffset, acks, timeoutMs, respond);
    }
    // Stored, replicated and fetched as its bytes: its records are decoded only if something reads them.
    const fields: Omit<RecordBatch, 'records'> = { baseOffset: base, lastOffset: base + count - 1, leaderEpoch: this.leaderEpoch, appendTimeMs: now, sizeBytes: v.bytes.length, encoded: v.bytes };
    if (v.producer) fields.producer = v.producer;
    if (v.transactional) fields.transactional = true;
    const batch = withRecordsOnFirstRead(fields, () => v.records);
    this.appendBuilt(batch, acks, timeoutMs, respond);
  }

  /** Append a batch built here (acks=-1 for a coordinator's write): answered as any leader append. */
  appendBuilt(batch: RecordBatch, acks: -1 | 0 | 1, timeoutMs: number, respond: (o: ProduceOutcome) => void): void {
    const sizeBefore = this.log.sizeBytes();
    this.host.beforeLeaderAppend(this);
    this.log.appendPreparedAsLeader(batch, batch.appendTimeMs, this.config());
    this.afterLeaderAppend(batch, sizeBefore, acks, timeoutMs, respond);
  }

  /** A retried batch already in the log at [first, last]: its offsets, once committed for acks=-1. */
  private answerDuplicate(first: number, last: number, acks: number, timeoutMs: number, respond: (o: ProduceOutcome) => void): void {
    if (acks !== -1 || this.log.highWatermark > last) return respond({ errorCode: 'NONE', baseOffset: first });
    this.waitForHighWatermark(last + 1, first, timeoutMs, respond);
  }

  private afterLeaderAppend(batch: RecordBatch, sizeBefore: number, acks: number, timeoutMs: number, respond: (o: ProduceOutcome) => void): void {
    const now = this.now();
    const cfg = this.config();
    // Every answer after the append names the epoch and time the batch was written with, so a
    // client can tell its records from a later leader's at the same offsets.
    const answer = (o: ProduceOutcome): void => {
      // Every outcome here is a fresh object (never shared): stamped in place, not copied.
      o.leaderEpoch = batch.leaderEpoch;
      o.appendTimeMs = batch.appendTimeMs;
      respond(o);
    };
    // Counted as the log stores it, acknowledged or not (Kafka's MessagesInPerSec / BytesInPerSec).
    this.host.traffic.produceRecords += recordCount(batch);
    this.host.traffic.produceBytes += this.log.sizeBytes() - sizeBefore;
    this.log.maybeFlush(now, cfg.flushMessages, cfg.flushMs);
    this.maybeIncrementHighWatermark();
    this.host.onPartitionChanged(this);
    if (acks !== -1) return answer({ errorCode: 'NONE', baseOffset: batch.baseOffset });
    const required = batch.lastOffset + 1;
    if (this.log.highWatermark >= required) return answer(this.acksAllOutcome(batch.baseOffset));
    this.waitForHighWatermark(required, batch.baseOffset, timeoutMs, answer);
  }

  /** Park an acks=-1 answer until the HW reaches `required` (or the request times out). */
  private waitForHighWatermark(required: number, baseOffset: number, timeoutMs: number, answer: (o: ProduceOutcome) => void): void {
    this.delayedProduces ??= new DelayedProduces(this.host.scheduler, (base) => this.acksAllOutcome(base));
    this.delayedProduces.wait(required, baseOffset, timeoutMs, answer);
  }

  private acksAllOutcome(baseOffset: number): ProduceOutcome {
    if (this.maximalIsr.length >= this.effectiveMinIsr()) return { errorCode: 'NONE', baseOffset };
    return { errorCode: 'NOT_ENOUGH_REPLICAS_AFTER_APPEND', baseOffset };
  }

  // ---------------------------------------------------------------- leader: HW and ISR

  private isCaughtUp(f: FollowerState, now: number): boolean {
    return f.logEndOffset === this.log.logEndOffset || now - f.lastCaughtUpMs <= this.host.brokerConfig().replicaLagTimeMaxMs;
  }

  maybeIncrementHighWatermark(): void {
    if (this.role !== 'leader') return;
    if (this.committedIsr.length < this.effectiveMinIsr()) return;
    const now = this.now();
    const maximal = this.maximalIsr;
    let candidate = this.log.logEndOffset;
    // forEach, not for-of: a for-of over the map allocated its entries on every call (a fence
    // runs this for tens of thousands of partitions).
    this.followerStates?.forEach((f, id) => {
      if (f.logEndOffset >= candidate) return;
      if (maximal.includes(id) || (this.isCaughtUp(f, now) && isIsrEligible(this.host.image, id, f.brokerEpoch))) candidate = f.logEndOffset;
    });
    const previous = this.log.highWatermark;
    if (!this.log.maybeIncreaseHighWatermark(candidate)) return;
    this.host.emit({
      type: 'highWatermark.advanced',
      atMs: now,
      topic: this.topic,
      partition: this.partition,
      brokerId: this.host.brokerId,
      highWatermark: this.log.highWatermark,
      previous,
    });
    this.delayedProduces?.complete(this.log.highWatermark);
    this.host.onHighWatermarkAdvanced(this);
  }

  /** Periodic check (every replica.lag.time.max.ms / 2): drop out-of-sync followers in one AlterPartition. */
  maybeShrinkIsr(): void {
    if (this.role !== 'leader' || this.pendingIsr) return;
    const now = this.now();
    // Every leader runs this every replica.lag.time.max.ms / 2: a caught-up ISR allocates nothing.
    let any = false;
    for (let i = 0; i < this.committedIsr.length && !any; i++) any = this.isOutOfSync(this.committedIsr[i]!, now);
    if (!any) return;
    const proposed = this.committedIsr.filter((r) => !this.isOutOfSync(r, now));
    this.pendingIsr = { proposed, maximal: [...this.committedIsr] };
    this.host.sendAlterPartition(this, proposed, 'RECOVERED');
  }

  private isOutOfSync(r: number, now: number): boolean {
    if (r === this.host.brokerId) return false;
    const f = this.followerStates?.get(r);
    return !f || !this.isCaughtUp(f, now);
  }

  private maybeExpandIsr(followerId: number): void {
    if (this.pendingIsr || this.maximalIsr.includes(followerId)) return;
    const f = this.followerStates?.get(followerId);
    if (!f) return;
    if (f.logEndOffset < this.log.highWatermark || f.logEndOffset < this.leaderEpochStartOffset) return;
    if (!isIsrEligible(this.host.image, followerId, f.brokerEpoch)) return;
    const proposed = [...this.committedIsr, followerId];
    this.pendingIsr = { proposed, maximal: proposed };
    this.host.sendAlterPartition(this, proposed, 'RECOVERED');
  }

  /** The controller answered an AlterPartition this leader sent for `proposed`. */
  onAlterPartitionResult(proposed: number[], result: { error: KafkaErrorName; state?: PartitionState }): void {
    if (this.role !== 'leader' || !this.pendingIsr || this.pendingIsr.proposed !== proposed) return;
    // Whatever the answer, what the followers' fetches check (ISR, a pending change) may differ now.
    this.host.onLeaderStateChanged(this);
    if (result.error === 'NONE' && result.state) {
      const s = result.state;
      if (s.leaderEpoch !== this.leaderEpoch) {
        this.pendingIsr = null;
        return;
      }
      if (s.partitionEpoch > this.partitionEpoch) {
        this.committedIsr = shared(s, s.isr);
        this.partitionEpoch = s.partitionEpoch;
        this.state = s;
      }
      this.pendingIsr = null;
      this.maybeIncrementHighWatermark();
      return;
    }
    // Retriable failures keep the pending state and are re-sent by the broker; anything else
    // clears it and waits for the next metadata update (Kafka's handleAlterPartitionError).
    if (result.error === 'NOT_CONTROLLER' || result.error === 'REQUEST_TIMED_OUT') return;
    this.pendingIsr = null;
  }

  // ---------------------------------------------------------------- leader: follower fetch

  /** Validate a follower fetch and update that follower's state (no records read here). */
  checkFollowerFetch(followerId: number, fetchBrokerEpoch: number, fetchOffset: number, lastFetchedEpoch: number, currentLeaderEpoch: number, followerLogStart = -1): FollowerFetchCheck {
    if (this.role !== 'leader') return { ok: false, error: 'NOT_LEADER_OR_FOLLOWER' };
    if (currentLeaderEpoch < this.leaderEpoch) return { ok: false, error: 'FENCED_LEADER_EPOCH' };
    if (currentLeaderEpoch > this.leaderEpoch) return { ok: false, error: 'UNKNOWN_LEADER_EPOCH' };
    if (!this.state.replicas.includes(followerId)) return { ok: false, error: 'NOT_LEADER_OR_FOLLOWER' };
    const reg = this.host.image.brokers.get(followerId);
    if (fetchBrokerEpoch !== -1 && reg && fetchBrokerEpoch < reg.brokerEpoch) return { ok: false, error: 'NOT_LEADER_OR_FOLLOWER' };
    if (lastFetchedEpoch >= 0) {
      const { epoch, endOffset } = this.log.epochCache.endOffsetFor(lastFetchedEpoch, this.log.logEndOffset);
      if (epoch === -1 && endOffset === -1) return { ok: false, error: 'OFFSET_OUT_OF_RANGE' };
      if (epoch < lastFetchedEpoch || endOffset < fetchOffset) return { ok: false, error: 'NONE', divergingEpoch: { epoch, endOffset } };
    }
    if (fetchOffset < this.log.logStartOffset || fetchOffset > this.log.logEndOffset) return { ok: false, error: 'OFFSET_OUT_OF_RANGE' };
    this.followers.recordFetch(followerId, fetchOffset, this.log.logEndOffset, fetchBrokerEpoch, followerLogStart, this.now());
    this.maybeExpandIsr(followerId);
    this.maybeIncrementHighWatermark();
    this.delayedDeletes?.complete(this.lowWatermark());
    return FETCH_OK;
  }

  /**
   * Kafka's Partition.lowWatermarkIfLeader: the lowest log start offset over this leader and every
   * follower on a live (unfenced) broker, as each last said in its fetch. DeleteRecords waits for it.
   */
  lowWatermark(): number {
    return this.followers.lowWatermark(this.log.logStartOffset, this.host.image);
  }

  /** Park a DeleteRecords answer until the low watermark reaches `required` (REQUEST_TIMED_OUT after `timeoutMs`). */
  waitForLowWatermark(required: number, timeoutMs: number, respond: (o: LowWatermarkOutcome | DelayedOutcome) => void): void {
    this.delayedDeletes ??= new DelayedProduces<LowWatermarkOutcome>(this.host.scheduler, () => ({ errorCode: 'NONE', baseOffset: -1, lowWatermark: this.lowWatermark() }));
    this.delayedDeletes.wait(required, -1, timeoutMs, respond);
  }

  /**
   * A follower whose fetch session sits at this leader's log end fetched at `atMs` without naming
   * this partition: record it as the fetch Kafka would have walked (it was caught up then).
   */
  creditIdleFetch(followerId: number, brokerEpoch: number, atMs: number): void {
    if (this.role === 'leader') this.followers.creditIdleFetch(followerId, brokerEpoch, atMs, this.log.logEndOffset);
  }

  /** The broker epoch a follower sent in its last fetch, if known. */
  followerBrokerEpoch(brokerId: number): number | undefined {
    return this.followerStates?.brokerEpochOf(brokerId);
  }

  /** A follower's LEO as this leader last saw it (-1 unknown). */
  followerLogEndOffset(brokerId: number): number {
    if (brokerId === this.host.brokerId) return this.log.logEndOffset;
    return this.followerStates?.get(brokerId)?.logEndOffset ?? -1;
  }

  // ---------------------------------------------------------------- follower side

  /** Apply a fetched chunk from the leader. Returns the records appended. */
  applyFetched(batches: readonly RecordBatch[], leaderHw: number, leaderLogStart: number): number {
    const before = this.log.logEndOffset;
    const cfg = this.config();
    this.log.appendAsFollower(batches, this.now(), cfg);
    this.log.setFollowerHighWatermark(leaderHw);
    // After the HW, as Kafka's processPartitionData does: the leader's log start never passes its
    // HW, so once ours is updated it covers the new start (before it, a lagging HW would clamp the
    // move, and the leader does not send an unchanged log start again).
    if (leaderLogStart > this.log.logStartOffset && leaderLogStart <= this.log.logEndOffset) {
      this.log.advanceLogStartOffset(Math.min(leaderLogStart, this.log.highWatermark));
    }
    this.log.maybeFlush(this.now(), cfg.flushMessages, cfg.flushMs);
    return this.log.logEndOffset - before;
  }

  /** Truncate after the leader reported a diverging epoch (KIP-101/279). Returns true when done. */
  truncateOnDivergence(diverging: { epoch: number; endOffset: number }): void {
    const own = this.log.epochCache.endOffsetFor(diverging.epoch, this.log.logEndOffset);
    const leo = this.log.logEndOffset;
    let target: number;
    if (own.epoch === diverging.epoch) target = Math.min(diverging.endOffset, own.endOffset, leo);
    else if (own.epoch >= 0 && own.epoch < diverging.epoch) target = Math.min(own.endOffset, leo);
    else target = Math.min(diverging.endOffset, leo);
    this.truncateTo(target, 'diverging-epoch');
  }

  truncateTo(target: number, reason: 'diverging-epoch' | 'offset-out-of-range' | 'power-loss'): void {
    const from = this.log.logEndOffset;
    if (this.log.truncateTo(target) > 0) {
      this.host.emit({
        type: 'replica.truncated',
        atMs: this.now(),
        topic: this.topic,
        partition: this.partition,
        brokerId: this.host.brokerId,
        fromOffset: from,
        toOffset: this.log.logEndOffset,
        leaderEpoch: this.leaderEpoch,
        reason,
      });
    }
  }
}
