/**
 * Fetches on a leader, with Kafka's fetch purgatory (DelayedFetch): a fetch that finds nothing to
 * send waits up to its maxWaitMs and completes as soon as it has. Followers read up to the log
 * end and wait for any new data; clients (consumers) read below the high watermark and wait until
 * `minBytes` are readable there.
 *
 * Invariants: a parked fetch completes exactly once (enough data, an error, its timeout, or the
 * broker's teardown, which drops it unanswered); a fetch is answered from the log as it is when it
 * completes, never from a snapshot taken when it parked; a response carries at most its byte
 * budget (replica.fetch.response.max.bytes / the client's maxBytes) plus the first batch, each
 * partition at most its own limit; a throttled replica outside the ISR gets no data while the
 * leader's quota is exceeded.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import { replicaKey } from '../log/log-store.js';
import type { RecordBatch } from '../log/records.js';
import type { MetadataImage } from '../metadata/image.js';
import type { BrokerTraffic } from '../metrics.js';
import type { BrokerRuntimeConfig, TopicRuntimeConfig } from '../runtime-config.js';
import type { Scheduler, TimerHandle } from '../time.js';
import type { ClientFetchPartitionResponse, ClientFetchRequest, ClientFetchResponse, FetchPartitionResponse, FetchRequest, FetchResponse } from './messages.js';
import type { FollowerFetchCheck, ReplicaPartition } from './partition.js';
import { isThrottledReplica, type RateMeter } from './quota.js';
import type { LeaderLookup } from './replica-manager.js';

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
  /** The replica a client request may use (leader, epoch as the client knows it, log online), or why not. */
  leaderReplica(topic: string, partition: number, currentLeaderEpoch: number, checkOffline: boolean): LeaderLookup;
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

interface ParkedClientFetch {
  request: ClientFetchRequest;
  reply: (response: ClientFetchResponse) => void;
  timer: TimerHandle | null;
  done: boolean;
}

export class FetchPurgatory {
  /** Fetches waiting for data (at most one per follower broker), in the order they were parked. */
  private parked = new Set<ParkedFetch>();
  /** Client fetches waiting for `minBytes` below the HW, in the order they were parked. */
  private parkedClients = new Set<ParkedClientFetch>();

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
    for (const cf of this.parkedClients) this.unparkClient(cf);
    this.parkedClients.clear();
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
  // ---------------------------------------------------------------- client fetches

  /** A client's Fetch: answer now when `minBytes` are readable below the HW (or on an error), else park. */
  clientFetch(req: ClientFetchRequest, reply: (response: ClientFetchResponse) => void): void {
    const cf: ParkedClientFetch = { request: req, reply, timer: null, done: false };
    if (req.maxWaitMs <= 0 || this.clientReady(req)) return this.completeClient(cf);
    this.parkedClients.add(cf);
    const host = this.host;
    const gen = host.generation;
    cf.timer = host.scheduler.schedule(req.maxWaitMs, () => {
      if (gen === host.generation) this.completeClient(cf);
    });
  }

  /** Kafka's DelayedFetch.tryComplete for clients: an error to report, or `minBytes` readable below the HW. */
  private clientReady(req: ClientFetchRequest): boolean {
    let bytes = 0;
    for (const fp of req.partitions) {
      const found = this.host.leaderReplica(fp.topic, fp.partition, fp.currentLeaderEpoch, true);
      if (!found.ok) return true;
      const log = found.replica.log;
      if (fp.fetchOffset < log.logStartOffset || fp.fetchOffset > log.logEndOffset) return true;
      if (fp.fetchOffset >= log.highWatermark) continue;
      if (req.minBytes <= 1) return true;
      const batches = this.host.readOrOffline(found.replica, fp.fetchOffset, log.highWatermark, Math.min(fp.partitionMaxBytes, req.minBytes - bytes));
      if (!batches) return true;
      for (const b of batches) bytes += b.sizeBytes;
      if (bytes >= req.minBytes) return true;
    }
    return false;
  }

  /** A leader's HW moved or its leadership changed: complete the client fetches that can answer now. */
  onClientVisibleChange(p: ReplicaPartition): void {
    if (this.parkedClients.size === 0) return;
    for (const cf of [...this.parkedClients]) {
      if (cf.done || !cf.request.partitions.some((fp) => fp.topic === p.topic && fp.partition === p.partition)) continue;
      if (this.clientReady(cf.request)) this.completeClient(cf);
    }
  }

  private unparkClient(cf: ParkedClientFetch): void {
    cf.done = true;
    this.host.scheduler.cancel(cf.timer);
    this.parkedClients.delete(cf);
  }

  private completeClient(cf: ParkedClientFetch): void {
    if (cf.done) return;
    this.unparkClient(cf);
    const host = this.host;
    let budget = cf.request.maxBytes;
    const partitions = cf.request.partitions.map((fp): ClientFetchPartitionResponse => {
      const none = { topic: fp.topic, partition: fp.partition, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, logEndOffset: -1, batches: [] };
      const found = host.leaderReplica(fp.topic, fp.partition, fp.currentLeaderEpoch, true);
      if (!found.ok) return { ...none, error: found.error };
      const log = found.replica.log;
      const hw = log.highWatermark;
      const known = { topic: fp.topic, partition: fp.partition, highWatermark: hw, lastStableOffset: hw, logStartOffset: log.logStartOffset, logEndOffset: log.logEndOffset };
      if (fp.fetchOffset < log.logStartOffset || fp.fetchOffset > log.logEndOffset) return { ...known, error: 'OFFSET_OUT_OF_RANGE', batches: [] };
      if (budget <= 0) return { ...known, error: 'NONE', batches: [] };
      const batches = host.readOrOffline(found.replica, fp.fetchOffset, hw, Math.min(fp.partitionMaxBytes, budget));
      if (!batches) return { ...none, error: 'KAFKA_STORAGE_ERROR' };
      for (const b of batches) budget -= b.sizeBytes;
      return { ...known, error: 'NONE', batches };
    });
    cf.reply({ partitions });
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
