/**
 * A local cluster's journal: what was done to it as a twin (made, refreshed) and every rehearsal
 * (rehearsal-contract.ts), kept as `twin-journal.json` beside its data so it survives restarts and
 * goes with the directory; and the report the journal becomes (`connections.twinReport`), in
 * Markdown. The engine never reads the file: it is the console's record, not the cluster's state.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OutcomeCounts } from '../../api/impact-contract.js';
import { PARTITION_OUTCOMES } from '../../api/impact-contract.js';
import type { PlanRehearsalView, RehearsalView, StopRehearsalView, TwinReportView } from '../../api/rehearsal-contract.js';
import type { TwinChangeView, TwinResultView } from '../../api/twin-contract.js';
import { writeJsonAtomic } from '../../config-dir/config-files.js';

export const JOURNAL_FILE = 'twin-journal.json';
/** Rows a journal entry keeps (disagreements come first, so they are kept). */
const KEPT_ROWS = 200;

export interface TwinEntry {
  kind: 'created' | 'refreshed';
  atMs: number;
  sourceName: string;
  sourceClusterId: string;
  changeCount: number;
  changes: TwinChangeView[];
  recordsWritten: number;
  notes: string[];
}
export type JournalEntry = TwinEntry | { kind: 'rehearsal'; rehearsal: RehearsalView };

export function readJournal(dataDir: string): JournalEntry[] {
  const file = join(dataDir, JOURNAL_FILE);
  if (!existsSync(file)) return [];
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return Array.isArray(v) ? (v as JournalEntry[]) : [];
  } catch {
    // A journal edited by hand into nonsense is not a reason to refuse the next rehearsal.
    return [];
  }
}

function kept(entry: JournalEntry): JournalEntry {
  if (entry.kind !== 'rehearsal') return { ...entry, changes: entry.changes.slice(0, KEPT_ROWS) };
  const r = entry.rehearsal;
  return { kind: 'rehearsal', rehearsal: r.kind === 'stop' ? { ...r, partitions: r.partitions.slice(0, KEPT_ROWS) } : { ...r, moves: r.moves.slice(0, KEPT_ROWS) } };
}

export function appendJournal(dataDir: string, entry: JournalEntry): void {
  writeJsonAtomic(join(dataDir, JOURNAL_FILE), [...readJournal(dataDir), kept(entry)]);
}

export function twinEntry(kind: TwinEntry['kind'], r: TwinResultView): TwinEntry {
  return {
    kind,
    atMs: kind === 'created' ? r.origin.createdAtMs : r.origin.refreshedAtMs,
    sourceName: r.origin.sourceName,
    sourceClusterId: r.origin.sourceClusterId,
    changeCount: r.changes.length,
    changes: r.changes,
    recordsWritten: r.recordsWritten,
    notes: r.notes,
  };
}

// ---------------------------------------------------------------- Markdown

/** A table cell: pipes escaped, line breaks flattened. */
const cell = (s: string | number): string => String(s).replaceAll('|', '\\|').replace(/\s*\n\s*/g, ' ');
const row = (cells: (string | number)[]): string => `| ${cells.map(cell).join(' | ')} |`;
const table = (head: string[], rows: (string | number)[][]): string[] => [row(head), row(head.map(() => '---')), ...rows.map(row)];
const ids = (l: readonly number[]): string => (l.length ? l.join(', ') : '—');
const leaderOf = (l: number): string => (l < 0 ? 'none' : String(l));
const when = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
const counts = (c: OutcomeCounts): string => PARTITION_OUTCOMES.filter((o) => c[o] > 0).map((o) => `${c[o]} ${o}`).join(', ') || 'none';

const FAULT: Record<StopRehearsalView['fault'], string> = { kill: 'killed (a crash)', 'power-loss': 'power lost', shutdown: 'shut down (controlled)' };

function twinSection(e: TwinEntry): string[] {
  const applied = e.changes.filter((c) => !c.notApplied).length;
  const out = [
    `## ${when(e.atMs)}: ${e.kind === 'created' ? `made from ${e.sourceName}` : `refreshed from ${e.sourceName}`}`,
    '',
    `Source cluster \`${e.sourceClusterId}\`. ${plural(e.changeCount, e.kind === 'created' ? 'thing' : 'change')} ${e.kind === 'created' ? 'copied' : 'found'}, ${applied} applied; ${e.recordsWritten} synthetic records written.`,
    '',
  ];
  if (e.changes.length) out.push(...table(['Change', 'Subject', 'Twin', 'Source', 'Not applied'], e.changes.map((c) => [c.kind, c.subject, c.twin, c.source, c.notApplied ?? ''])), '');
  if (e.changes.length < e.changeCount) out.push(`(${e.changeCount - e.changes.length} more not listed.)`, '');
  for (const n of e.notes) out.push(`- ${n}`);
  if (e.notes.length) out.push('');
  return out;
}

function agreement(r: RehearsalView): string {
  return r.agreed === r.compared ? `Prediction and engine agree on all ${r.compared} ${r.kind === 'stop' ? 'partitions' : 'moves'}.` : `**${r.compared - r.agreed} of ${r.compared} disagree.**`;
}

