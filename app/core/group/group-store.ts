/**
 * The coordinator's groups and their records in `__consumer_offsets` (Kafka's
 * GroupMetadataManager): which offsets partitions this broker owns, loading a partition's groups
 * from its log when it becomes the leader, writing group metadata and offsets to it, and writing
 * tombstones when offsets expire or a group is deleted.
 *
 * Invariants:
 * - A partition is owned only between a completed load in one leader epoch and the loss of that
 *   leadership; while it loads, its groups answer COORDINATOR_LOAD_IN_PROGRESS, and a load
 *   started for an epoch that has since ended is dropped.
 * - The in-memory state changes only after the log accepted the change: a group's assignment
 *   and a committed offset become visible once replicated (acks=all), tombstones are written
 *   without waiting (acks=0: a lost tombstone is written again by the next expiration pass).
 * - Loading replays the log in order, compacted or not: later records replace earlier ones per
 *   key and a tombstone (null value) removes; the cleaner has left at most one record per key
 *   below its checkpoint, so a compacted log loads the same groups from fewer records.
 * - Transactional offsets (TxnOffsetCommit) wait per producer until its marker: txn-offsets.ts.
 * - Nothing here outlives the broker process: `shutdown` drops every group and every answer of
 *   the old incarnation is ignored.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { LogRecord } from '../log/records.js';
import type { TimerHandle } from '../time.js';
import { ClassicGroup, type CommittedOffset, GroupMember, splitTpKey, tpKey } from './group.js';
import { OFFSETS_TOPIC, type CoordinatorHost, type OffsetsPartition } from './host.js';
import { offsetsPartitionFor } from './partition-for.js';
import { OpenGroupsForProducer, pendOffset, type PendingLoad, replayMarker } from './txn-offsets.js';
import type { OffsetAndMetadata, StoredGroup } from './record-codec.js';

/** Kafka's offsets.load.buffer.size: how much of the log one read step loads. */
const LOAD_BUFFER_BYTES = 5 * 1024 * 1024;

/** Store errors as the coordinator answers them (GroupMetadataManager.storeGroup). */
function groupStoreError(error: KafkaErrorName): KafkaErrorName {
  switch (error) {
    case 'NONE':
      return 'NONE';
    case 'UNKNOWN_TOPIC_OR_PARTITION':
    case 'NOT_ENOUGH_REPLICAS':
    case 'NOT_ENOUGH_REPLICAS_AFTER_APPEND':
      return 'COORDINATOR_NOT_AVAILABLE';
    case 'NOT_LEADER_OR_FOLLOWER':
    case 'KAFKA_STORAGE_ERROR':
      return 'NOT_COORDINATOR';
    case 'REQUEST_TIMED_OUT':
      return 'REBALANCE_IN_PROGRESS';
    case 'MESSAGE_TOO_LARGE':
    case 'RECORD_LIST_TOO_LARGE':
      return 'UNKNOWN_SERVER_ERROR';
    default:
      return error;
  }
}

/** Offset commit errors as the coordinator answers them (maybeConvertOffsetCommitError). */
export function offsetCommitError(error: KafkaErrorName): KafkaErrorName {
  switch (error) {
    case 'UNKNOWN_TOPIC_OR_PARTITION':
    case 'NOT_ENOUGH_REPLICAS':
    case 'NOT_ENOUGH_REPLICAS_AFTER_APPEND':
      return 'COORDINATOR_NOT_AVAILABLE';
    case 'NOT_LEADER_OR_FOLLOWER':
    case 'KAFKA_STORAGE_ERROR':
      return 'NOT_COORDINATOR';
    case 'MESSAGE_TOO_LARGE':
    case 'RECORD_LIST_TOO_LARGE':
      return 'INVALID_COMMIT_OFFSET_SIZE';
    default:
      return error;
  }
}

export interface GroupLifecycle {
  /** A group came out of a load (schedule its members' heartbeats). */
  onGroupLoaded(group: ClassicGroup): void;
  /** A group's partition moved away (answer its parked requests NOT_COORDINATOR). */
  onGroupUnloaded(group: ClassicGroup): void;
}

