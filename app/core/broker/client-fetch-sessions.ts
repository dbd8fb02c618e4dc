/**
 * Incremental fetch sessions for consumers (KIP-227; Kafka's FetchSession.scala: FetchManager,
 * FetchSessionCache, FullFetchContext, IncrementalFetchContext), on one broker. A consumer's full
 * fetch (epoch 0) may open a session holding its partitions and their fetch positions; its next
 * fetches carry the session id and the next epoch, name only the partitions whose position changed
 * (plus those to forget), and are answered with only the partitions that have news: records, a
 * new high watermark or log start offset, or an error.
 *
 * Rules, as Kafka's:
 * - epoch 0: a full fetch; a session id given with it is closed first; a session is created
 *   when the cache has room (or can evict), else the answer's session id is 0 (none).
 * - epoch -1 (FINAL): a full fetch without a session (the session id given, if any, is closed).
 * - epoch > 0: the session must exist (FETCH_SESSION_ID_NOT_FOUND) with exactly that epoch
 *   (INVALID_FETCH_SESSION_EPOCH); the answer to either has no partitions and session id 0. Its
 *   partitions are updated, added and forgotten, and the epoch moves on (after INT32_MAX, 1). A
 *   session left with no partitions is closed and the fetch answered without one.
 * - a partition is left out of an incremental answer unless it carries records, a high watermark
 *   or log start offset other than the session last sent, or an error (after which its high
 *   watermark is forgotten, so it is sent again once the error clears); one that carried records
 *   moves to the end of the session, so the next answer's byte budget starts elsewhere.
 * - the cache holds `max.incremental.fetch.session.cache.slots` sessions; a new one may evict the
 *   least recently used if idle for more than 120 s, else the smallest session older than 120 s
 *   when the new one is larger.
 *
 * Followers keep their own sessions with their leaders (fetch-sessions.ts), which take no slots.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { ClientFetchPartition, ClientFetchPartitionResponse, ClientFetchRequest, ClientFetchResponse } from './messages.js';

/** Kafka's FetchSession constants: no session, the epoch of a full fetch, and the epoch that ends a session. */
export const INVALID_SESSION_ID = 0;
export const INITIAL_EPOCH = 0;
export const FINAL_EPOCH = -1;
/** Kafka's MinIncrementalFetchSessionEvictionMs (a constant, not a config). */
export const SESSION_EVICTION_MS = 120_000;
const INT32_MAX = 2 ** 31 - 1;

export function nextEpoch(epoch: number): number {
  if (epoch < 0) return FINAL_EPOCH;
  return epoch === INT32_MAX ? 1 : epoch + 1;
}

interface CachedPartition extends ClientFetchPartition {
  /** What the session last sent (-1: nothing yet, or an error since). */
  highWatermark: number;
  logStartOffset: number;
  /** The last stable offset last sent (KIP-98: a read_committed consumer reads below it). */
  lastStableOffset: number;
  /** Named by the client or changed on this broker since a fetch of the session last read it. */
  needsRead: boolean;
}

/** A partition an incremental fetch reads: named or changed since, never answered or in error, or with records below the HW left to send. */
const mustRead = (cp: CachedPartition): boolean => cp.needsRead || cp.highWatermark < 0 || cp.fetchOffset < cp.highWatermark;

class Session {
  lastUsedMs: number;
  epoch = nextEpoch(INITIAL_EPOCH);
  /** In Kafka's order: a partition that carried records moves to the end. */
  readonly partitions = new Map<string, CachedPartition>();

  constructor(
    readonly id: number,
    readonly creationMs: number,
  ) {
    this.lastUsedMs = creationMs;
  }

  /** The partitions a fetch of this session reads now (in the session's order). */
  toRead(): CachedPartition[] {
    const out: CachedPartition[] = [];
    for (const cp of this.partitions.values()) if (mustRead(cp)) out.push(cp);
    return out;
  }
}

const keyOf = (p: { topic: string; partition: number }): string => `${p.topic}\u0000${p.partition}`;

/**
 * What one fetch does with the cache, decided before the partitions are read. An incremental
 * fetch reads only the partitions that may have news (`Session.toRead`, again each time a parked
 * fetch is looked at): an idle consumer's fetch walks no partition's log. Kafka reads every
 * partition of the session on each fetch; what it would find in the others is what the session
 * sent last, so the answer is the same.
 */
