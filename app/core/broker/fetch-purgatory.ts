/**
 * The leader side of follower fetches, with Kafka's fetch purgatory (DelayedFetch): a fetch that
 * finds no new data waits up to its maxWaitMs and completes as soon as one of its partitions has
 * something to send.
 *
 * Invariants: a parked fetch completes exactly once (new data, an error, its timeout, or the
 * broker's teardown, which drops it unanswered); a fetch is answered from the log as it is when it
 * completes, never from a snapshot taken when it parked; the per-response byte budget is
 * replica.fetch.response.max.bytes, each partition's replica.fetch.max.bytes, and a throttled
 * replica outside the ISR gets no data while the leader's quota is exceeded.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import { replicaKey } from '../log/log-store.js';
import type { RecordBatch } from '../log/records.js';
import type { MetadataImage } from '../metadata/image.js';
import type { BrokerTraffic } from '../metrics.js';
import type { BrokerRuntimeConfig, TopicRuntimeConfig } from '../runtime-config.js';
import type { Scheduler, TimerHandle } from '../time.js';
import type { FetchPartitionResponse, FetchRequest, FetchResponse } from './messages.js';
import type { FollowerFetchCheck, ReplicaPartition } from './partition.js';
import { isThrottledReplica, type RateMeter } from './quota.js';

/** What the purgatory needs from its broker. */
export interface PurgatoryHost {
  readonly brokerId: number;
  readonly scheduler: Scheduler;
  readonly generation: number;
  readonly image: MetadataImage;
  readonly leaderQuota: RateMeter;
  readonly traffic: BrokerTraffic;
  brokerConfig(): BrokerRuntimeConfig;
  topicConfig(topicId: string): TopicRuntimeConfig;
  partitionByKey(key: string): ReplicaPartition | undefined;
  /** Read a replica's log; a corrupt batch takes that replica offline and gives null. */
  readOrOffline(p: ReplicaPartition, from: number, until: number, maxBytes: number): RecordBatch[] | null;
}

interface ParkedFetch {
  request: FetchRequest;
  checks: FollowerFetchCheck[];
  reply: (response: FetchResponse) => void;
  timer: TimerHandle | null;
  keys: string[];
  /** Position of each key in `keys`, built the first time new data may complete the fetch. */
  index: Map<string, number> | null;
  done: boolean;
}

export class FetchPurgatory {
  /** Fetches waiting for data (at most one per follower broker), in the order they were parked. */
  private parked = new Set<ParkedFetch>();

  constructor(private readonly host: PurgatoryHost) {}

  /** A follower's Fetch: validate each partition, then answer now or park until data arrives. */
  followerFetch(req: FetchRequest, reply: (response: FetchResponse) => void): void {
    const host = this.host;
    const keys = req.partitions.map((fp) => replicaKey(fp.topicId, fp.partition));
    const checks: FollowerFetchCheck[] = req.partitions.map((fp, i) => {
      const p = host.partitionByKey(keys[i]!);
      if (!p) return { ok: false, error: host.image.topicsById.has(fp.topicId) ? 'NOT_LEADER_OR_FOLLOWER' : 'UNKNOWN_TOPIC_OR_PARTITION' };
      return p.checkFollowerFetch(req.replicaId, req.brokerEpoch, fp.fetchOffset, fp.lastFetchedEpoch, fp.currentLeaderEpoch);
    });
    const pf: ParkedFetch = { request: req, checks, reply, timer: null, keys, index: null, done: false };
    const now = host.scheduler.now();
    const immediate = checks.some((c, i) => !c.ok || this.hasDataFor(pf, i, now));
    if (immediate || req.maxWaitMs <= 0) return this.complete(pf);
    this.parked.add(pf);
    const gen = host.generation;
    pf.timer = host.scheduler.schedule(req.maxWaitMs, () => {
      if (gen === host.generation) this.complete(pf);
    });
  }

