import { describe, expect, it } from 'vitest';
import { fatesOf, type KeyedWrite } from './compaction-scenario.js';

describe('the compaction drill’s report', () => {
  const writes: KeyedWrite[] = [
    { offset: 0, key: 'user-1', value: 'a1' },
    { offset: 1, key: 'user-2', value: 'b1' },
    { offset: 2, key: 'user-3', value: 'c1' },
    { offset: 3, key: 'user-1', value: 'a2' },
    { offset: 4, key: 'user-2', value: null },
    { offset: 5, key: 'user-3', value: 'c2' },
  ];

  it('says of every write whether it went and why: superseded, deleted by a tombstone, latest, not cleaned yet', () => {
    const fates = fatesOf(writes, new Set([2, 3, 4, 5]), 5);
    expect(fates.map((f) => [f.write.offset, f.kept, f.why])).toEqual([
      [0, false, 'superseded by a later write of user-1 at offset 3'],
      [1, false, "deleted: user-2's tombstone at offset 4 superseded it"],
      [2, true, "kept for now: user-3's newer write at offset 5 was not cleaned over yet, so the cleaner did not know of it"],
      [3, true, 'the latest value of user-1: compaction keeps it at its original offset'],
      [4, true, 'a tombstone, kept for delete.retention.ms after the cleaning that reached it, so readers from the start still see user-2 deleted'],
      [5, true, 'not cleaned yet: it is above the cleaner’s checkpoint (the dirty head or the active segment)'],
    ]);
    expect(fatesOf(writes, new Set([3, 5]), 6)[4]!.why).toBe('a tombstone past delete.retention.ms: removed, and with it every trace of user-2');
  });
});
