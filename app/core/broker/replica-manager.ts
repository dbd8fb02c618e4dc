/**
 * A broker's replicas (Kafka's ReplicaManager with its LogManager and fetcher manager): the replica
 * logs on its disk, the partitions it serves as leader or follower, one replica fetcher per leader
 * broker, and the application of committed metadata to all of them.
 *
 * Invariants: metadata is applied in log order only (a gap waits for the next heartbeat); a replica
 * leaves this broker (its log deleted) exactly when the committed assignment no longer names the
 * broker or its topic is deleted; a replica whose log cannot be read is served no more until the
 * process restarts, and the controller is told; a follower fetches from the leader its metadata
 * names and from no other.
 */
import { KafkaError, type KafkaErrorName } from '../../api/errors.js';
import type { EngineEvent } from '../../api/events.js';
import type { BrokerLogStore } from '../log/log-store.js';
import { replicaKey } from '../log/log-store.js';
import { PartitionLog, type CheckpointsDue, type StoredBytes } from '../log/partition-log.js';
import type { CleanedBatchWriter } from '../log/cleaner/cleaned-batch.js';
import { LogCleaner, type CompactedLog } from '../log/cleaner/log-cleaner.js';
import { compactionStatus, type CompactionStatus } from '../log/cleaner/compaction-status.js';
import type { TimerHandle } from '../time.js';
import type { RecordBatch } from '../log/records.js';
import type { MetadataImage, TopicImage } from '../metadata/image.js';
import type { CommittedRecord, PartitionState } from '../metadata/records.js';
import { loadSnapshot, type ImageSnapshot } from '../metadata/snapshot.js';
import { ReplicaPartition, type PartitionHost } from './partition.js';
import { LeadersByReplica } from './leaders-by-replica.js';
import { ReplicaFetcher, type FetcherHost } from './replica-fetcher.js';

/** A replica a client request may use, or the error Kafka answers instead. */
export type LeaderLookup = { ok: true; replica: ReplicaPartition } | { ok: false; error: KafkaErrorName };

export interface ReplicaManagerHost extends PartitionHost, FetcherHost {
  readonly disk: BrokerLogStore;
  readonly image: MetadataImage;
  emit(event: EngineEvent): void;
  /** Committed config records arrived: resolved configs must be read again. */
  configsChanged(): void;
  /** Tell the controller a replica's log is unreadable. */
  noticeReplicaOffline(topicId: string, partition: number): void;
  /** A replica became leader or follower: client fetches parked on it may answer now. */
  onLeadershipChanged(partition: ReplicaPartition): void;
  /** A config changed (or a snapshot was loaded): follower fetch sessions look at every partition again. */
  recheckFetchSessions(): void;
  /** Run `fn` after `ms` while this broker process lives (its storage failures halt the broker). */
  after(ms: number, fn: () => void): TimerHandle;
  /** Writes the batches the log cleaner keeps part of (the CleanedBatchWriter port). */
  readonly cleanedBatches: CleanedBatchWriter;
}

export class ReplicaManager {
  readonly partitions = new Map<string, ReplicaPartition>();
  private localLogs = new Map<string, PartitionLog>();
  private readonly fetchers = new Map<number, ReplicaFetcher>();
  /** Replicas this incarnation cannot serve (key → why). */
  private readonly offline = new Map<string, string>();
  /**
   * Bytes stored by every replica log on this broker's disk, kept by the logs as they change.
   * The logs are closed while the process is down but the count stays (it is what the disk holds);
   * null until this process has opened its logs or read its disk.
   */
  private stored: StoredBytes | null = null;
  /** This broker's logs whose high watermark moved since their checkpoint (partition-log.ts). */
  private readonly checkpointsDue: CheckpointsDue = new Set();
  /** For each broker, the partitions here this broker leads with it as a replica (kept with `partitions`). */
  readonly leadersByReplica: LeadersByReplica;
  /** The log cleaner (Kafka's LogManager owns it too): compacts every compacted log served here. */
  readonly cleaner: LogCleaner;

