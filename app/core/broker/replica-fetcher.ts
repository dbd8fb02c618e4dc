/**
 * The follower side of replication: one fetcher per (follower broker, leader broker), like
 * Kafka's ReplicaFetcherThread with num.replica.fetchers=1. It fetches the partitions it follows
 * on that leader, the leader long-polls it (replica.fetch.wait.max.ms), and every ISR, HW and
 * truncation decision follows from these fetches — logs are never copied directly. After a failed
 * request it backs off replica.fetch.backoff.ms.
 *
 * Fetches go through an incremental fetch session (KIP-227, Kafka's FetchSessionHandler): the
 * first fetch is a full one and opens a session on the leader; each later fetch names only the
 * partitions whose position (fetch offset, last fetched epoch, leader epoch) changed since the
 * session last heard it, and those it leaves (`forgotten`: gone, delayed after an error,
 * throttled). An idle partition is not looked at: only partitions the fetcher was told about
 * (added, answered, back from a delay) are. Any failure or a dropped answer resets the session,
 * so the next fetch is a full one.
 */
import { replicaKey } from '../log/log-store.js';
import type { Network } from '../network.js';
import type { TimerHandle } from '../time.js';
import type { FetchPartitionRequest, FetchRequest, FetchResponse } from './messages.js';
import type { ReplicaPartition } from './partition.js';
import { isThrottledReplica, type RateMeter } from './quota.js';
import type { BrokerTraffic } from '../metrics.js';
import type { BrokerRuntimeConfig, TopicRuntimeConfig } from '../runtime-config.js';
import type { Scheduler } from '../time.js';

export interface FetcherHost {
  readonly brokerId: number;
  readonly brokerEpoch: number;
  readonly scheduler: Scheduler;
  readonly network: Network;
  readonly followerQuota: RateMeter;
  readonly traffic: BrokerTraffic;
  isFetchingAllowed(): boolean;
  /** Run work that touches the log; false when a storage failure halted the broker. */
  guarded(fn: () => unknown): boolean;
  partitionByKey(key: string): ReplicaPartition | undefined;
  brokerConfig(): BrokerRuntimeConfig;
  topicConfig(topicId: string): TopicRuntimeConfig;
}

const NOTHING: readonly string[] = [];

export class ReplicaFetcher {
  private readonly keys = new Set<string>();
  private inFlight = false;
  /** The fetch in flight, if any. */
  private request: FetchRequest | null = null;
  private timer: TimerHandle | null = null;
  private closed = false;
  private sessionId = 0;
  /** The epoch of the next fetch; 0: a full fetch that opens a new session. */
  private sessionEpoch = 0;
  /** What the leader's session holds: each partition's position as last sent. */
  private readonly sent = new Map<string, FetchPartitionRequest>();
  /** Partitions to look at before the next fetch (added, removed, answered). */
  private readonly dirty = new Set<string>();
  /** Partitions kept out of the session for now (delayed after an error, throttled): looked at before every fetch. */
  private readonly waiting = new Set<string>();
  /** Partitions the last fetch looked at (a white-box view for tests: idle partitions are not among them). */
  lastExamined: readonly string[] = [];

  constructor(
    private readonly host: FetcherHost,
    readonly leaderId: number,
  ) {}

  get partitionCount(): number {
    return this.keys.size;
  }

  add(key: string): void {
    this.keys.add(key);
    this.dirty.add(key);
    this.wake();
  }

  remove(key: string): void {
    this.keys.delete(key);
    if (this.sent.has(key)) this.dirty.add(key);
    this.waiting.delete(key);
  }

  close(): void {
    this.closed = true;
    this.host.scheduler.cancel(this.timer);
    this.timer = null;
  }

  /** Send the next fetch soon unless one is in flight or a backoff is pending. */
  wake(): void {
    if (this.closed || this.inFlight || this.timer) return;
    this.timer = this.host.scheduler.schedule(0, this.onTimer);
  }

  private later(ms: number): void {
    if (this.closed || this.timer) return;
    this.timer = this.host.scheduler.schedule(ms, this.onTimer);
  }

