/**
 * The compaction drill: keyed updates and deletes on a compacted topic, then the log cleaner
 * runs, and the drill tells which records went and why — superseded by a later write of the same
 * key, deleted by a tombstone, or kept as their key's latest value — by reading the log back from
 * its start (across the gaps the cleaner left) and comparing it with what it wrote.
 */
import type { TopicCompactionView } from '../../../../app/api/compaction-contract.js';
import type { DrillScenario, DrillStep } from './runner.js';
import { StepError, value, type DrillContext } from './runner.js';
import { createTopicStep, restoreEveryBroker, waitEveryBrokerRunning } from './steps.js';

/** One write of the drill: where it went and what it was. */
export interface KeyedWrite {
  offset: number;
  key: string;
  value: string | null;
}

/** What became of one write, in words. */
export interface WriteFate {
  write: KeyedWrite;
  kept: boolean;
  why: string;
}

const SEGMENT_MS = 10_000;
const DELETE_RETENTION_MS = 60_000;

/**
 * Why each write is or is not in the log now: `present` holds the offsets a reader from the start
 * got; `checkpoint` is the leader cleaner's (what it cleaned below).
 */
export function fatesOf(writes: readonly KeyedWrite[], present: ReadonlySet<number>, checkpoint: number): WriteFate[] {
  return writes.map((w) => {
    const later = writes.filter((x) => x.key === w.key && x.offset > w.offset);
    const next = later[0];
    const kept = present.has(w.offset);
    if (kept) {
      if (w.offset >= checkpoint) return { write: w, kept, why: 'not cleaned yet: it is above the cleaner’s checkpoint (the dirty head or the active segment)' };
      if (next) return { write: w, kept, why: `kept for now: ${w.key}'s newer write at offset ${next.offset} was not cleaned over yet, so the cleaner did not know of it` };
      if (w.value === null) return { write: w, kept, why: `a tombstone, kept for delete.retention.ms after the cleaning that reached it, so readers from the start still see ${w.key} deleted` };
      return { write: w, kept, why: `the latest value of ${w.key}: compaction keeps it at its original offset` };
    }
    if (!next) return { write: w, kept, why: w.value === null ? `a tombstone past delete.retention.ms: removed, and with it every trace of ${w.key}` : 'removed' };
    const latest = later[later.length - 1]!;
    if (latest.value === null) return { write: w, kept, why: `deleted: ${w.key}'s tombstone at offset ${latest.offset} superseded it` };
    return { write: w, kept, why: `superseded by a later write of ${w.key} at offset ${next.offset}` };
  });
}

/** Read the partition from its log start to its high watermark, across compaction's gaps. */
async function readAll(ctx: DrillContext): Promise<Set<number>> {
  const present = new Set<number>();
  const t = await value(ctx, 'topics.describe', { name: ctx.topic });
  let offset = t.partitions.find((p) => p.partition === ctx.partition)?.logStartOffset ?? 0;
  for (let i = 0; i < 50; i++) {
    const r = await value(ctx, 'records.consume', { topic: ctx.topic, partition: ctx.partition, offset, maxRecords: 500 });
    for (const rec of r.records) present.add(rec.offset);
    if (r.nextOffset <= offset || r.nextOffset >= r.highWatermark) break;
    offset = r.nextOffset;
  }
  return present;
}

const CONFIGS = { 'cleanup.policy': 'compact', 'segment.ms': String(SEGMENT_MS), 'min.cleanable.dirty.ratio': '0.01', 'delete.retention.ms': String(DELETE_RETENTION_MS) };