  constructor(private readonly host: ReplicaManagerHost) {
    this.leadersByReplica = new LeadersByReplica(host.brokerId);
    this.cleaner = new LogCleaner({
      brokerId: host.brokerId,
      scheduler: host.scheduler,
      cleanedBatches: host.cleanedBatches,
      cleanerConfig: () => host.brokerConfig().cleaner,
      compactedLogs: () => this.compactedLogs(),
      isCurrent: (key, log) => this.partitions.get(key)?.log === log,
      after: (ms, fn) => host.after(ms, fn),
      logStartMoved: (key) => {
        const p = this.partitions.get(key);
        if (p?.isLeader) host.onLeaderStateChanged(p);
      },
      emit: (e) => host.emit(e),
    });
  }

  /** The cleaner's state of a compacted replica served here (undefined: not served, or not compacted). */
  compactionStatus(key: string): CompactionStatus | undefined {
    const p = this.partitions.get(key);
    if (!p) return undefined;
    const config = this.host.topicConfig(p.topicId);
    if (!config.cleanupPolicyCompact) return undefined;
    return compactionStatus(p.log, config, this.cleaner.view(key), this.host.scheduler.now());
  }

  /** The served replicas whose topic's cleanup.policy has `compact`, in the order they are held. */
  compactedLogs(): CompactedLog[] {
    const out: CompactedLog[] = [];
    this.partitions.forEach((p, key) => {
      const config = this.host.topicConfig(p.topicId);
      if (config.cleanupPolicyCompact) out.push({ key, topic: p.topic, partition: p.partition, log: p.log, config });
    });
    return out;
  }

  /** Open every replica log on disk (after a power loss each is truncated to its flushed offset). */
  recover(nowMs: number, powerLost: boolean): void {
    const host = this.host;
    this.offline.clear();
    this.partitions.clear();
    this.leadersByReplica.clear();
    this.localLogs = new Map();
    this.stored = null;
    this.checkpointsDue.clear();
    const stored: StoredBytes = { bytes: 0 };
    for (const key of host.disk.replicaKeys()) {
      const store = host.disk.replica(key);
      const before = store.endOffset();
      const log = new PartitionLog(store, nowMs, powerLost, stored, key, this.checkpointsDue);
      this.localLogs.set(key, log);
      if (powerLost && log.logEndOffset < before) {
        const [topicId, partition] = splitKey(key);
        host.emit({
          type: 'replica.truncated',
          atMs: nowMs,
          topic: topicId,
          partition,
          brokerId: host.brokerId,
          fromOffset: before,
          toOffset: log.logEndOffset,
          leaderEpoch: -1,
          reason: 'power-loss',
        });
      }
    }
    this.stored = stored;
  }

  /**
   * Load a metadata snapshot (this broker was behind the records the controller keeps): the image
   * becomes the snapshot's and every replica here is made to match it, as replaying the records
   * up to it would have — except that a local log the snapshot does not assign to this broker is
   * deleted even when no record said so (Kafka's stray logs, KIP-858).
   */
  loadSnapshot(snap: ImageSnapshot, removedTopicNames: string[]): void {
    const host = this.host;
    const image = host.image;
    const before = [...image.topicsById.values()];
    loadSnapshot(image, snap);
    for (const t of before) if (!image.topicsById.has(t.topicId)) removedTopicNames.push(t.name);
    host.configsChanged();
    for (const k of new Set([...this.partitions.keys(), ...this.localLogs.keys()])) {
      const [topicId, partition] = splitKey(k);
      if (!image.partition(topicId, partition)?.replicas.includes(host.brokerId)) this.removeReplica(k);
    }
    for (const topic of image.topicsById.values()) {
      for (const state of topic.partitions.values()) {
        if (state.replicas.includes(host.brokerId)) this.reconcile(replicaKey(state.topicId, state.partition), topic, state);
      }
    }
    for (const p of this.partitions.values()) p.maybeIncrementHighWatermark();
    host.recheckFetchSessions();
  }

