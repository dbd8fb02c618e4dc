/**
 * What a partition's leader knows of each of its followers (Kafka's Replica objects of a
 * Partition): its LEO, when it was last caught up, its last fetch and the leader LEO then, its
 * broker epoch, and the log start offset it reported; and how a fetch updates them (Kafka's
 * Replica.updateFetchStateOrThrow).
 *
 * Apart from the partition (partition.ts), which decides from these whether a follower is caught
 * up, whether it joins or leaves the ISR and where the HW goes: this file only records what the
 * fetches say, so that bookkeeping reads in one place.
 */
import type { MetadataImage } from '../metadata/image.js';
import type { PartitionState } from '../metadata/records.js';

/**
 * "Never" for the follower times. Kafka uses 0 (the epoch, long ago on a real clock) so that a
 * follower that never caught up does not hold back the HW; the virtual clock starts near 0, where
 * 0 would read as "just now" for the first replica.lag.time.max.ms.
 */
const NEVER = Number.NEGATIVE_INFINITY;

export interface FollowerState {
  logEndOffset: number;
  lastCaughtUpMs: number;
  lastFetchLeaderLEO: number;
  lastFetchMs: number;
  brokerEpoch: number;
  /** The log start offset the follower sent in its last fetch (-1 unknown): DeleteRecords' low watermark. */
  logStartOffset: number;
}

/** A follower the leader has not heard from. */
const unknownFollower = (): FollowerState => ({ logEndOffset: -1, lastCaughtUpMs: NEVER, lastFetchLeaderLEO: -1, lastFetchMs: NEVER, brokerEpoch: -1, logStartOffset: -1 });

/** The followers of one leader replica, by broker id. */
export class FollowerStates extends Map<number, FollowerState> {
  /**
   * This broker leads a new epoch at `leo`: each follower starts over, the ISR members as caught
   * up now; a leader that led before keeps what the followers last told it.
   */
  startEpoch(next: PartitionState, selfId: number, wasLeader: boolean, leo: number, now: number): void {
    for (let i = 0; i < next.replicas.length; i++) {
      const r = next.replicas[i]!;
      if (r === selfId) continue;
      const old = this.get(r);
      const inSync = next.isr.includes(r);
      this.set(r, {
        logEndOffset: wasLeader && old ? old.logEndOffset : -1,
        lastCaughtUpMs: inSync ? now : NEVER,
        lastFetchLeaderLEO: wasLeader ? leo : -1,
        lastFetchMs: wasLeader ? now : NEVER,
        brokerEpoch: old?.brokerEpoch ?? -1,
        logStartOffset: wasLeader && old ? old.logStartOffset : -1,
      });
    }
  }

  /** The replicas of `next` are the followers: others are forgotten, new ones are unknown. */
  matchReplicas(next: PartitionState, selfId: number): void {
    this.forEach((_, id, map) => {
      if (!next.replicas.includes(id)) map.delete(id);
    });
    for (let i = 0; i < next.replicas.length; i++) {
      const r = next.replicas[i]!;
      if (r !== selfId && !this.has(r)) {
        this.set(r, unknownFollower());
      }
    }
  }

  /** A follower fetched at `fetchOffset` while the leader's LEO was `leaderLEO`. */
  recordFetch(followerId: number, fetchOffset: number, leaderLEO: number, brokerEpoch: number, logStartOffset: number, now: number): void {
    let f = this.get(followerId);
    if (!f) {
      f = unknownFollower();
      this.set(followerId, f);
    }
    if (fetchOffset >= leaderLEO) f.lastCaughtUpMs = Math.max(f.lastCaughtUpMs, now);
    else if (fetchOffset >= f.lastFetchLeaderLEO) f.lastCaughtUpMs = Math.max(f.lastCaughtUpMs, f.lastFetchMs);
    f.lastFetchLeaderLEO = Math.max(leaderLEO, f.lastFetchLeaderLEO);
    f.lastFetchMs = now;
    f.logEndOffset = fetchOffset;
    f.brokerEpoch = brokerEpoch;
    f.logStartOffset = logStartOffset;
  }

  /**
   * A follower whose fetch session sits at the leader's log end (`leaderLEO`) fetched at `atMs`
   * without naming this partition: recorded as the fetch Kafka would have walked.
   */
  creditIdleFetch(followerId: number, brokerEpoch: number, atMs: number, leaderLEO: number): void {
    const f = this.get(followerId);
    if (!f || f.brokerEpoch !== brokerEpoch || f.logEndOffset !== leaderLEO || atMs <= f.lastFetchMs) return;
    f.lastCaughtUpMs = Math.max(f.lastCaughtUpMs, atMs);
    f.lastFetchLeaderLEO = Math.max(leaderLEO, f.lastFetchLeaderLEO);
    f.lastFetchMs = atMs;
  }

  /** The lowest of `own` and the log start offsets followers on live (unfenced) brokers reported. */
  lowWatermark(own: number, image: MetadataImage): number {
    let low = own;
    for (const [id, f] of this) {
      const b = image.brokers.get(id);
      if (b && !b.fenced && f.logStartOffset < low) low = f.logStartOffset;
    }
    return low;
  }

  /** The broker epoch a follower sent in its last fetch, if known. */
  brokerEpochOf(brokerId: number): number | undefined {
    const e = this.get(brokerId)?.brokerEpoch;
    return e === undefined || e < 0 ? undefined : e;
  }
}
