/**
 * Incremental fetch sessions (KIP-227), the leader's side: one session per follower broker holds
 * the partitions that follower fetches with the fetch position it last sent for each, and what
 * the leader last told it (HW, log start). A follower's full fetch (session epoch 0) opens a new
 * session; its incremental fetches carry only partitions whose position changed, plus those it
 * forgets, and the answer carries only partitions with news (records, HW, log start, an error).
 *
 * Beyond KIP-227 (where the leader still reads every partition of the session on each fetch), an
 * idle partition is not walked at all: the leader marks a partition *dirty* in the sessions that
 * hold it when something about it changes (an append, the HW, the log start, its leader state,
 * an AlterPartition answer, the registration of one of its replicas' brokers, a config), and a
 * fetch looks at the partitions it names plus the dirty ones only. What a walk of an untouched partition would have
 * changed is applied when it matters: before a leader appends, `settle` credits each follower
 * sitting at the log end with its session's last fetch (Kafka's lastCaughtUpTimeMs), which is what
 * every fetch since its position last changed would have done.
 *
 * Invariants: a session belongs to one (follower, broker epoch); its epoch advances by one per
 * incremental fetch, and a fetch naming another id or epoch is answered with
 * FETCH_SESSION_ID_NOT_FOUND / INVALID_FETCH_SESSION_EPOCH (the follower then sends a full fetch);
 * a partition leaves the dirty set only when a fetch has checked it.
 */
import type { FetchPartitionRequest } from './messages.js';

export interface SessionPartition extends FetchPartitionRequest {
  key: string;
  /** The HW and log start this session last told the follower (-2: never). */
  sentHighWatermark: number;
  sentLogStartOffset: number;
}

/** Which sessions hold a partition, kept by the sessions as they gain and lose partitions. */
type HolderIndex = Map<string, LeaderFetchSession[]>;

export class LeaderFetchSession {
  readonly partitions = new Map<string, SessionPartition>();
  /** Partitions whose state changed since a fetch of this session last checked them. */
  readonly dirty = new Set<string>();
  /** The epoch the next incremental fetch must carry. */
  epoch = 1;

  constructor(
    readonly id: number,
    readonly replicaId: number,
    readonly brokerEpoch: number,
    /** When the follower's latest fetch of this session arrived. */
    public lastFetchMs: number,
    private readonly holders: HolderIndex = new Map(),
  ) {}

  /** Add or update a partition at the position the follower sent. */
  put(key: string, fp: FetchPartitionRequest): SessionPartition {
    const old = this.partitions.get(key);
    const sp: SessionPartition = {
      key,
      topicId: fp.topicId,
      partition: fp.partition,
      fetchOffset: fp.fetchOffset,
      lastFetchedEpoch: fp.lastFetchedEpoch,
      currentLeaderEpoch: fp.currentLeaderEpoch,
      ...(fp.logStartOffset !== undefined ? { logStartOffset: fp.logStartOffset } : {}),
      sentHighWatermark: old?.sentHighWatermark ?? -2,
      sentLogStartOffset: old?.sentLogStartOffset ?? -2,
    };
    this.partitions.set(key, sp);
    if (!old) {
      const list = this.holders.get(key);
      if (list) list.push(this);
      else this.holders.set(key, [this]);
    }
    return sp;
  }

  forget(key: string): void {
    if (this.partitions.delete(key)) this.unhold(key);
    this.dirty.delete(key);
  }

  /** The session is replaced or dropped: it holds nothing any more. */
  release(): void {
    for (const key of this.partitions.keys()) this.unhold(key);
  }

  private unhold(key: string): void {
    const list = this.holders.get(key);
    if (!list) return;
    const i = list.indexOf(this);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.holders.delete(key);
  }
}

export type SessionError = 'FETCH_SESSION_ID_NOT_FOUND' | 'INVALID_FETCH_SESSION_EPOCH';

/** The sessions of one leader broker (at most one per follower broker: a new full fetch replaces it). */
export class FetchSessionCache {
  private readonly byReplica = new Map<number, LeaderFetchSession>();
  /**
   * Partition → the sessions holding it, so a change to one partition touches only its holders
   * (a leader of thousands of partitions changes thousands at once when a broker is fenced).
   */
  private readonly holders: HolderIndex = new Map();
  private nextId = 1;

  /** A full fetch: a new session holding exactly `partitions`. */
  open(replicaId: number, brokerEpoch: number, nowMs: number): LeaderFetchSession {
    this.byReplica.get(replicaId)?.release();
    const s = new LeaderFetchSession(this.nextId++, replicaId, brokerEpoch, nowMs, this.holders);
    this.byReplica.set(replicaId, s);
    return s;
  }

  /** An incremental fetch's session, or the error Kafka answers for a wrong id or epoch. */
  resolve(replicaId: number, sessionId: number, epoch: number): LeaderFetchSession | SessionError {
    const s = this.byReplica.get(replicaId);
    if (!s || s.id !== sessionId) return 'FETCH_SESSION_ID_NOT_FOUND';
    if (s.epoch !== epoch) return 'INVALID_FETCH_SESSION_EPOCH';
    return s;
  }

  /** Something about partition `key` changed: every session holding it must look at it again. */
  markDirty(key: string): LeaderFetchSession[] {
    const out = this.holders.get(key);
    if (!out) return [];
    for (const s of out) s.dirty.add(key);
    return out;
  }

  /** A change that may concern any partition (a broker registration, a config): look at all again. */
  markAllDirty(): void {
    for (const s of this.byReplica.values()) for (const k of s.partitions.keys()) s.dirty.add(k);
  }

  /** Sessions holding `key`, with the position each follower last sent for it. */
  *holding(key: string): Iterable<[LeaderFetchSession, SessionPartition]> {
    const list = this.holders.get(key);
    if (!list) return;
    for (const s of list) yield [s, s.partitions.get(key)!];
  }

  clear(): void {
    this.byReplica.clear();
    this.holders.clear();
  }
}