  /**
   * Apply committed metadata records in order; a gap waits for the next heartbeat to fill it. The
   * names of the topics removed are added to `removedTopicNames` (the image forgets them).
   */
  applyMetadata(records: readonly CommittedRecord[], removedTopicNames: string[]): void {
    const image = this.host.image;
    const brokerId = this.host.brokerId;
    const changed = new Map<string, { topic: TopicImage; state: PartitionState }>();
    const removedTopics: string[] = [];
    let configsChanged = false;
    const brokersChanged = new Set<number>();
    for (const rec of records) {
      if (rec.offset <= image.offset) continue;
      if (rec.offset !== image.offset + 1) break;
      const r = rec.record;
      if (r.type === 'Partition' || r.type === 'PartitionChange') {
        // Only what this broker hosts before or after the record, or a log of it here that no
        // replica list names (offline, or stray), needs reconciling: fencing a broker changes
        // tens of thousands of partitions, most of them elsewhere. (A replica this broker serves
        // is always in the replicas of the state before.) The usual change keeps the replica
        // list (the same array: states are frozen and shared), so the state before is looked at
        // only when the list is another.
        const s = r.state;
        const topic = image.topicsById.get(s.topicId);
        if (!topic) {
          image.apply(rec);
          continue;
        }
        const prev = image.applyPartition(rec, topic, s);
        const mine = s.replicas.includes(brokerId) || (prev !== undefined && prev.replicas !== s.replicas && prev.replicas.includes(brokerId));
        if (!mine && this.localLogs.size <= this.partitions.size) continue;
        const k = replicaKey(s.topicId, s.partition);
        if (mine || this.localLogs.has(k)) changed.set(k, { topic, state: topic.partitions.get(s.partition)! });
        continue;
      }
      if (r.type === 'RemoveTopic') {
        removedTopics.push(r.topicId);
        const gone = image.topicsById.get(r.topicId);
        if (gone) removedTopicNames.push(gone.name);
      }
      image.apply(rec);
      if (r.type === 'Config') configsChanged = true;
      else if (r.type === 'RegisterBroker' || r.type === 'BrokerRegistrationChange' || r.type === 'UnregisterBroker') brokersChanged.add(r.brokerId);
    }
    if (configsChanged) this.host.configsChanged();
    for (const topicId of removedTopics) {
      for (const [k, p] of [...this.partitions]) if (p.topicId === topicId) this.removeReplica(k);
      for (const k of [...this.localLogs.keys()]) if (k.startsWith(`${topicId}:`)) this.removeReplica(k);
    }
    changed.forEach((c, k) => this.reconcile(k, c.topic, c.state));
    if (configsChanged) for (const p of this.partitions.values()) p.maybeIncrementHighWatermark();
    if (configsChanged) this.host.recheckFetchSessions();
    else if (brokersChanged.size > 0) this.recheckReplicasOf(brokersChanged, changed);
  }

  /**
   * Brokers' registrations changed (fenced, unfenced, shutting down, a new epoch): what a follower
   * fetch checks and the HW rule read only the registrations of a partition's own replicas, so
   * only the partitions this broker leads with one of them as a replica are looked at again.
   * (Re-checking every partition of every session made fencing one broker of a 100,000-partition
   * cluster cost each leader a walk of all it leads.)
   */
  private recheckReplicasOf(brokerIds: ReadonlySet<number>, reconciled: ReadonlyMap<string, unknown>): void {
    // Only the partitions led here with one of them as a replica, from the index, in the order a
    // walk of `partitions` would meet them.
    for (const k of this.leadersByReplica.of(brokerIds)) {
      // A partition reconciled in this batch was marked already (onLeadershipChanged).
      if (reconciled.has(k)) continue;
      const p = this.partitions.get(k);
      if (p?.isLeader) this.host.onLeaderStateChanged(p);
    }
  }

  /** Make this broker's replica of one partition match its committed state. */
  private reconcile(k: string, topic: TopicImage, state: PartitionState): void {
    const host = this.host;
    if (!state.replicas.includes(host.brokerId)) {
      if (this.partitions.has(k) || this.localLogs.has(k)) this.removeReplica(k);
      return;
    }
    if (this.offline.has(k)) return;
    let p = this.partitions.get(k);
    const fresh = p === undefined;
    if (!p) {
      const log = this.localLogs.get(k) ?? new PartitionLog(host.disk.replica(k), host.scheduler.now(), false, (this.stored ??= { bytes: 0 }), `${topic.name}-${state.partition}`, this.checkpointsDue);
      this.localLogs.set(k, log);
      p = new ReplicaPartition(host, topic.name, log, state, k);
      this.partitions.set(k, p);
    }
    const previousLeader = p.isLeader ? host.brokerId : p.leaderId;
    if (state.leader === host.brokerId) {
      this.fetchers.get(previousLeader)?.remove(k);
      p.becomeLeader(state);
    } else if (!fresh && previousLeader === state.leader && p.leaderEpoch === state.leaderEpoch) {
      // A follower whose leader and leader epoch stay (an ISR change elsewhere, e.g. the fence of
      // another replica): what it fetches, and what its clients may read, are unchanged.
      p.becomeFollower(state);
      return;
    } else {
      p.becomeFollower(state);
      if (previousLeader !== state.leader) this.fetchers.get(previousLeader)?.remove(k);
      if (state.leader >= 0) this.fetcherFor(state.leader).add(k);
    }
    this.leadersByReplica.update(k, state);
    host.onLeadershipChanged(p);
  }

