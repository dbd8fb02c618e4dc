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
import { FetchSessionCache, type LeaderFetchSession, type SessionPartition } from './fetch-sessions.js';
import type { ClientFetchPartitionResponse, ClientFetchRequest, ClientFetchResponse, FetchPartitionRequest, FetchPartitionResponse, FetchRequest, FetchResponse } from './messages.js';
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
  /** A replica's last stable offset (building its producer state if need be); a corrupt batch takes it offline and gives null. */
  lastStableOffsetOrOffline(p: ReplicaPartition): number | null;
}

/** One partition a follower fetch looks at: named by the request, or dirty in its session. */
interface FetchItem {
  key: string;
  fp: FetchPartitionRequest;
  /** The session's entry (null for a sessionless fetch). */
  sp: SessionPartition | null;
  /** The follower-fetch check, run when the fetch arrived (null: dirty since, not checked yet). */
  check: FollowerFetchCheck | null;
}

interface ParkedFetch {
  request: FetchRequest;
  session: LeaderFetchSession | null;
  items: FetchItem[];
  /** Full fetches (and sessionless ones) answer every partition; incremental ones only those with news. */
  full: boolean;
  reply: (response: FetchResponse) => void;
  timer: TimerHandle | null;
  /** Position of each key in `items`, built the first time new data may complete a sessionless fetch. */
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
  /** The incremental fetch sessions of the followers fetching from this broker (KIP-227). */
  private readonly sessions = new FetchSessionCache();
  /** Client fetches waiting for `minBytes` below the HW, in the order they were parked. */
  private parkedClients = new Set<ParkedClientFetch>();

  constructor(private readonly host: PurgatoryHost) {}

  /**
   * A follower's Fetch: resolve its session (a full fetch opens one), check each partition it
   * names or that changed since (fetch-sessions.ts), then answer now or park until data arrives.
   */
  followerFetch(req: FetchRequest, reply: (response: FetchResponse) => void): void {
    const host = this.host;
    const now = host.scheduler.now();
    const items: FetchItem[] = [];
    let session: LeaderFetchSession | null = null;
    const epoch = req.sessionEpoch ?? -1;
    if (epoch <= 0) {
      if (epoch === 0) session = this.sessions.open(req.replicaId, req.brokerEpoch, now);
      for (const fp of req.partitions) {
        const key = replicaKey(fp.topicId, fp.partition);
        items.push({ key, fp, sp: session ? session.put(key, fp) : null, check: null });
      }
    } else {
      const found = this.sessions.resolve(req.replicaId, req.sessionId ?? 0, epoch);
      if (typeof found === 'string') return reply({ error: found, sessionId: req.sessionId ?? 0, partitions: [] });
      session = found;
      session.epoch++;
      session.lastFetchMs = now;
      if (req.forgotten) for (const f of req.forgotten) session.forget(replicaKey(f.topicId, f.partition));
      // An idle follower's fetch names nothing and its session has nothing dirty: no set for it.
      const named = req.partitions.length > 0 ? new Set<string>() : null;
      for (const fp of req.partitions) {
        const key = replicaKey(fp.topicId, fp.partition);
        named!.add(key);
        const sp = session.put(key, fp);
        items.push({ key, fp: sp, sp, check: null });
      }
      if (session.dirty.size > 0) {
        for (const key of session.dirty) {
          const sp = named?.has(key) ? undefined : session.partitions.get(key);
          if (sp) items.push({ key, fp: sp, sp, check: null });
        }
        session.dirty.clear();
      }
    }
    for (const it of items) it.check = this.check(req, it);
    const pf: ParkedFetch = { request: req, session, items, full: epoch <= 0, reply, timer: null, index: null, done: false };
    const immediate = items.some((it) => !it.check!.ok || this.hasData(it.fp, req.replicaId, now));
    if (immediate || req.maxWaitMs <= 0) return this.complete(pf);
    this.parked.add(pf);
    const gen = host.generation;
    pf.timer = host.scheduler.schedule(req.maxWaitMs, () => {
      if (gen === host.generation) this.complete(pf);
    });
  }

  private check(req: FetchRequest, it: FetchItem): FollowerFetchCheck {
    const p = this.host.partitionByKey(it.key);
    if (!p) return { ok: false, error: this.host.image.topicsById.has(it.fp.topicId) ? 'NOT_LEADER_OR_FOLLOWER' : 'UNKNOWN_TOPIC_OR_PARTITION' };
    return p.checkFollowerFetch(req.replicaId, req.brokerEpoch, it.fp.fetchOffset, it.fp.lastFetchedEpoch, it.fp.currentLeaderEpoch, it.fp.logStartOffset);
  }