export class GroupStore {
  readonly groups = new Map<string, ClassicGroup>();
  readonly openGroupsForProducer = new OpenGroupsForProducer();
  private readonly owned = new Map<number, number>();
  private readonly loading = new Map<number, number>();
  /** Bumped when the broker process ends: answers and timers of the old one do nothing. */
  incarnation = 0;
  /** Kafka's GroupCoordinator.isActive: from the process's start until it ends. */
  active = false;
  private expirationTimer: TimerHandle | null = null;

  constructor(
    private readonly host: CoordinatorHost,
    private readonly lifecycle: GroupLifecycle,
  ) {}

  private now(): number {
    return this.host.scheduler.now();
  }

  /** The offsets topic's partition count: the topic's own once it exists, else the config. */
  partitionCount(): number {
    const topic = this.host.image.topicsByName.get(OFFSETS_TOPIC);
    return topic ? topic.partitions.size : this.host.brokerConfig().groups.offsetsTopicNumPartitions;
  }

  partitionFor(groupId: string): number {
    return offsetsPartitionFor(groupId, this.partitionCount());
  }

  isGroupLocal(groupId: string): boolean {
    return this.owned.has(this.partitionFor(groupId));
  }

  isGroupLoading(groupId: string): boolean {
    return this.loading.has(this.partitionFor(groupId));
  }

  get isLoading(): boolean {
    return this.loading.size > 0;
  }

  /**
   * Kafka's validateGroupStatus: a usable group id, a running coordinator, a loaded partition
   * that this broker owns. `emptyIdAllowed` for the APIs Kafka lets use "" (OffsetCommit,
   * OffsetFetch, DescribeGroups, DeleteGroups). Null when the request may proceed.
   */
  validateGroupStatus(groupId: string, emptyIdAllowed: boolean): KafkaErrorName | null {
    if (groupId.length === 0 && !emptyIdAllowed) return 'INVALID_GROUP_ID';
    if (!this.active) return 'COORDINATOR_NOT_AVAILABLE';
    if (this.isGroupLoading(groupId)) return 'COORDINATOR_LOAD_IN_PROGRESS';
    if (!this.isGroupLocal(groupId)) return 'NOT_COORDINATOR';
    return null;
  }

  /** Kafka's groupNotExists: this broker owns the group's partition and holds no live group there. */
  groupNotExists(groupId: string): boolean {
    if (!this.isGroupLocal(groupId)) return false;
    const g = this.groups.get(groupId);
    return !g || g.is('Dead');
  }

  getOrCreate(groupId: string, create: boolean): ClassicGroup | undefined {
    const existing = this.groups.get(groupId);
    if (existing || !create) return existing;
    return this.add(new ClassicGroup(groupId, 'Empty', this.now()));
  }

  /** Adds the group unless one is cached under its id; returns the cached one. */
  add(group: ClassicGroup): ClassicGroup {
    const existing = this.groups.get(group.groupId);
    if (existing) return existing;
    group.onTransition = (g, previous, reason) =>
      this.host.emit({
        type: 'group.stateChanged',
        atMs: this.now(),
        groupId: g.groupId,
        coordinatorId: this.host.brokerId,
        state: g.state,
        previous,
        generationId: g.generationId,
        members: g.size,
        reason,
      });
    this.groups.set(group.groupId, group);
    return group;
  }

  /** The leader replica of the group's partition, if this broker still leads it. */
  private leaderPartition(groupId: string): OffsetsPartition | undefined {
    const p = this.host.offsetsPartition(this.partitionFor(groupId));
    return p?.isLeader ? p : undefined;
  }

  // ================================================================ leadership: load and unload

