/**
 * The impact analysis as a file: one CSV row per listed partition (the columns of the Impact
 * page's table), so a prediction can be kept beside a change ticket or compared with what happened.
 */
import type { PartitionImpactView, StopImpactView } from '../../../../app/api/impact-contract.js';

export const IMPACT_CSV_COLUMNS = [
  'topic',
  'partition',
  'replicas',
  'outcome_before',
  'outcome_after',
  'leader_before',
  'leader_after',
  'elected_from',
  'isr_before',
  'isr_after',
  'elr_before',
  'elr_after',
  'effective_min_isr',
  'elr_lost',
] as const;

/** A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180). */
function field(value: string | number | boolean): string {
  const s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

const list = (ids: readonly number[]): string => ids.join(' ');

export function impactRow(p: PartitionImpactView): (string | number | boolean)[] {
  return [
    p.topic,
    p.partition,
    list(p.replicas),
    p.before.outcome,
    p.after.outcome,
    p.before.leader,
    p.after.leader,
    p.electedFrom ?? '',
    list(p.before.isr),
    list(p.after.isr),
    list(p.before.elr),
    list(p.after.elr),
    p.effectiveMinIsr,
    p.elrLost,
  ];
}

export function impactCsv(view: StopImpactView): string {
  const lines = [IMPACT_CSV_COLUMNS.join(','), ...view.partitions.map((p) => impactRow(p).map(field).join(','))];
  return `${lines.join('\n')}\n`;
}

/** The file name: which brokers stop. */
export function impactFileName(view: StopImpactView, ext: 'csv' | 'json'): string {
  return `impact-stop-brokers-${view.stopped.join('-')}.${ext}`;
}

/** Save text as a file from the browser (a Blob behind a temporary `<a download>`); call from a click handler. */
export function downloadText(filename: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