export function compactionScenario(): DrillScenario {
  let writes: KeyedWrite[] = [];
  let waitFrom = -1;
  const create = createTopicStep(CONFIGS, 'cleanup.policy=compact, segment.ms 10 s, min.cleanable.dirty.ratio 0.01, delete.retention.ms 60 s');
  const write = (title: string, entries: [string, string | null][], why: string): DrillStep => ({
    title,
    kind: 'action',
    async run(ctx) {
      const r = await value(ctx, 'records.produce', { topic: ctx.topic, partition: ctx.partition, acks: 'all', records: entries.map(([key, v]) => ({ key, value: v })) });
      if (r.errorCode !== 'NONE') throw new StepError(r.errorCode, r.errorMessage ?? '');
      entries.forEach(([key, v], i) => writes.push({ offset: r.baseOffset + i, key, value: v }));
      const text = entries.map(([key, v], i) => `${key}=${v ?? '(tombstone)'} @${r.baseOffset + i}`).join(', ');
      return { status: 'ok', summary: `${text}. ${why}` };
    },
  });
  const leaderOf = (view: TopicCompactionView, partition: number) => view.partitions.find((p) => p.partition === partition)?.replicas.find((r) => r.leader);
  return {
    id: 'compaction',
    name: 'Log compaction: updates, deletes, then the cleaner',
    explanation:
      'A topic with cleanup.policy=compact keeps, below its active segment, only the last record of each key, at the offset it was written at: offsets are never reused, a reader just skips the ones that went. A record with a key and no value (a tombstone) deletes its key: the cleaner removes the older values at once and the tombstone itself delete.retention.ms after the cleaning that reached it, so readers that start from the beginning meanwhile still learn of the deletion. The active segment is never cleaned, so the writes become cleanable only once segment.ms rolls it; each broker’s log cleaner then takes the log when its dirty ratio is above min.cleanable.dirty.ratio (every replica compacts its own log).',
    watch:
      'The topic page’s Compaction tab: the dirty head shrinks into the cleaned tail, “cleaned up to offset N” moves, and log.cleaned events say how many records each broker kept. The last step lists every write: kept as its key’s latest value, superseded by a later write, or deleted by a tombstone.',
    steps: [
      restoreEveryBroker(),
      waitEveryBrokerRunning(),
      {
        ...create,
        async run(ctx) {
          writes = [];
          waitFrom = -1;
          return create.run!(ctx);
        },
      },
      write('Write a first value for four keys', [['user-1', 'alice v1'], ['user-2', 'bob v1'], ['user-3', 'carol v1'], ['user-4', 'dave v1']], 'Every key has one value so far.'),
      write('Update two keys and delete one (a tombstone)', [['user-1', 'alice v2'], ['user-2', 'bob v2'], ['user-4', null]], 'user-1 and user-2 now have a newer value; user-4 is deleted.'),
      {
        title: `Let segment.ms (${SEGMENT_MS / 1000} s of cluster time) pass`,
        kind: 'wait',
        maxClusterMs: SEGMENT_MS + 5_000,
        async check(ctx) {
          const t = await value(ctx, 'clock.get', {});
          if (waitFrom < 0) waitFrom = t.nowMs;
          return t.nowMs - waitFrom > SEGMENT_MS ? { status: 'ok', summary: 'The active segment is old enough to roll on the next write.' } : null;
        },
      },
      write('Write once more: the active segment rolls', [['user-3', 'carol v2']], 'The earlier writes are in a segment of their own now, which the cleaner may clean.'),
      {
        title: 'Wait for the leader’s log cleaner to clean the rolled segment',
        kind: 'wait',
        maxClusterMs: 90_000,
        onTimeout: 'The cleaner looks for dirty logs every log.cleaner.backoff.ms (15 s); raise the clock speed to wait less.',
        async check(ctx) {
          const view = await value(ctx, 'topics.compaction', { name: ctx.topic });
          const leader = leaderOf(view, ctx.partition);
          const tombstone = writes.find((w) => w.value === null);
          if (!leader?.lastClean || !tombstone || (leader.cleanerCheckpoint ?? 0) <= tombstone.offset) return null;
          const c = leader.lastClean;
          return { status: 'ok', summary: `Broker ${leader.brokerId} cleaned offsets ${c.firstDirtyOffset}–${c.endOffset - 1}: read ${c.recordsRead} records, kept ${c.recordsWritten}; ${c.tombstonesKept} tombstone kept for delete.retention.ms.` };
        },
      },
      {
        title: 'Read the log from its start: which records went, and why',
        kind: 'action',
        async run(ctx) {
          const present = await readAll(ctx);
          const view = await value(ctx, 'topics.compaction', { name: ctx.topic });
          const fates = fatesOf(writes, present, leaderOf(view, ctx.partition)?.cleanerCheckpoint ?? 0);
          const gone = fates.filter((f) => !f.kept);
          const lines = fates.map((f) => `@${f.write.offset} ${f.write.key}=${f.write.value ?? '(tombstone)'}: ${f.kept ? 'kept' : 'gone'}, ${f.why}`);
          return { status: gone.length > 0 ? 'ok' : 'failed', summary: `${gone.length} of ${writes.length} records went, none of them a key’s latest value. ${lines.join('; ')}.` };
        },
      },
    ],
  };
}