  /** The timer's callback, made once (an idle fetcher arms one twice a second). */
  private readonly onTimer = (): void => {
    this.timer = null;
    this.sendNext();
  };

  /** The next fetch is a full one: the leader's session is gone or out of step. */
  private resetSession(): void {
    this.sessionId = 0;
    this.sessionEpoch = 0;
    this.sent.clear();
  }

  private fetchable(p: ReplicaPartition, now: number): boolean {
    if (p.isLeader || p.leaderId !== this.leaderId || p.fetchDelayedUntil > now) return false;
    const list = this.host.topicConfig(p.topicId).followerReplicationThrottledReplicas;
    if (!isThrottledReplica(list, p.partition, this.host.brokerId)) return true;
    // Throttle only while out of sync: behind the leader's HW as of the last fetch.
    const outOfSync = p.log.logEndOffset < p.lastLeaderHighWatermark;
    return !(outOfSync && this.host.followerQuota.isExceeded(this.host.brokerConfig().followerReplicationThrottledRate, now));
  }

  private sendNext(): void {
    if (this.closed || this.inFlight || !this.host.isFetchingAllowed()) return;
    const now = this.host.scheduler.now();
    const full = this.sessionEpoch === 0;
    if (full) this.sent.clear();
    // An idle session (nothing dirty or waiting) sends an empty incremental fetch every
    // replica.fetch.wait.max.ms to every leader: that one allocates as little as it can.
    const examine = full ? [...this.keys] : this.dirty.size + this.waiting.size === 0 ? NOTHING : this.dirtyAndWaiting();
    this.dirty.clear();
    this.lastExamined = examine;
    const parts: FetchPartitionRequest[] = [];
    const forgotten: { topicId: string; partition: number }[] = [];
    let retryAt = Infinity;
    for (const key of examine) {
      const p = this.keys.has(key) ? this.host.partitionByKey(key) : undefined;
      if (!p || p.isLeader || p.leaderId !== this.leaderId) {
        this.waiting.delete(key);
        this.forget(key, forgotten);
        continue;
      }
      if (!this.fetchable(p, now)) {
        retryAt = Math.min(retryAt, Math.max(p.fetchDelayedUntil, now + 100));
        this.waiting.add(key);
        this.forget(key, forgotten);
        continue;
      }
      this.waiting.delete(key);
      const position: FetchPartitionRequest = {
        topicId: p.topicId,
        partition: p.partition,
        fetchOffset: p.log.logEndOffset,
        lastFetchedEpoch: p.log.latestEpoch(),
        currentLeaderEpoch: p.leaderEpoch,
        logStartOffset: p.log.logStartOffset,
      };
      const was = this.sent.get(key);
      // A moved log start is a position change too: the leader's DeleteRecords waits to hear it.
      if (
        was &&
        was.fetchOffset === position.fetchOffset &&
        was.lastFetchedEpoch === position.lastFetchedEpoch &&
        was.currentLeaderEpoch === position.currentLeaderEpoch &&
        was.logStartOffset === position.logStartOffset
      )
        continue;
      this.sent.set(key, position);
      parts.push(position);
    }
    // The session would hold nothing: no fetch; wait for a delayed or throttled partition.
    if (this.sent.size === 0) {
      this.resetSession();
      if (Number.isFinite(retryAt)) this.later(retryAt - now);
      return;
    }
    const cfg = this.host.brokerConfig();
    const request: FetchRequest = {
      type: 'fetch',
      replicaId: this.host.brokerId,
      brokerEpoch: this.host.brokerEpoch,
      maxWaitMs: cfg.replicaFetchWaitMaxMs,
      sessionId: this.sessionId,
      sessionEpoch: this.sessionEpoch,
      partitions: parts,
      forgotten,
    };
    this.inFlight = true;
    this.request = request;
    this.host.network.request(this.host.brokerId, this.leaderId, request, cfg.replicaSocketTimeoutMs, this.onReply, this.onFailure);
  }

