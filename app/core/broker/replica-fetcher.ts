/**
 * The follower side of replication: one fetcher per (follower broker, leader broker), like
 * Kafka's ReplicaFetcherThread with num.replica.fetchers=1. It sends one Fetch for all the
 * partitions it follows on that leader, the leader long-polls it (replica.fetch.wait.max.ms),
 * and every ISR, HW and truncation decision follows from these fetches — logs are never copied
 * directly. After a failed request it backs off replica.fetch.backoff.ms.
 */
import { replicaKey } from '../log/log-store.js';
import type { Network } from '../network.js';
import type { TimerHandle } from '../time.js';
import type { FetchRequest, FetchResponse } from './messages.js';
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

export class ReplicaFetcher {
  private readonly keys = new Set<string>();
  private inFlight = false;
  private timer: TimerHandle | null = null;
  private closed = false;

  constructor(
    private readonly host: FetcherHost,
    readonly leaderId: number,
  ) {}

  get partitionCount(): number {
    return this.keys.size;
  }

  add(key: string): void {
    this.keys.add(key);
    this.wake();
  }

  remove(key: string): void {
    this.keys.delete(key);
  }

  close(): void {
    this.closed = true;
    this.host.scheduler.cancel(this.timer);
    this.timer = null;
  }

  /** Send the next fetch soon unless one is in flight or a backoff is pending. */
  wake(): void {
    if (this.closed || this.inFlight || this.timer) return;
    this.timer = this.host.scheduler.schedule(0, () => {
      this.timer = null;
      this.sendNext();
    });
  }

  private later(ms: number): void {
    if (this.closed || this.timer) return;
    this.timer = this.host.scheduler.schedule(ms, () => {
      this.timer = null;
      this.sendNext();
    });
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
    const parts: ReplicaPartition[] = [];
    let retryAt = Infinity;
    for (const key of this.keys) {
      const p = this.host.partitionByKey(key);
      if (!p) continue;
      if (this.fetchable(p, now)) parts.push(p);
      else if (!p.isLeader && p.leaderId === this.leaderId) retryAt = Math.min(retryAt, Math.max(p.fetchDelayedUntil, now + 100));
    }
    if (parts.length === 0) {
      if (Number.isFinite(retryAt)) this.later(retryAt - now);
      return;
    }
    const cfg = this.host.brokerConfig();
    const request: FetchRequest = {
      type: 'fetch',
      replicaId: this.host.brokerId,
      brokerEpoch: this.host.brokerEpoch,
      maxWaitMs: cfg.replicaFetchWaitMaxMs,
      partitions: parts.map((p) => ({
        topicId: p.topicId,
        partition: p.partition,
        fetchOffset: p.log.logEndOffset,
        lastFetchedEpoch: p.log.latestEpoch(),
        currentLeaderEpoch: p.leaderEpoch,
      })),
    };
    this.inFlight = true;
    this.host.network.request(
      this.host.brokerId,
      this.leaderId,
      request,
      cfg.replicaSocketTimeoutMs,
      (res) => {
        this.inFlight = false;
        // A stalled fetcher thread processes nothing, not even the answer it was waiting for.
        if (!this.host.isFetchingAllowed()) return;
        if (!this.host.guarded(() => this.onResponse(request, res as FetchResponse))) return;
        this.wake();
      },
      () => {
        this.inFlight = false;
        this.later(cfg.replicaFetchBackoffMs);
      },
    );
  }

  private onResponse(request: FetchRequest, response: FetchResponse): void {
    const now = this.host.scheduler.now();
    const backoff = this.host.brokerConfig().replicaFetchBackoffMs;
    response.partitions.forEach((r, i) => {
      const sent = request.partitions[i]!;
      const p = this.host.partitionByKey(replicaKey(r.topicId, r.partition));
      // Ignore answers for partitions whose leadership or epoch moved on meanwhile.
      if (!p || p.isLeader || p.leaderId !== this.leaderId || p.leaderEpoch !== sent.currentLeaderEpoch) return;
      if (p.log.logEndOffset !== sent.fetchOffset) return;
      switch (r.error) {
        case 'NONE': {
          p.lastLeaderHighWatermark = r.highWatermark;
          if (r.divergingEpoch) {
            p.truncateOnDivergence(r.divergingEpoch);
            return;
          }
          const bytes = r.batches.reduce((s, b) => s + b.sizeBytes, 0);
          this.host.traffic.replicationBytesIn += bytes;
          p.applyFetched(r.batches, r.highWatermark, r.logStartOffset);
          const list = this.host.topicConfig(p.topicId).followerReplicationThrottledReplicas;
          if (bytes > 0 && isThrottledReplica(list, p.partition, this.host.brokerId)) this.host.followerQuota.record(bytes, now);
          return;
        }
        case 'OFFSET_OUT_OF_RANGE': {
          // Kafka's fetchOffsetAndTruncate: a leader with a shorter log → truncate to its end;
          // a leader whose log starts past ours → restart at its log start.
          const leo = p.log.logEndOffset;
          if (r.logEndOffset >= 0 && r.logEndOffset < leo) p.truncateTo(r.logEndOffset, 'offset-out-of-range');
          else if (r.logStartOffset > leo) p.log.truncateFullyAndStartAt(r.logStartOffset);
          else p.fetchDelayedUntil = now + backoff;
          return;
        }
        default:
          // NOT_LEADER_OR_FOLLOWER, FENCED/UNKNOWN_LEADER_EPOCH...: wait for newer metadata.
          p.fetchDelayedUntil = now + backoff;
      }
    });
  }
}