function stopSection(r: StopRehearsalView): string[] {
  const what = [...(r.racks.length ? [`rack${r.racks.length > 1 ? 's' : ''} ${r.racks.join(', ')}`] : []), ...(r.brokers.length ? [`broker${r.brokers.length > 1 ? 's' : ''} ${r.brokers.join(', ')}`] : [])].join(' and ');
  const out = [
    `## ${when(r.startedAtMs)}: stop ${what}`,
    '',
    `Broker${r.stopped.length === 1 ? '' : 's'} ${ids(r.stopped)} ${FAULT[r.fault]}, each once the controller had fenced the one before${r.alreadyDown.length ? ` (${ids(r.alreadyDown)} already down)` : ''}. Took ${seconds(r.clusterMs)} of cluster time (${seconds(r.wallMs)} wall).`,
    '',
    `- Predicted: ${counts(r.predictedCounts)}`,
    `- Observed: ${counts(r.observedCounts)}`,
    `- ${agreement(r)}`,
    '',
  ];
  if (r.partitions.length) {
    out.push(
      ...table(
        ['Partition', 'Replicas', 'Predicted leader', 'Observed leader', 'Predicted ISR', 'Observed ISR', 'Predicted', 'Observed', 'Agrees'],
        r.partitions.map((p) => [`${p.topic}-${p.partition}`, ids(p.replicas), leaderOf(p.predicted.leader), leaderOf(p.observed.leader), ids(p.predicted.isr), ids(p.observed.isr), p.predicted.outcome, p.observed.outcome, p.agrees ? 'yes' : `no: ${p.difference}`]),
      ),
      '',
    );
  }
  if (r.partitions.length < r.compared) out.push(`(${r.compared - r.partitions.length} more partitions not listed.)`, '');
  const coordinators = r.coordinators ?? [];
  if (coordinators.length) {
    const wrong = coordinators.filter((c) => !c.agrees).length;
    out.push(
      wrong === 0 ? `Every group coordinator is where it was predicted (${plural(coordinators.length, 'group')}).` : `**${wrong} of ${plural(coordinators.length, 'group')} have their coordinator elsewhere than predicted.**`,
      '',
      ...table(
        ['Group', '__consumer_offsets partition', 'Predicted coordinator', 'Observed coordinator', 'Agrees'],
        coordinators.map((c) => [c.groupId, c.partition, leaderOf(c.predicted), leaderOf(c.observed), c.agrees ? 'yes' : `no: ${c.difference}`]),
      ),
      '',
    );
  }
  return out;
}

function planSection(r: PlanRehearsalView): string[] {
  const estimate = r.estimatedSeconds === null ? 'no estimate without a throttle' : `estimated ${r.estimatedSeconds.toFixed(1)} s`;
  const out = [
    `## ${when(r.startedAtMs)}: reassignment of ${plural(r.partitionCount, 'partition')}`,
    '',
    `Throttle ${r.throttleBytesPerSec === null ? 'none' : `${r.throttleBytesPerSec} B/s`}, ${r.bytesToCopy} bytes to copy. Copy took ${r.copySeconds.toFixed(1)} s of cluster time (${estimate}); ${seconds(r.wallMs)} wall.`,
    '',
    `- ${agreement(r)}`,
    '',
  ];
  if (r.moves.length) {
    out.push(
      ...table(
        ['Partition', 'Predicted replicas', 'Observed replicas', 'Predicted leader', 'Observed leader', 'Predicted ISR', 'Observed ISR', 'Agrees'],
        r.moves.map((m) => [`${m.topic}-${m.partition}`, ids(m.predicted.replicas), ids(m.observed.replicas), leaderOf(m.predicted.leader), leaderOf(m.observed.leader), ids(m.predicted.isr), ids(m.observed.isr), m.agrees ? 'yes' : `no: ${m.difference}`]),
      ),
      '',
    );
  }
  return out;
}

/** The journal of cluster `name` as a Markdown report. */
export function journalReport(name: string, twinOf: { sourceName: string; sourceClusterId: string } | undefined, entries: readonly JournalEntry[], nowMs: number): TwinReportView {
  const rehearsals = entries.filter((e) => e.kind === 'rehearsal').length;
  const lines = [
    `# Rehearsal report: ${name}`,
    '',
    twinOf ? `A twin of **${twinOf.sourceName}** (cluster \`${twinOf.sourceClusterId}\`), made by Replica Studio.` : `A local cluster of Replica Studio.`,
    `Written ${when(nowMs)}; ${entries.length} journal entries, ${rehearsals} rehearsals.`,
    '',
  ];
  if (entries.length === 0) lines.push('Nothing was rehearsed yet.', '');
  for (const e of entries) {
    if (e.kind !== 'rehearsal') lines.push(...twinSection(e));
    else lines.push(...(e.rehearsal.kind === 'stop' ? stopSection(e.rehearsal) : planSection(e.rehearsal)));
  }
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'cluster';
  return { fileName: `rehearsal-${slug}.md`, markdown: `${lines.join('\n').trimEnd()}\n`, entries: entries.length };
}
