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
}

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
}

const keyOf = (p: { topic: string; partition: number }): string => `${p.topic}\u0000${p.partition}`;

/** What one fetch does with the cache, decided before the partitions are read. */
export type FetchContext =
  | { kind: 'error'; error: Extract<KafkaErrorName, 'FETCH_SESSION_ID_NOT_FOUND' | 'INVALID_FETCH_SESSION_EPOCH'> }
  | { kind: 'sessionless'; partitions: ClientFetchPartition[] }
  | { kind: 'full'; partitions: ClientFetchPartition[] }
  | { kind: 'incremental'; session: Session; requestEpoch: number; partitions: ClientFetchPartition[] };

export interface SessionCacheHost {
  now(): number;
  /** max.incremental.fetch.session.cache.slots, read when a session is to be created. */
  maxSlots(): number;
  /** A random int in [0, bound) (session ids). */
  randomInt(bound: number): number;
}

export class ClientFetchSessionCache {
  private readonly sessions = new Map<number, Session>();

  constructor(private readonly host: SessionCacheHost) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Kafka's FetchManager.newContext: which partitions this fetch reads, and how it is answered. */
  newContext(req: ClientFetchRequest): FetchContext {
    const s = req.session;
    if (!s) return { kind: 'sessionless', partitions: req.partitions };
    if (s.epoch === INITIAL_EPOCH || s.epoch === FINAL_EPOCH) {
      if (s.id !== INVALID_SESSION_ID) this.sessions.delete(s.id);
      return s.epoch === FINAL_EPOCH ? { kind: 'sessionless', partitions: req.partitions } : { kind: 'full', partitions: req.partitions };
    }
    const session = this.sessions.get(s.id);
    if (!session) return { kind: 'error', error: 'FETCH_SESSION_ID_NOT_FOUND' };
    if (session.epoch !== s.epoch) return { kind: 'error', error: 'INVALID_FETCH_SESSION_EPOCH' };
    for (const fp of req.partitions) {
      const key = keyOf(fp);
      const cached = session.partitions.get(key);
      if (cached) Object.assign(cached, { fetchOffset: fp.fetchOffset, currentLeaderEpoch: fp.currentLeaderEpoch, partitionMaxBytes: fp.partitionMaxBytes });
      else session.partitions.set(key, { ...fp, highWatermark: -1, logStartOffset: -1 });
    }
    for (const f of s.forgotten) session.partitions.delete(keyOf(f));
    if (session.partitions.size === 0) {
      this.sessions.delete(session.id);
      return { kind: 'sessionless', partitions: req.partitions };
    }
    session.lastUsedMs = this.host.now();
    session.epoch = nextEpoch(session.epoch);
    const partitions = [...session.partitions.values()].map(({ topic, partition, fetchOffset, currentLeaderEpoch, partitionMaxBytes }) => ({ topic, partition, fetchOffset, currentLeaderEpoch, partitionMaxBytes }));
    return { kind: 'incremental', session, requestEpoch: s.epoch, partitions };
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
      if (r.error !== 'NONE') {
        mustRespond = true;
        cached.highWatermark = -1;
      }
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
      session.partitions.set(keyOf(fp), { ...fp, highWatermark: r?.highWatermark ?? -1, logStartOffset: r?.logStartOffset ?? -1 });
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
      this.sessions.delete(lru.id);
      return true;
    }
    // EvictableKey order (privileged, size, id): the new key (size, id 0) beats a strictly smaller session only.
    if (!smallestOld || newSize <= smallestOld.partitions.size) return false;
    this.sessions.delete(smallestOld.id);
    return true;
  }

  clear(): void {
    this.sessions.clear();
  }
}