export type FetchContext =
  | { kind: 'error'; error: Extract<KafkaErrorName, 'FETCH_SESSION_ID_NOT_FOUND' | 'INVALID_FETCH_SESSION_EPOCH'> }
  | { kind: 'sessionless'; partitions: ClientFetchPartition[] }
  | { kind: 'full'; partitions: ClientFetchPartition[] }
  | { kind: 'incremental'; session: Session; requestEpoch: number; view: ClientFetchSessionView };

export interface SessionCacheHost {
  now(): number;
  /** max.incremental.fetch.session.cache.slots, read when a session is to be created. */
  maxSlots(): number;
  /** A random int in [0, bound) (session ids). */
  randomInt(bound: number): number;
}

/** What the fetch purgatory reads of an incremental fetch: the partitions to read now, and whether a change to one concerns it. */
export interface ClientFetchSessionView {
  partitions(): ClientFetchPartition[];
  holds(topic: string, partition: number): boolean;
}

export class ClientFetchSessionCache {
  private readonly sessions = new Map<number, Session>();
  /** Topic → partition → the sessions holding it (markDirty without a walk of every session). */
  private readonly holders = new Map<string, Map<number, Set<Session>>>();

  constructor(private readonly host: SessionCacheHost) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Kafka's FetchManager.newContext: which partitions this fetch reads, and how it is answered. */
  newContext(req: ClientFetchRequest): FetchContext {
    const s = req.session;
    if (!s) return { kind: 'sessionless', partitions: req.partitions };
    if (s.epoch === INITIAL_EPOCH || s.epoch === FINAL_EPOCH) {
      const closing = this.sessions.get(s.id);
      if (closing) this.close(closing);
      return s.epoch === FINAL_EPOCH ? { kind: 'sessionless', partitions: req.partitions } : { kind: 'full', partitions: req.partitions };
    }
    const session = this.sessions.get(s.id);
    if (!session) return { kind: 'error', error: 'FETCH_SESSION_ID_NOT_FOUND' };
    if (session.epoch !== s.epoch) return { kind: 'error', error: 'INVALID_FETCH_SESSION_EPOCH' };
    for (const fp of req.partitions) {
      const cached = session.partitions.get(keyOf(fp));
      if (cached) Object.assign(cached, { fetchOffset: fp.fetchOffset, currentLeaderEpoch: fp.currentLeaderEpoch, partitionMaxBytes: fp.partitionMaxBytes, needsRead: true });
      else this.add(session, { ...fp, highWatermark: -1, logStartOffset: -1, lastStableOffset: -1, needsRead: true });
    }
    for (const f of s.forgotten) this.remove(session, f);
    if (session.partitions.size === 0) {
      this.close(session);
      return { kind: 'sessionless', partitions: req.partitions };
    }
    session.lastUsedMs = this.host.now();
    session.epoch = nextEpoch(session.epoch);
    return { kind: 'incremental', session, requestEpoch: s.epoch, view: { partitions: () => session.toRead(), holds: (topic, partition) => this.holders.get(topic)?.get(partition)?.has(session) ?? false } };
  }

  /** Something a consumer reads changed on partition `topic`-`partition` (its HW, log start, leadership): the sessions holding it read it next. */
  markDirty(topic: string, partition: number): void {
    const holding = this.holders.get(topic)?.get(partition);
    if (!holding) return;
    for (const s of holding) {
      const cp = s.partitions.get(keyOf({ topic, partition }));
      if (cp) cp.needsRead = true;
    }
  }

  /** A change that may concern any partition (metadata, configs): every session reads all its partitions next. */
  markAllDirty(): void {
    for (const s of this.sessions.values()) for (const cp of s.partitions.values()) cp.needsRead = true;
  }

  private add(session: Session, cp: CachedPartition): void {
    session.partitions.set(keyOf(cp), cp);
    let byPartition = this.holders.get(cp.topic);
    if (!byPartition) this.holders.set(cp.topic, (byPartition = new Map()));
    let holding = byPartition.get(cp.partition);
    if (!holding) byPartition.set(cp.partition, (holding = new Set()));
    holding.add(session);
  }

  private remove(session: Session, p: { topic: string; partition: number }): void {
    if (!session.partitions.delete(keyOf(p))) return;
    const byPartition = this.holders.get(p.topic);
    const holding = byPartition?.get(p.partition);
    if (!byPartition || !holding) return;
    holding.delete(session);
    if (holding.size === 0) byPartition.delete(p.partition);
    if (byPartition.size === 0) this.holders.delete(p.topic);
  }

  private close(session: Session): void {
    for (const cp of [...session.partitions.values()]) this.remove(session, cp);
    this.sessions.delete(session.id);
  }

