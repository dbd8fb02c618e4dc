/**
 * Compaction's guarantees as properties, over any sequence of keyed writes and tombstones (in
 * batches of one to three records), segment rolls, cleanings with any offset-map size and I/O
 * buffer, and consumers that read a prefix of the log in between:
 *   - every record a reader gets is the record written at that offset (nothing moves, nothing is
 *     made up) and offsets only grow;
 *   - each key's latest write is still in the log at its original offset until it is a
 *     tombstone whose delete horizon has passed;
 *   - a cleaning never moves the log end offset (nor the high watermark, nor the log start);
 *   - once the whole log below the active segment is clean, it holds exactly each key's latest
 *     record, at its original offset — or nothing for a key whose tombstone has aged out;
 *   - a consumer that read a prefix before some cleanings and reads on to the end holds the same
 *     latest-value table as one that read everything at once (while no tombstone ages out, the
 *     window delete.retention.ms gives consumers).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompactedTestLog, kv, text } from '../../test-support/cleaner-harness.js';
import { recordOffset } from '../records.js';

type Op =
  | { kind: 'write'; entries: [number, number | null][] }
  | { kind: 'roll' }
  | { kind: 'advance'; ms: number }
  | { kind: 'clean'; slots: number; buffer: number }
  | { kind: 'consume'; reader: number; maxBytes: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('write' as const), entries: fc.array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.option(fc.integer({ min: 0, max: 999 }), { freq: 4 })), { minLength: 1, maxLength: 3 }) }) },
  { weight: 2, arbitrary: fc.constant<Op>({ kind: 'roll' }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 400 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('clean' as const), slots: fc.integer({ min: 2, max: 20 }), buffer: fc.integer({ min: 1, max: 600 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('consume' as const), reader: fc.integer({ min: 0, max: 2 }), maxBytes: fc.integer({ min: 1, max: 300 }) }) },
);

interface Written {
  key: string;
  value: string | null;
}

/** A reader of the log: where it is, and its latest-value table (null: deleted). */
class Reader {
  position = 0;
  readonly table = new Map<string, string | null>();
  /** Read on from its position, at most `maxBytes` a fetch, up to the high watermark (`all`: to the end). */
  read(t: CompactedTestLog, truth: Map<number, Written>, maxBytes: number, all = false): void {
    do {
      const hw = t.log.highWatermark;
      if (this.position >= hw) return;
      const batches = t.log.read(this.position, hw, maxBytes);
      if (batches.length === 0) return;
      for (const b of batches) {
        b.records.forEach((r, i) => {
          const offset = recordOffset(b, i);
          if (offset < this.position) return;
          expect(truth.get(offset), `offset ${offset}`).toEqual({ key: text(r.key), value: text(r.value) });
          this.table.set(text(r.key)!, text(r.value));
        });
        expect(b.lastOffset + 1).toBeGreaterThan(this.position);
        this.position = b.lastOffset + 1;
      }
    } while (all);
  }
}

function latestWrites(truth: Map<number, Written>): Map<string, { offset: number; value: string | null }> {
  const latest = new Map<string, { offset: number; value: string | null }>();
  for (const [offset, w] of [...truth].sort((a, b) => a[0] - b[0])) latest.set(w.key, { offset, value: w.value });
  return latest;
}

/** Run the ops; returns the log, what was written where, and the readers. */
function run(ops: Op[], deleteRetentionMs: number) {
  const t = new CompactedTestLog(150);
  const truth = new Map<number, Written>();
  const readers = [new Reader(), new Reader(), new Reader()];
  const cfg = { deleteRetentionMs };
  for (const op of ops) {
    switch (op.kind) {
      case 'write': {
        const b = t.append(op.entries.map(([k, v]) => kv(k, v === null ? null : `v${v}`)));
        op.entries.forEach(([k, v], i) => truth.set(b.baseOffset + i, { key: String(k), value: v === null ? null : `v${v}` }));
        break;
      }
      case 'roll':
        t.rollNow();
        break;
      case 'advance':
        t.nowMs += op.ms;
        break;
      case 'clean': {
        const before = [t.log.logStartOffset, t.log.highWatermark, t.log.logEndOffset];
        const ltc = t.logToClean(cfg);
        if (ltc.cleanableBytes > 0) t.clean(ltc, { slots: op.slots, bufferBytes: op.buffer, cfg });
        expect([t.log.logStartOffset, t.log.highWatermark, t.log.logEndOffset]).toEqual(before);
        checkLatestKept(t, truth);
        break;
      }
      case 'consume':
        readers[op.reader]!.read(t, truth, op.maxBytes);
        break;
    }
  }
  return { t, truth, readers, cfg };
}

/** Each key's latest write is in the log at its offset, unless it is a tombstone past its horizon. */
function checkLatestKept(t: CompactedTestLog, truth: Map<number, Written>): void {
  const present = new Map(t.records().map(([o, k, v]) => [o, { key: k, value: v }]));
  for (const [offset, w] of latestWrites(truth).entries()) {
    const found = present.get(w.offset);
    if (w.value === null && found === undefined) continue; // a tombstone that aged out
    expect(found, `key ${offset}'s latest write at ${w.offset}`).toEqual({ key: offset, value: w.value });
  }
}

/** Clean the whole log below a fresh active segment, with a map large enough for every key. */
function cleanFully(t: CompactedTestLog, cfg: { deleteRetentionMs: number }): void {
  t.rollNow();
  const ltc = t.logToClean(cfg);
  if (ltc.cleanableBytes > 0) t.clean(ltc, { cfg });
  // A second pass cleans over what the first one's checkpoint left (records whose tombstone horizon is due now).
  t.clean(t.toClean(0, t.log.segments().at(-1)!.baseOffset), { cfg });
  expect(t.log.cleanerCheckpoint()).toBe(t.log.logEndOffset);
}

describe('compaction (property)', () => {
  it('a reader from offset 0 gets each key exactly once, its latest write at its original offset; the log end never moves; prefix readers agree', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 60 }), (ops) => {
        const { t, truth, readers, cfg } = run(ops, 1e12);
        const leo = t.log.logEndOffset;
        cleanFully(t, cfg);
        expect(t.log.logEndOffset).toBe(leo);
        const latest = latestWrites(truth);
        const expected = [...latest].map(([k, w]) => [w.offset, k, w.value] as const).sort((a, b) => a[0] - b[0]);
        expect(t.records()).toEqual(expected);
        const fresh = new Reader();
        fresh.read(t, truth, 1 << 20, true);
        const table = new Map([...latest].map(([k, w]) => [k, w.value]));
        expect(fresh.table).toEqual(table);
        for (const r of readers) {
          r.read(t, truth, 1 << 20, true);
          expect(r.table).toEqual(table);
        }
      }),
    );
  });

  it('once delete.retention.ms has passed since the cleaning that reached a tombstone, the next cleaning leaves nothing of its key', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 60 }), fc.integer({ min: 0, max: 2_000 }), (ops, retention) => {
        const { t, truth, cfg } = run(ops, retention);
        const leo = t.log.logEndOffset;
        cleanFully(t, cfg); // reaches every tombstone: each gets a horizon by now + retention at the latest
        t.nowMs += retention;
        cleanFully(t, cfg);
        expect(t.log.logEndOffset).toBe(leo);
        const live = [...latestWrites(truth)].filter(([, w]) => w.value !== null);
        const expected = live.map(([k, w]) => [w.offset, k, w.value] as const).sort((a, b) => a[0] - b[0]);
        expect(t.records()).toEqual(expected);
      }),
    );
  });
});