  /** Match owned partitions to this broker's leaderships of `__consumer_offsets` (after metadata changes). */
  reconcileLeadership(): void {
    const topic = this.host.image.topicsByName.get(OFFSETS_TOPIC);
    const count = topic ? topic.partitions.size : 0;
    for (const p of new Set([...this.owned.keys(), ...this.loading.keys()])) {
      const replica = p < count ? this.host.offsetsPartition(p) : undefined;
      const epoch = this.owned.get(p) ?? this.loading.get(p);
      if (!replica?.isLeader || replica.leaderEpoch !== epoch) this.unload(p);
    }
    for (let p = 0; p < count; p++) {
      const replica = this.host.offsetsPartition(p);
      if (replica?.isLeader && !this.owned.has(p) && !this.loading.has(p)) this.scheduleLoad(p, replica.leaderEpoch);
    }
  }

  private scheduleLoad(partition: number, epoch: number): void {
    this.loading.set(partition, epoch);
    const incarnation = this.incarnation;
    // Kafka loads on its scheduler thread; requests meanwhile get COORDINATOR_LOAD_IN_PROGRESS.
    this.host.after(0, () => {
      if (incarnation !== this.incarnation || this.loading.get(partition) !== epoch) return;
      const replica = this.host.offsetsPartition(partition);
      if (!replica?.isLeader || replica.leaderEpoch !== epoch) {
        this.loading.delete(partition);
        return;
      }
      const loaded = this.load(replica);
      if (loaded === null) return; // the replica went offline while reading: it stays unowned
      this.loading.delete(partition);
      this.owned.set(partition, epoch);
      for (const g of loaded) this.lifecycle.onGroupLoaded(g);
      // Only a load that found groups is news (a new offsets topic makes 50 empty ones at once).
      if (loaded.length > 0) this.host.emit({ type: 'coordinator.loaded', atMs: this.now(), brokerId: this.host.brokerId, offsetsPartition: partition, leaderEpoch: epoch, groups: loaded.map((g) => g.groupId) });
    });
  }

  /** Replay the partition's log into groups; null when it cannot be read. */
  private load(replica: OffsetsPartition): ClassicGroup[] | null {
    const codec = this.host.groupRecords;
    const offsets = new Map<string, Map<string, CommittedOffset>>();
    const pending: PendingLoad = new Map();
    const stored = new Map<string, StoredGroup | null>();
    let next = replica.logStartOffset;
    while (next < replica.logEndOffset) {
      const batches = replica.read(next, LOAD_BUFFER_BYTES);
      if (batches === null) return null;
      if (batches.length === 0) break;
      for (const batch of batches) {
        if (batch.control) {
          replayMarker(batch, pending, offsets);
          next = batch.lastOffset + 1;
          continue;
        }
        const txnProducer = batch.transactional ? batch.producer?.producerId : undefined;
        for (const record of batch.records) {
          if (!record.key) continue;
          try {
            const key = codec.readKey(record.key);
            if (key.kind === 'offset' && txnProducer !== undefined) {
              const c = record.value === null ? null : { offset: codec.readOffsetCommitValue(record.value), appendedAt: batch.baseOffset };
              pendOffset(pending, txnProducer, key.group, tpKey(key.topic, key.partition), c);
            } else if (key.kind === 'offset') {
              const byTp = offsets.get(key.group) ?? new Map<string, CommittedOffset>();
              offsets.set(key.group, byTp);
              if (record.value === null) byTp.delete(tpKey(key.topic, key.partition));
              else byTp.set(tpKey(key.topic, key.partition), { offset: codec.readOffsetCommitValue(record.value), appendedAt: batch.baseOffset });
            } else if (key.kind === 'group') {
              stored.set(key.group, record.value === null ? null : codec.readGroupMetadataValue(record.value));
            }
          } catch {
            // Not a record this coordinator (or Kafka) could have written: skip it rather than
            // leave the partition loading forever (Kafka skips unknown key versions the same way).
          }
        }
        next = batch.lastOffset + 1;
      }
    }
    // Offsets of transactions still open wait in their groups for the marker (GroupMetadata.initializeOffsets).
    const pendingByGroup = new Map<string, Map<number, Map<string, CommittedOffset>>>();
    for (const [producerId, byGroup] of pending) {
      for (const [groupId, byTp] of byGroup) {
        const live = new Map([...byTp].filter((e): e is [string, CommittedOffset] => e[1] !== null));
        const forGroup = pendingByGroup.get(groupId) ?? new Map<number, Map<string, CommittedOffset>>();
        pendingByGroup.set(groupId, forGroup);
        forGroup.set(producerId, live);
      }
    }
    const loaded: ClassicGroup[] = [];
    const ids = new Set([...offsets.keys(), ...pendingByGroup.keys(), ...[...stored].filter(([, v]) => v !== null).map(([k]) => k)]);
    for (const groupId of ids) {
      const meta = stored.get(groupId);
      const group = meta ? this.fromStored(groupId, meta) : new ClassicGroup(groupId, 'Empty', this.now());
      for (const [k, c] of offsets.get(groupId) ?? []) group.offsets.set(k, c);
      for (const [producerId, byTp] of pendingByGroup.get(groupId) ?? []) {
        group.pendingTxnOffsetCommits.set(producerId, byTp);
        this.openGroupsForProducer.add(producerId, groupId);
      }
      if (!meta && !group.hasOffsets) continue;
      if (this.add(group) === group) loaded.push(group);
    }
    return loaded;
  }

