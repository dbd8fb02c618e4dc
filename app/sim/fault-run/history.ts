/**
 * The history a person needs to judge a failing seed (`npm run faults -- --seed S --verbose`): the
 * fault schedule merged, in time order, with the engine's events and the checker's reachability
 * changes for the brokers and partitions the violations name. A run of high-watermark advances by
 * one leader is folded into one line.
 *
 * Subjects are read from the violation texts, which name a partition by its key (`t0-2`) and a
 * broker as "broker N", "leader N", "replica N", "ISR member N", "brokers N and M" or "election of
 * N". A violation that names neither (a liveness summary) leaves the history whole.
 */
import type { EngineEvent } from '../../api/events.js';
import type { TopicPartition } from './context.js';
import type { ReachabilityChange } from './reachability.js';

export interface HistorySubjects {
  /** Empty: every broker. */
  brokers: Set<number>;
  /** Empty: every partition (or, when brokers are named, those whose events involve them). */
  partitions: Set<string>;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function subjectsOf(violations: readonly string[], tps: readonly TopicPartition[]): HistorySubjects {
  const brokers = new Set<number>();
  const partitions = new Set<string>();
  for (const v of violations) {
    for (const tp of tps) if (new RegExp(`(?<![\\w-])${escapeRegExp(tp.key)}(?!\\d)`).test(v)) partitions.add(tp.key);
    for (const m of v.matchAll(/\b(?:broker|leader|replica|ISR member|brokers \d+ and|election of) (\d+)\b/g)) brokers.add(Number(m[1]));
    for (const m of v.matchAll(/\bbrokers (\d+) and \d+/g)) brokers.add(Number(m[1]));
  }
  return { brokers, partitions };
}

interface Line {
  atMs: number;
  text: string;
}

function partitionEvent(e: EngineEvent): { key: string; brokers: number[]; text: string } | undefined {
  switch (e.type) {
    case 'leader.changed':
      return { key: `${e.topic}-${e.partition}`, brokers: [e.leader, e.previousLeader], text: `leader ${e.leader} (was ${e.previousLeader}), epoch ${e.leaderEpoch}, ${e.reason}${e.unclean ? ', unclean' : ''}` };
    case 'isr.shrunk':
      return { key: `${e.topic}-${e.partition}`, brokers: [...e.previousIsr], text: `ISR [${e.isr}] (was [${e.previousIsr}]), ${e.reason}` };
    case 'isr.expanded':
      return { key: `${e.topic}-${e.partition}`, brokers: [...e.isr], text: `ISR [${e.isr}] (was [${e.previousIsr}]), ${e.reason}` };
    case 'replica.truncated':
      return { key: `${e.topic}-${e.partition}`, brokers: [e.brokerId], text: `replica ${e.brokerId} truncated ${e.fromOffset} -> ${e.toOffset} (${e.reason}, epoch ${e.leaderEpoch})` };
    case 'replica.offline':
      return { key: `${e.topic}-${e.partition}`, brokers: [e.brokerId], text: `replica ${e.brokerId} offline: ${e.errorCode}` };
    default:
      return undefined;
  }
}

/** The history lines ("t=12.345s ...") for `subjects`, in time order. */
export function historyLines(
  events: readonly EngineEvent[],
  reachability: readonly ReachabilityChange[],
  schedule: readonly { atMs: number; text: string }[],
  subjects: HistorySubjects,
): string[] {
  const allBrokers = subjects.brokers.size === 0;
  const wantBroker = (id: number): boolean => allBrokers || subjects.brokers.has(id);
  const wantPartition = (key: string, involved: number[]): boolean =>
    subjects.partitions.size > 0 ? subjects.partitions.has(key) : allBrokers || involved.some((b) => subjects.brokers.has(b));
  const lines: Line[] = schedule.map((s) => ({ atMs: s.atMs, text: `fault      ${s.text}` }));
  for (const r of reachability) {
    if (wantBroker(r.brokerId)) lines.push({ atMs: r.atMs, text: `checker    broker ${r.brokerId} ${r.canHeartbeat ? 'can heartbeat again' : 'cannot heartbeat'}: ${r.cause}` });
  }
  // Consecutive HW advances of one leader on one partition, folded: key -> the open line.
  const hwRuns = new Map<string, { line: Line; brokerId: number; from: number; to: number; count: number }>();
  for (const e of events) {
    if (e.type === 'controller.changed') {
      lines.push({ atMs: e.atMs, text: `controller ${e.controllerId ?? 'none'} (was ${e.previousControllerId ?? 'none'}): ${e.reason}` });
    } else if (e.type === 'broker.stateChanged' || e.type === 'broker.storageFailed') {
      if (!wantBroker(e.brokerId)) continue;
      const text = e.type === 'broker.stateChanged' ? `${e.state} (was ${e.previous}): ${e.reason}` : `storage failed: ${e.errorCode}`;
      lines.push({ atMs: e.atMs, text: `broker ${e.brokerId}   ${text}` });
    } else if (e.type === 'highWatermark.advanced') {
      const key = `${e.topic}-${e.partition}`;
      if (!wantPartition(key, [e.brokerId])) continue;
      const run = hwRuns.get(key);
      if (run && run.brokerId === e.brokerId && run.to === e.previous) {
        run.to = e.highWatermark;
        run.count++;
        run.line.text = `${key.padEnd(10)} leader ${e.brokerId} HW ${run.from} -> ${run.to}${run.count > 1 ? ` (${run.count} advances until t=${(e.atMs / 1000).toFixed(3)}s)` : ''}`;
        continue;
      }
      const line = { atMs: e.atMs, text: `${key.padEnd(10)} leader ${e.brokerId} HW ${e.previous} -> ${e.highWatermark}` };
      lines.push(line);
      hwRuns.set(key, { line, brokerId: e.brokerId, from: e.previous, to: e.highWatermark, count: 1 });
    } else {
      const p = partitionEvent(e);
      if (!p || !wantPartition(p.key, p.brokers)) continue;
      hwRuns.delete(p.key);
      lines.push({ atMs: e.atMs, text: `${p.key.padEnd(10)} ${p.text}` });
    }
  }
  // A stable sort: at one instant, faults first, then the checker's view, then the engine's events.
  return lines.sort((a, b) => a.atMs - b.atMs).map((l) => `t=${(l.atMs / 1000).toFixed(3)}s ${l.text}`);
}