  // The request's callbacks, made once: one fetch is in flight at a time (`request`), and an idle
  // fetcher sends two a second.
  private readonly onReply = (res: unknown): void => {
    this.inFlight = false;
    const request = this.request!;
    this.request = null;
    // A stalled fetcher thread processes nothing, not even the answer it was waiting for
    // (the leader's session moved on without us: start a new one).
    if (!this.host.isFetchingAllowed()) return this.resetSession();
    if (!this.host.guarded(() => this.onResponse(request, res as FetchResponse))) return;
    this.wake();
  };

  private readonly onFailure = (): void => {
    this.inFlight = false;
    this.request = null;
    this.resetSession();
    this.later(this.host.brokerConfig().replicaFetchBackoffMs);
  };

  /** The dirty partitions, then the waiting ones not dirty too. */
  private dirtyAndWaiting(): string[] {
    const out = [...this.dirty];
    for (const k of this.waiting) if (!this.dirty.has(k)) out.push(k);
    return out;
  }

  /** Take `key` out of the leader's session (in the next fetch's forgotten list) if it is there. */
  private forget(key: string, forgotten: { topicId: string; partition: number }[]): void {
    const was = this.sent.get(key);
    if (!was) return;
    this.sent.delete(key);
    forgotten.push({ topicId: was.topicId, partition: was.partition });
  }

  private onResponse(request: FetchRequest, response: FetchResponse): void {
    if (response.error) {
      // FETCH_SESSION_ID_NOT_FOUND / INVALID_FETCH_SESSION_EPOCH: the next fetch is a full one.
      this.resetSession();
      return;
    }
    if (request.sessionEpoch === 0) this.sessionId = response.sessionId ?? 0;
    this.sessionEpoch = (request.sessionEpoch ?? 0) + 1;
    const now = this.host.scheduler.now();
    const backoff = this.host.brokerConfig().replicaFetchBackoffMs;
    for (const r of response.partitions) {
      const key = replicaKey(r.topicId, r.partition);
      const sent = this.sent.get(key);
      // Whatever happens below may move the position: look at it before the next fetch.
      this.dirty.add(key);
      const p = this.host.partitionByKey(key);
      // Ignore answers for partitions whose leadership or epoch moved on meanwhile.
      if (!sent || !p || p.isLeader || p.leaderId !== this.leaderId || p.leaderEpoch !== sent.currentLeaderEpoch) continue;
      if (p.log.logEndOffset !== sent.fetchOffset) continue;
      switch (r.error) {
        case 'NONE': {
          p.lastLeaderHighWatermark = r.highWatermark;
          if (r.divergingEpoch) {
            p.truncateOnDivergence(r.divergingEpoch);
            continue;
          }
          const bytes = r.batches.reduce((s, b) => s + b.sizeBytes, 0);
          this.host.traffic.replicationBytesIn += bytes;
          p.applyFetched(r.batches, r.highWatermark, r.logStartOffset);
          const list = this.host.topicConfig(p.topicId).followerReplicationThrottledReplicas;
          if (bytes > 0 && isThrottledReplica(list, p.partition, this.host.brokerId)) this.host.followerQuota.record(bytes, now);
          continue;
        }
        case 'OFFSET_OUT_OF_RANGE': {
          // Kafka's fetchOffsetAndTruncate: a leader with a shorter log → truncate to its end;
          // a leader whose log starts past ours → restart at its log start.
          const leo = p.log.logEndOffset;
          if (r.logEndOffset >= 0 && r.logEndOffset < leo) p.truncateTo(r.logEndOffset, 'offset-out-of-range');
          else if (r.logStartOffset > leo) p.log.truncateFullyAndStartAt(r.logStartOffset);
          else p.fetchDelayedUntil = now + backoff;
          continue;
        }
        default:
          // NOT_LEADER_OR_FOLLOWER, FENCED/UNKNOWN_LEADER_EPOCH...: wait for newer metadata.
          p.fetchDelayedUntil = now + backoff;
      }
    }
  }
}