  private hasData(fp: FetchPartitionRequest, replicaId: number, now: number): boolean {
    const p = this.host.partitionByKey(replicaKey(fp.topicId, fp.partition));
    if (!p || !p.isLeader) return true;
    return p.log.logEndOffset > fp.fetchOffset && !this.leaderThrottled(p, replicaId, now);
  }

  private leaderThrottled(p: ReplicaPartition, followerId: number, now: number): boolean {
    const host = this.host;
    const list = host.topicConfig(p.topicId).leaderReplicationThrottledReplicas;
    if (!isThrottledReplica(list, p.partition, host.brokerId)) return false;
    if (p.maximalIsr.includes(followerId)) return false;
    return host.leaderQuota.isExceeded(host.brokerConfig().leaderReplicationThrottledRate, now);
  }

  /** A leader's log changed: mark it in the sessions holding it, complete the parked fetches that now have data for it. */
  onPartitionChanged(p: ReplicaPartition): void {
    const k = p.key;
    const touched = this.sessions.markDirty(k);
    if (this.parked.size === 0) return;
    const now = this.host.scheduler.now();
    for (const pf of [...this.parked]) {
      if (pf.done) continue;
      if (pf.session) {
        const sp = touched.includes(pf.session) ? pf.session.partitions.get(k) : undefined;
        if (sp && this.hasData(sp, pf.request.replicaId, now)) this.complete(pf);
        continue;
      }
      pf.index ??= new Map(pf.items.map((it, i) => [it.key, i]));
      const i = pf.index.get(k);
      if (i !== undefined && pf.items[i]!.check!.ok && this.hasData(pf.items[i]!.fp, pf.request.replicaId, now)) this.complete(pf);
    }
  }

  /** Something a follower must hear or a fetch must re-check changed about one partition (HW, leader state, log start). */
  onLeaderStateChanged(p: ReplicaPartition): void {
    this.sessions.markDirty(p.key);
  }

  /** A broker registration or a config changed: every session looks at all its partitions again. */
  recheckAll(): void {
    this.sessions.markAllDirty();
  }

  /**
   * Before a leader appends to `p`: a follower whose session sits at the log end was caught up at
   * its session's last fetch (what walking the untouched partition on each fetch would record).
   */
  settle(p: ReplicaPartition): void {
    const leo = p.log.logEndOffset;
    for (const [s, sp] of this.sessions.holding(p.key)) {
      if (sp.fetchOffset === leo) p.creditIdleFetch(s.replicaId, s.brokerEpoch, s.lastFetchMs);
    }
  }

  forgetSessions(): void {
    this.sessions.clear();
  }