  /**
   * Write the checkpoint of every log whose high watermark moved since it was last written
   * (Kafka's periodic replication-offset checkpoint, replica.high.watermark.checkpoint.interval.ms);
   * the others are not looked at.
   */
  saveDueCheckpoints(): void {
    for (const log of this.checkpointsDue) log.saveCheckpoint();
  }

  private fetcherFor(leaderId: number): ReplicaFetcher {
    let f = this.fetchers.get(leaderId);
    if (!f) {
      f = new ReplicaFetcher(this.host, leaderId);
      this.fetchers.set(leaderId, f);
    }
    return f;
  }

  private removeReplica(k: string): void {
    const p = this.partitions.get(k);
    if (p) {
      p.resignLeadership();
      this.fetchers.get(p.leaderId)?.remove(k);
      this.partitions.delete(k);
      this.leadersByReplica.remove(k);
    }
    this.localLogs.get(k)?.release();
    this.localLogs.delete(k);
    this.host.disk.deleteReplica(k);
  }

  /** One replica's log cannot be read (a corrupt batch): stop serving it and tell the controller. */
  private replicaOffline(p: ReplicaPartition, e: KafkaError): void {
    const k = p.key;
    if (this.offline.has(k)) return;
    this.offline.set(k, e.message);
    this.checkpointsDue.delete(p.log);
    p.resignLeadership();
    this.fetchers.get(p.leaderId)?.remove(k);
    this.partitions.delete(k);
    this.leadersByReplica.remove(k);
    this.host.emit({ type: 'replica.offline', atMs: this.host.scheduler.now(), topic: p.topic, partition: p.partition, brokerId: this.host.brokerId, errorCode: e.code, message: e.message });
    this.host.noticeReplicaOffline(p.topicId, p.partition);
  }

  isOffline(k: string): boolean {
    return this.offline.has(k);
  }

  /** Read a replica's log; a corrupt batch takes that replica offline and returns null. */
  /**
   * The replica's last stable offset, which may build its producer state from the log (the first
   * read_committed read after a restart); a corrupt batch takes the replica offline and gives null.
   */
  lastStableOffsetOrOffline(p: ReplicaPartition): number | null {
    try {
      return p.log.lastStableOffset;
    } catch (e) {
      if (e instanceof KafkaError && e.code === 'CORRUPT_MESSAGE') {
        this.replicaOffline(p, e);
        return null;
      }
      throw e;
    }
  }

  readOrOffline(p: ReplicaPartition, from: number, until: number, maxBytes: number): RecordBatch[] | null {
    try {
      return p.log.read(from, until, maxBytes);
    } catch (e) {
      if (e instanceof KafkaError && e.code === 'CORRUPT_MESSAGE') {
        this.replicaOffline(p, e);
        return null;
      }
      throw e;
    }
  }

  partitionByKey(k: string): ReplicaPartition | undefined {
    return this.partitions.get(k);
  }

