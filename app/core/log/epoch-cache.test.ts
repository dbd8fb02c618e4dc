import { describe, expect, it } from 'vitest';
import { LeaderEpochCache } from './epoch-cache.js';

describe('LeaderEpochCache', () => {
  it('scenario 18: epoch cache lookup', () => {
    const cache = new LeaderEpochCache([
      { epoch: 0, startOffset: 0 },
      { epoch: 2, startOffset: 50 },
      { epoch: 5, startOffset: 80 },
    ]);
    const leo = 120;
    expect(cache.endOffsetFor(5, leo)).toEqual({ epoch: 5, endOffset: 120 });
    expect(cache.endOffsetFor(3, leo)).toEqual({ epoch: 2, endOffset: 80 });
    expect(cache.endOffsetFor(2, leo)).toEqual({ epoch: 2, endOffset: 80 });
    expect(cache.endOffsetFor(1, leo)).toEqual({ epoch: 0, endOffset: 50 });
    expect(cache.endOffsetFor(-1, leo)).toEqual({ epoch: -1, endOffset: -1 });
    expect(cache.endOffsetFor(6, leo)).toEqual({ epoch: -1, endOffset: -1 });
    // A new leader in epoch 6 with LEO 120 and no writes caches 6 -> 120 at once.
    cache.assign(6, leo);
    expect(cache.latest()).toEqual({ epoch: 6, startOffset: 120 });
    expect(cache.endOffsetFor(5, leo)).toEqual({ epoch: 5, endOffset: 120 });
  });

  it('successive elections without writes keep only the newest epoch at that offset', () => {
    const cache = new LeaderEpochCache([
      { epoch: 0, startOffset: 0 },
      { epoch: 1, startOffset: 5 },
    ]);
    cache.assign(3, 5);
    expect(cache.entries()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 3, startOffset: 5 },
    ]);
  });

  it('a request for an epoch below every cached one answers with the first start offset', () => {
    const cache = new LeaderEpochCache([{ epoch: 3, startOffset: 10 }]);
    expect(cache.endOffsetFor(1, 20)).toEqual({ epoch: 1, endOffset: 10 });
  });

  it('truncation removes entries at or past the new end and clamps at the new start', () => {
    const cache = new LeaderEpochCache([
      { epoch: 0, startOffset: 0 },
      { epoch: 2, startOffset: 50 },
      { epoch: 5, startOffset: 80 },
    ]);
    cache.truncateFromEnd(80);
    expect(cache.latestEpoch()).toBe(2);
    cache.truncateFromStart(60);
    expect(cache.entries()).toEqual([{ epoch: 2, startOffset: 60 }]);
    expect(cache.epochForOffset(70)).toBe(2);
    expect(cache.epochForOffset(10)).toBe(-1);
  });

  it('does not re-add the current epoch at a later offset', () => {
    const cache = new LeaderEpochCache();
    expect(cache.assign(0, 0)).toBe(true);
    expect(cache.assign(0, 7)).toBe(false);
    expect(cache.entries()).toEqual([{ epoch: 0, startOffset: 0 }]);
  });
});