  private fromStored(groupId: string, s: StoredGroup): ClassicGroup {
    const group = new ClassicGroup(groupId, s.members.length === 0 ? 'Empty' : 'Stable', s.currentStateTimestampMs >= 0 ? s.currentStateTimestampMs : this.now());
    if (s.currentStateTimestampMs < 0) group.currentStateTimestampMs = null;
    group.generationId = s.generation;
    group.protocolType = s.protocolType.length > 0 ? s.protocolType : null;
    group.protocolName = s.protocol;
    for (const m of s.members) {
      const member = new GroupMember(m.memberId, m.groupInstanceId, m.clientId, m.clientHost, m.rebalanceTimeoutMs, m.sessionTimeoutMs, s.protocolType, [
        { name: s.protocol ?? '', metadata: m.subscription },
      ]);
      member.assignment = m.assignment;
      group.add(member, null);
    }
    group.leaderId = s.leader;
    group.subscribedTopics = group.computeSubscribedTopics((b) => this.host.groupRecords.subscribedTopics(b));
    return group;
  }

  private unload(partition: number): void {
    this.loading.delete(partition);
    if (!this.owned.delete(partition)) return;
    for (const [id, g] of [...this.groups]) {
      if (this.partitionFor(id) !== partition) continue;
      this.groups.delete(id);
      this.openGroupsForProducer.removeGroup(id);
      this.lifecycle.onGroupUnloaded(g);
    }
  }

  /** The broker process ends: forget everything; the next incarnation loads again. */
  shutdown(): void {
    this.incarnation++;
    this.active = false;
    for (const g of this.groups.values()) {
      this.host.scheduler.cancel(g.rebalanceTimer);
      this.host.scheduler.cancel(g.syncTimer);
      for (const m of g.members.values()) this.host.scheduler.cancel(m.heartbeatTimer);
    }
    this.groups.clear();
    this.openGroupsForProducer.clear();
    this.owned.clear();
    this.loading.clear();
    this.host.scheduler.cancel(this.expirationTimer);
    this.expirationTimer = null;
  }

  // ================================================================ writes

  private record(key: Uint8Array, value: Uint8Array | null): LogRecord {
    return { key, value, headers: [], timestamp: this.now() };
  }

  /** Append to the group's partition as leader; `done` is not called after this process ended. */
  private append(groupId: string, records: LogRecord[], acks: -1 | 0, done: (errorCode: KafkaErrorName, baseOffset: number) => void): void {
    const replica = this.leaderPartition(groupId);
    if (!replica) return done('NOT_LEADER_OR_FOLLOWER', -1);
    const incarnation = this.incarnation;
    replica.append(records, acks, this.host.brokerConfig().groups.offsetCommitTimeoutMs, (o) => {
      if (incarnation === this.incarnation) done(o.errorCode, o.baseOffset);
    });
  }