  private hasDataFor(pf: ParkedFetch, i: number, now: number): boolean {
    const fp = pf.request.partitions[i]!;
    const p = this.host.partitionByKey(pf.keys[i]!);
    if (!p || !p.isLeader) return true;
    return p.log.logEndOffset > fp.fetchOffset && !this.leaderThrottled(p, pf.request.replicaId, now);
  }

  private leaderThrottled(p: ReplicaPartition, followerId: number, now: number): boolean {
    const host = this.host;
    const list = host.topicConfig(p.topicId).leaderReplicationThrottledReplicas;
    if (!isThrottledReplica(list, p.partition, host.brokerId)) return false;
    if (p.maximalIsr.includes(followerId)) return false;
    return host.leaderQuota.isExceeded(host.brokerConfig().leaderReplicationThrottledRate, now);
  }

  /** A leader's log changed: complete the parked fetches that now have data for it. */
  onPartitionChanged(p: ReplicaPartition): void {
    if (this.parked.size === 0) return;
    const k = replicaKey(p.topicId, p.partition);
    const now = this.host.scheduler.now();
    for (const pf of [...this.parked]) {
      if (pf.done) continue;
      pf.index ??= new Map(pf.keys.map((fk, i) => [fk, i]));
      const i = pf.index.get(k);
      if (i !== undefined && pf.checks[i]!.ok && this.hasDataFor(pf, i, now)) this.complete(pf);
    }
  }

  /** The broker's incarnation ends: parked fetches are dropped unanswered (the socket closes). */
  clear(): void {
    for (const pf of this.parked) this.unpark(pf);
    this.parked.clear();
  }

  private unpark(pf: ParkedFetch): void {
    pf.done = true;
    this.host.scheduler.cancel(pf.timer);
    this.parked.delete(pf);
  }

  private complete(pf: ParkedFetch): void {
    if (pf.done) return;
    this.unpark(pf);
    const host = this.host;
    const cfg = host.brokerConfig();
    const now = host.scheduler.now();
    let budget = cfg.replicaFetchResponseMaxBytes;
    const partitions: FetchPartitionResponse[] = pf.request.partitions.map((fp, i) => {
      const check = pf.checks[i]!;
      const p = host.partitionByKey(pf.keys[i]!);
      const answer = (error: KafkaErrorName, batches: RecordBatch[] = []): FetchPartitionResponse => partitionAnswer(fp, p, error, batches);
      if (!check.ok) return 'divergingEpoch' in check ? { ...answer(check.error), divergingEpoch: check.divergingEpoch } : answer(check.error);
      if (!p || !p.isLeader) return answer('NOT_LEADER_OR_FOLLOWER');
      if (budget <= 0 || this.leaderThrottled(p, pf.request.replicaId, now)) return answer('NONE');
      const batches = host.readOrOffline(p, fp.fetchOffset, p.log.logEndOffset, Math.min(cfg.replicaFetchMaxBytes, budget));
      if (!batches) return answer('KAFKA_STORAGE_ERROR');
      const bytes = batches.reduce((s, b) => s + b.sizeBytes, 0);
      budget -= bytes;
      host.traffic.replicationBytesOut += bytes;
      if (bytes > 0 && isThrottledReplica(host.topicConfig(p.topicId).leaderReplicationThrottledReplicas, p.partition, host.brokerId)) {
        host.leaderQuota.record(bytes, now);
      }
      return answer('NONE', batches);
    });
    pf.reply({ partitions });
  }
}

/** One partition of a fetch response, built as one object literal (this runs for every partition of every fetch). */
function partitionAnswer(fp: { topicId: string; partition: number }, p: ReplicaPartition | undefined, error: KafkaErrorName, batches: RecordBatch[]): FetchPartitionResponse {
  return {
    topicId: fp.topicId,
    partition: fp.partition,
    error,
    highWatermark: p ? p.log.highWatermark : -1,
    logStartOffset: p ? p.log.logStartOffset : -1,
    logEndOffset: p ? p.log.logEndOffset : -1,
    batches,
  };
}