  /** The answer the client gets, once the partitions of `ctx` were read into `res`. */
  respond(ctx: FetchContext, res: ClientFetchResponse): ClientFetchResponse {
    switch (ctx.kind) {
      case 'error':
        return { error: ctx.error, sessionId: INVALID_SESSION_ID, partitions: [] };
      case 'sessionless':
        return { sessionId: INVALID_SESSION_ID, partitions: res.partitions };
      case 'full':
        return { sessionId: this.maybeCreate(ctx.partitions, res.partitions), partitions: res.partitions };
      case 'incremental':
        return this.incrementalAnswer(ctx.session, ctx.requestEpoch, res);
    }
  }

  private incrementalAnswer(session: Session, requestEpoch: number, res: ClientFetchResponse): ClientFetchResponse {
    // Another fetch of the same session came in meanwhile (a duplicate): Kafka answers this one so.
    if (session.epoch !== nextEpoch(requestEpoch)) return { error: 'INVALID_FETCH_SESSION_EPOCH', sessionId: session.id, partitions: [] };
    const out: ClientFetchPartitionResponse[] = [];
    for (const r of res.partitions) {
      const key = keyOf(r);
      const cached = session.partitions.get(key);
      if (!cached) continue;
      let mustRespond = r.batches.length > 0;
      if (cached.highWatermark !== r.highWatermark) {
        mustRespond = true;
        cached.highWatermark = r.highWatermark;
      }
      if (cached.logStartOffset !== r.logStartOffset) {
        mustRespond = true;
        cached.logStartOffset = r.logStartOffset;
      }
      if (cached.lastStableOffset !== r.lastStableOffset) {
        mustRespond = true;
        cached.lastStableOffset = r.lastStableOffset;
      }
      if (r.error !== 'NONE') {
        mustRespond = true;
        cached.highWatermark = -1;
      }
      cached.needsRead = false;
      if (!mustRespond) continue;
      out.push(r);
      if (r.batches.length > 0) {
        session.partitions.delete(key);
        session.partitions.set(key, cached);
      }
    }
    return { sessionId: session.id, partitions: out };
  }

  /** FetchSessionCache.maybeCreateSession for an unprivileged (consumer) session. */
  private maybeCreate(requested: ClientFetchPartition[], answered: ClientFetchPartitionResponse[]): number {
    const now = this.host.now();
    const size = requested.length;
    if (size === 0) return INVALID_SESSION_ID;
    if (this.sessions.size >= this.host.maxSlots() && !this.tryEvict(size, now)) return INVALID_SESSION_ID;
    let id: number;
    do id = 1 + this.host.randomInt(INT32_MAX - 1);
    while (this.sessions.has(id));
    const session = new Session(id, now);
    const byKey = new Map(answered.map((r) => [keyOf(r), r]));
    for (const fp of requested) {
      const r = byKey.get(keyOf(fp));
      const { topic, partition, fetchOffset, currentLeaderEpoch, partitionMaxBytes } = fp;
      const failed = r === undefined || r.error !== 'NONE';
      this.add(session, { topic, partition, fetchOffset, currentLeaderEpoch, partitionMaxBytes, highWatermark: failed ? -1 : r.highWatermark, logStartOffset: r?.logStartOffset ?? -1, lastStableOffset: r?.lastStableOffset ?? -1, needsRead: false });
    }
    this.sessions.set(id, session);
    return id;
  }

  private tryEvict(newSize: number, now: number): boolean {
    let lru: Session | undefined;
    let smallestOld: Session | undefined;
    for (const s of this.sessions.values()) {
      if (!lru || s.lastUsedMs < lru.lastUsedMs || (s.lastUsedMs === lru.lastUsedMs && s.id < lru.id)) lru = s;
      if (now - s.creationMs > SESSION_EVICTION_MS) {
        const smaller = !smallestOld || s.partitions.size < smallestOld.partitions.size || (s.partitions.size === smallestOld.partitions.size && s.id < smallestOld.id);
        if (smaller) smallestOld = s;
      }
    }
    if (!lru) return false;
    if (now - lru.lastUsedMs > SESSION_EVICTION_MS) {
      this.close(lru);
      return true;
    }
    // EvictableKey order (privileged, size, id): the new key (size, id 0) beats a strictly smaller session only.
    if (!smallestOld || newSize <= smallestOld.partitions.size) return false;
    this.close(smallestOld);
    return true;
  }

  clear(): void {
    this.sessions.clear();
    this.holders.clear();
  }
}