  /** Write the group's metadata with this generation's assignment (GroupMetadataManager.storeGroup). */
  storeGroup(group: ClassicGroup, assignment: ReadonlyMap<string, Uint8Array>, done: (error: KafkaErrorName) => void): void {
    const codec = this.host.groupRecords;
    const value: StoredGroup = {
      protocolType: group.protocolType ?? '',
      generation: group.generationId,
      protocol: group.protocolName,
      leader: group.leaderId,
      currentStateTimestampMs: group.currentStateTimestampMs ?? -1,
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        sessionTimeoutMs: m.sessionTimeoutMs,
        subscription: m.metadata(group.protocolName ?? ''),
        assignment: assignment.get(m.memberId) ?? new Uint8Array(0),
      })),
    };
    const rec = this.record(codec.groupMetadataKey(group.groupId), codec.groupMetadataValue(value));
    this.append(group.groupId, [rec], -1, (error) => done(groupStoreError(error)));
  }

  /**
   * Write offsets (GroupMetadataManager.storeOffsets): each becomes visible once the batch is
   * replicated; metadata longer than offset.metadata.max.bytes is refused per partition.
   */
  storeOffsets(group: ClassicGroup, offsets: ReadonlyMap<string, OffsetAndMetadata>, done: (errors: Map<string, KafkaErrorName>) => void): void {
    const maxMetadata = this.host.brokerConfig().groups.offsetMetadataMaxBytes;
    const valid = new Map([...offsets].filter(([, o]) => o.metadata.length <= maxMetadata));
    const answer = (error: KafkaErrorName): void => {
      done(new Map([...offsets.keys()].map((k) => [k, valid.has(k) ? error : 'OFFSET_METADATA_TOO_LARGE'])));
    };
    if (valid.size === 0) return answer('OFFSET_METADATA_TOO_LARGE');
    if (!this.leaderPartition(group.groupId)) return answer('NOT_COORDINATOR');
    const codec = this.host.groupRecords;
    const records = [...valid].map(([k, o]) => {
      const { topic, partition } = splitTpKey(k);
      return this.record(codec.offsetCommitKey(group.groupId, topic, partition), codec.offsetCommitValue(o));
    });
    group.prepareOffsetCommit(valid);
    this.append(group.groupId, records, -1, (error, baseOffset) => {
      if (!group.is('Dead')) {
        for (const [k, o] of valid) {
          if (error === 'NONE') group.onOffsetCommitAppend(k, o, baseOffset);
          else group.failPendingOffsetWrite(k, o);
        }
      }
      answer(error === 'NONE' ? 'NONE' : offsetCommitError(error));
    });
  }

  /**
   * TxnOffsetCommit's write (GroupMetadataManager.storeOffsets for a producer): the offsets as a
   * transactional batch of the producer, pending in the group until the producer's marker.
   */
  storeTxnOffsets(group: ClassicGroup, producer: { producerId: number; producerEpoch: number }, offsets: ReadonlyMap<string, OffsetAndMetadata>, guard: object | undefined, done: (errors: Map<string, KafkaErrorName>) => void): void {
    const maxMetadata = this.host.brokerConfig().groups.offsetMetadataMaxBytes;
    const valid = new Map([...offsets].filter(([, o]) => o.metadata.length <= maxMetadata));
    const answer = (error: KafkaErrorName): void => done(new Map([...offsets.keys()].map((k) => [k, valid.has(k) ? error : 'OFFSET_METADATA_TOO_LARGE'])));
    if (valid.size === 0) return answer('OFFSET_METADATA_TOO_LARGE');
    const replica = this.leaderPartition(group.groupId);
    if (!replica) return answer('NOT_COORDINATOR');
    const codec = this.host.groupRecords;
    const records = [...valid].map(([k, o]) => {
      const { topic, partition } = splitTpKey(k);
      return this.record(codec.offsetCommitKey(group.groupId, topic, partition), codec.offsetCommitValue(o));
    });
    this.openGroupsForProducer.add(producer.producerId, group.groupId);
    group.prepareTxnOffsetCommit(producer.producerId, valid);
    const incarnation = this.incarnation;
    const timeoutMs = this.host.brokerConfig().groups.offsetCommitTimeoutMs;
    replica.appendTransactional(
      records,
      producer,
      timeoutMs,
      (o) => {
        if (incarnation !== this.incarnation) return;
        if (!group.is('Dead')) {
          for (const [k, off] of valid) {
            if (o.errorCode === 'NONE') group.onTxnOffsetCommitAppend(producer.producerId, k, off, o.baseOffset);
            else group.failPendingTxnOffsetCommit(producer.producerId, k);
          }
          if (!group.pendingTxnOffsetCommits.has(producer.producerId)) this.openGroupsForProducer.remove(producer.producerId, group.groupId);
        }
        answer(o.errorCode === 'NONE' ? 'NONE' : offsetCommitError(o.errorCode));
      },
      guard,
    );
  }

  /** A producer's marker reached these offsets partitions (GroupMetadataManager.handleTxnCompletion). */
  handleTxnCompletion(producerId: number, partitions: ReadonlySet<number>, isCommit: boolean): void {
    for (const groupId of this.openGroupsForProducer.groupsIn(producerId, partitions, (g) => this.partitionFor(g))) {
      const group = this.groups.get(groupId);
      if (group && !group.is('Dead')) group.completePendingTxnOffsetCommit(producerId, isCommit);
      this.openGroupsForProducer.remove(producerId, groupId);
    }
  }

  /**
   * Remove offsets chosen by `select` from each group (Kafka's cleanupGroupMetadata): an Empty
   * group left without offsets dies and is forgotten; tombstones go to the log without waiting.
   * Returns how many offsets were removed.
   */
  cleanup(groups: Iterable<ClassicGroup>, select: (g: ClassicGroup) => string[]): number {
    const codec = this.host.groupRecords;
    let removed = 0;
    for (const group of [...groups]) {
      const keys = group.removeOffsets(select(group));
      if (group.is('Empty') && !group.hasOffsets) group.transitionTo('Dead', this.now(), 'no members and no offsets left');
      const tombstones = keys.map((k) => {
        const { topic, partition } = splitTpKey(k);
        return this.record(codec.offsetCommitKey(group.groupId, topic, partition), null);
      });
      // A group that only ever committed offsets (generation 0) has no metadata record to remove.
      if (group.is('Dead') && this.groups.get(group.groupId) === group) {
        this.groups.delete(group.groupId);
        if (group.generationId > 0) tombstones.push(this.record(codec.groupMetadataKey(group.groupId), null));
      }
      if (tombstones.length > 0 && this.leaderPartition(group.groupId)) {
        this.append(group.groupId, tombstones, 0, () => {});
        removed += keys.length;
      }
    }
    return removed;
  }

  /** Expire offsets every offsets.retention.check.interval.ms while this broker runs. */
  startExpiration(): void {
    const cfg = this.host.brokerConfig().groups;
    const incarnation = this.incarnation;
    this.expirationTimer = this.host.after(cfg.offsetsRetentionCheckIntervalMs, () => {
      if (incarnation !== this.incarnation) return;
      const now = this.now();
      this.cleanup(this.groups.values(), (g) => g.expiredOffsets(now, cfg.offsetsRetentionMs));
      this.startExpiration();
    });
  }

  /** The group's committed offsets for these partitions, or for all it has (Kafka's getOffsets). */
  getOffsets(groupId: string, requireStable: boolean, keys: string[] | null): Map<string, { offset: OffsetAndMetadata | null; errorCode: KafkaErrorName }> {
    const group = this.groups.get(groupId);
    const out = new Map<string, { offset: OffsetAndMetadata | null; errorCode: KafkaErrorName }>();
    if (!group || group.is('Dead')) {
      for (const k of keys ?? []) out.set(k, { offset: null, errorCode: 'NONE' });
      return out;
    }
    for (const k of keys ?? [...group.offsets.keys()]) {
      if (requireStable && group.hasPendingOffsetCommitsFor(k)) out.set(k, { offset: null, errorCode: 'UNSTABLE_OFFSET_COMMIT' });
      else out.set(k, { offset: group.offsets.get(k)?.offset ?? null, errorCode: 'NONE' });
    }
    return out;
  }
}