  /** The broker's incarnation ends: parked fetches are dropped unanswered (the socket closes), sessions forgotten. */
  clear(): void {
    for (const pf of this.parked) this.unpark(pf);
    this.parked.clear();
    for (const cf of this.parkedClients) this.unparkClient(cf);
    this.parkedClients.clear();
    this.sessions.clear();
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
    const session = pf.session;
    let budget = cfg.replicaFetchResponseMaxBytes;
    const items = [...pf.items];
    // Partitions that changed while this fetch was parked are answered too (checked by the next fetch).
    if (session && session.dirty.size > 0) {
      const named = new Set(items.map((it) => it.key));
      for (const key of session.dirty) {
        const sp = named.has(key) ? undefined : session.partitions.get(key);
        if (sp) items.push({ key, fp: sp, sp, check: null });
      }
    }
    const partitions: FetchPartitionResponse[] = [];
    for (const it of items) {
      const { fp, sp, check } = it;
      const p = host.partitionByKey(it.key);
      const answer = (error: KafkaErrorName, batches: RecordBatch[] = []): FetchPartitionResponse => partitionAnswer(fp, p, error, batches);
      if (check && !check.ok) {
        partitions.push('divergingEpoch' in check ? { ...answer(check.error), divergingEpoch: check.divergingEpoch } : answer(check.error));
        continue;
      }
      if (!p || !p.isLeader || (!check && p.leaderEpoch !== fp.currentLeaderEpoch)) {
        // Unchecked and no longer as the session knows it: the next fetch's check says why.
        if (!check) continue;
        partitions.push(answer('NOT_LEADER_OR_FOLLOWER'));
        continue;
      }
      let batches: RecordBatch[] = [];
      if (budget > 0 && !this.leaderThrottled(p, pf.request.replicaId, now)) {
        const read = host.readOrOffline(p, fp.fetchOffset, p.log.logEndOffset, Math.min(cfg.replicaFetchMaxBytes, budget));
        if (!read) {
          partitions.push(answer('KAFKA_STORAGE_ERROR'));
          continue;
        }
        batches = read;
        const bytes = batches.reduce((s, b) => s + b.sizeBytes, 0);
        budget -= bytes;
        host.traffic.replicationBytesOut += bytes;
        if (bytes > 0 && isThrottledReplica(host.topicConfig(p.topicId).leaderReplicationThrottledReplicas, p.partition, host.brokerId)) {
          host.leaderQuota.record(bytes, now);
        }
      }
      // Data left behind (budget, throttle) keeps the partition dirty: the next fetch sees it.
      if (session && sp && batches.length === 0 && p.log.logEndOffset > fp.fetchOffset) session.dirty.add(it.key);
      const a = answer('NONE', batches);
      if (!pf.full && sp && batches.length === 0 && a.highWatermark === sp.sentHighWatermark && a.logStartOffset === sp.sentLogStartOffset) continue;
      if (sp) {
        sp.sentHighWatermark = a.highWatermark;
        sp.sentLogStartOffset = a.logStartOffset;
      }
      partitions.push(a);
    }
    pf.reply(session ? { sessionId: session.id, partitions } : { partitions });
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
    for (const fp of req.sessionView ? req.sessionView.partitions() : req.partitions) {
      const found = this.host.leaderReplica(fp.topic, fp.partition, fp.currentLeaderEpoch, true);
      if (!found.ok) return true;
      const log = found.replica.log;
      if (fp.fetchOffset < log.logStartOffset || fp.fetchOffset > log.logEndOffset) return true;
      const upTo = req.isolationLevel === 'read_committed' ? this.host.lastStableOffsetOrOffline(found.replica) : log.highWatermark;
      if (upTo === null) return true;
      if (fp.fetchOffset >= upTo) continue;
      if (req.minBytes <= 1) return true;
      const batches = this.host.readOrOffline(found.replica, fp.fetchOffset, upTo, Math.min(fp.partitionMaxBytes, req.minBytes - bytes));
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
      const req = cf.request;
      const concerned = req.sessionView ? req.sessionView.holds(p.topic, p.partition) : req.partitions.some((fp) => fp.topic === p.topic && fp.partition === p.partition);
      if (cf.done || !concerned) continue;
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
    // KIP-74: only the first partition with data may exceed its limits (with its first batch).
    let anyData = false;
    const asked = cf.request.sessionView ? cf.request.sessionView.partitions() : cf.request.partitions;
    const partitions = asked.map((fp): ClientFetchPartitionResponse => {
      const none = { topic: fp.topic, partition: fp.partition, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, logEndOffset: -1, batches: [] };
      const found = host.leaderReplica(fp.topic, fp.partition, fp.currentLeaderEpoch, true);
      if (!found.ok) return { ...none, error: found.error };
      const log = found.replica.log;
      const hw = log.highWatermark;
      // read_committed reads below the LSO and is told which transactions in what it read were aborted (KIP-98).
      const committed = cf.request.isolationLevel === 'read_committed';
      const lso = committed ? host.lastStableOffsetOrOffline(found.replica) : log.lastStableOffsetIfKnown;
      if (lso === null) return { ...none, error: 'KAFKA_STORAGE_ERROR' };
      const known = { topic: fp.topic, partition: fp.partition, highWatermark: hw, lastStableOffset: lso, logStartOffset: log.logStartOffset, logEndOffset: log.logEndOffset };
      if (fp.fetchOffset < log.logStartOffset || fp.fetchOffset > log.logEndOffset) return { ...known, error: 'OFFSET_OUT_OF_RANGE', batches: [] };
      if (budget <= 0) return { ...known, error: 'NONE', batches: [] };
      const limit = Math.min(fp.partitionMaxBytes, budget);
      let batches = host.readOrOffline(found.replica, fp.fetchOffset, committed ? lso : hw, limit);
      if (!batches) return { ...none, error: 'KAFKA_STORAGE_ERROR' };
      if (anyData && batches.length > 0 && batches[0]!.sizeBytes > limit) batches = [];
      if (batches.length > 0) anyData = true;
      for (const b of batches) budget -= b.sizeBytes;
      if (!committed) return { ...known, error: 'NONE', batches };
      const until = batches.length > 0 ? batches[batches.length - 1]!.lastOffset + 1 : fp.fetchOffset;
      const abortedTransactions = batches.length > 0 ? log.abortedTransactions(fp.fetchOffset, until).map((t) => ({ producerId: t.producerId, firstOffset: t.firstOffset })) : [];
      return { ...known, error: 'NONE', batches, abortedTransactions };
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
