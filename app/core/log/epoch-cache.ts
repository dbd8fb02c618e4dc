/**
 * The leader-epoch cache of one replica (KIP-101/279): an ordered map epoch -> start offset.
 *
 * Invariants: epochs and start offsets both strictly increase along the list. Adding an entry
 * first removes every entry whose epoch is >= the new epoch or whose start offset is >= the new
 * start offset (so elections without writes in between leave only the newest epoch at that
 * offset). Truncating the log to X removes entries with startOffset >= X.
 * Mirrors apache/kafka `LeaderEpochFileCache` (`assign`, `endOffsetFor`, `truncateFromEnd/Start`).
 */
export interface EpochEntry {
  epoch: number;
  startOffset: number;
}

export class LeaderEpochCache {
  private list: EpochEntry[];

  constructor(entries: readonly EpochEntry[] = []) {
    this.list = entries.map((e) => ({ ...e }));
  }

  entries(): EpochEntry[] {
    return this.list.map((e) => ({ ...e }));
  }

  latest(): EpochEntry | undefined {
    return this.list[this.list.length - 1];
  }

  /** The latest cached epoch, or -1 when the cache is empty. */
  latestEpoch(): number {
    return this.latest()?.epoch ?? -1;
  }

  /** Record that `epoch` starts at `startOffset`. Returns true when the cache changed. */
  assign(epoch: number, startOffset: number): boolean {
    if (epoch < 0) return false;
    const last = this.latest();
    if (last && last.epoch === epoch && startOffset >= last.startOffset) return false;
    this.list = this.list.filter((e) => e.epoch < epoch && e.startOffset < startOffset);
    this.list.push({ epoch, startOffset });
    return true;
  }

  /**
   * `OffsetForLeaderEpoch`: the largest epoch <= `requested` and the offset where it ended
   * (the start of the next higher epoch, or the LEO for the latest epoch). (-1, -1) when unknown.
   */
  endOffsetFor(requested: number, logEndOffset: number): { epoch: number; endOffset: number } {
    const none = { epoch: -1, endOffset: -1 };
    if (requested === -1 || this.list.length === 0) return none;
    const last = this.latest()!;
    if (requested === last.epoch) return { epoch: requested, endOffset: logEndOffset };
    const higherIndex = this.list.findIndex((e) => e.epoch > requested);
    if (higherIndex < 0) return none;
    const higher = this.list[higherIndex]!;
    const floor = higherIndex > 0 ? this.list[higherIndex - 1] : undefined;
    if (!floor) return { epoch: requested, endOffset: higher.startOffset };
    return { epoch: floor.epoch, endOffset: higher.startOffset };
  }

  /** The epoch of the record at `offset` (the last entry starting at or before it), or -1. */
  epochForOffset(offset: number): number {
    let epoch = -1;
    for (const e of this.list) {
      if (e.startOffset <= offset) epoch = e.epoch;
      else break;
    }
    return epoch;
  }

  /** Remove entries that start at or after `endOffset` (the log was truncated to it). */
  truncateFromEnd(endOffset: number): boolean {
    const before = this.list.length;
    this.list = this.list.filter((e) => e.startOffset < endOffset);
    return this.list.length !== before;
  }

  /** The log start moved to `startOffset`: drop entries wholly before it, clamp the one it falls in. */
  truncateFromStart(startOffset: number): boolean {
    let changed = false;
    while (this.list.length > 1 && this.list[1]!.startOffset <= startOffset) {
      this.list.shift();
      changed = true;
    }
    const first = this.list[0];
    if (first && first.startOffset < startOffset) {
      first.startOffset = startOffset;
      changed = true;
    }
    return changed;
  }
}