  /**
   * The replica a client request may use (Kafka's getPartitionOrError, then the leader-epoch check
   * before the leadership check): UNKNOWN_TOPIC_OR_PARTITION, KAFKA_STORAGE_ERROR for a replica
   * offline here (when `checkOffline`), FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH when the
   * client's epoch (-1: unchecked) is older / newer than the replica's, NOT_LEADER_OR_FOLLOWER.
   */
  leaderReplica(topic: string, partition: number, currentLeaderEpoch: number, checkOffline: boolean): LeaderLookup {
    const t = this.host.image.topicsByName.get(topic);
    if (!t || !t.partitions.has(partition)) return { ok: false, error: 'UNKNOWN_TOPIC_OR_PARTITION' };
    const k = replicaKey(t.topicId, partition);
    if (checkOffline && this.offline.has(k)) return { ok: false, error: 'KAFKA_STORAGE_ERROR' };
    const p = this.partitions.get(k);
    if (p && currentLeaderEpoch >= 0 && currentLeaderEpoch !== p.leaderEpoch) {
      return { ok: false, error: currentLeaderEpoch < p.leaderEpoch ? 'FENCED_LEADER_EPOCH' : 'UNKNOWN_LEADER_EPOCH' };
    }
    if (!p || !p.isLeader) return { ok: false, error: 'NOT_LEADER_OR_FOLLOWER' };
    return { ok: true, replica: p };
  }

  partitionFor(topic: string, partition: number): ReplicaPartition | undefined {
    const t = this.host.image.topicsByName.get(topic);
    return t ? this.partitions.get(replicaKey(t.topicId, partition)) : undefined;
  }

  /**
   * Kafka's LogManager retention task ("kafka-log-retention"): every replica this broker hosts,
   * leader or follower, deletes the segments its topic's retention allows, each below its own HW.
   * Followers also move their log start up to the leader's through fetch responses. Compacted
   * logs are left out, as Kafka leaves them: the log cleaner applies retention to those whose
   * policy is `compact,delete`, between its cleanings (log-cleaner.ts).
   */
  cleanupLogs(nowMs: number): void {
    for (const p of this.partitions.values()) {
      const cfg = this.host.topicConfig(p.topicId);
      if (!cfg.cleanupPolicyDelete || cfg.cleanupPolicyCompact) continue;
      const start = p.log.logStartOffset;
      p.log.deleteOldSegments(nowMs, cfg);
      if (p.isLeader && p.log.logStartOffset !== start) this.host.onLeaderStateChanged(p);
    }
  }

  /** Every log, served or not, flushed to disk (an orderly stop). */
  flushAll(nowMs: number): void {
    for (const p of this.partitions.values()) p.log.flush(nowMs);
    for (const log of this.localLogs.values()) log.flush(nowMs);
  }

  fetcherViews(): ReplicaFetcher[] {
    return [...this.fetchers.values()];
  }

  /** A follower's log moved outside its fetches (a direct synthetic fill): its fetcher sends the new position next. */
  followerMoved(p: ReplicaPartition): void {
    if (!p.isLeader && p.leaderId >= 0) this.fetcherFor(p.leaderId).add(p.key);
  }

  /** Resume the fetchers after a stall. */
  wakeFetchers(): void {
    for (const f of this.fetchers.values()) f.wake();
  }

  stopFetchers(): void {
    for (const f of this.fetchers.values()) f.close();
    this.fetchers.clear();
  }

  resignAll(): void {
    for (const p of this.partitions.values()) p.resignLeadership();
  }

  /** The process is gone: nothing is served; the disk (and the byte count of its logs) stays. */
  closeAll(): void {
    this.partitions.clear();
    this.leadersByReplica.clear();
    this.localLogs.clear();
  }

  /**
   * Bytes of record batches this broker's disk holds for all its replicas: kept by its logs
   * while they are open; a broker that has not opened them in this run reads its disk once.
   * -1 when that disk cannot be read.
   */
  logBytes(): number {
    if (!this.stored) {
      try {
        this.stored = { bytes: this.host.disk.totalBytes() };
      } catch (e) {
        if (!(e instanceof KafkaError) || (e.code !== 'KAFKA_STORAGE_ERROR' && e.code !== 'CORRUPT_MESSAGE')) throw e;
        this.stored = { bytes: -1 };
      }
    }
    return this.stored.bytes;
  }

  /** Partitions this broker leads (its own view). */
  leaderCount(): number {
    let n = 0;
    for (const p of this.partitions.values()) if (p.isLeader) n++;
    return n;
  }
}

function splitKey(k: string): [string, number] {
  const i = k.lastIndexOf(':');
  return [k.slice(0, i), Number(k.slice(i + 1))];
}
