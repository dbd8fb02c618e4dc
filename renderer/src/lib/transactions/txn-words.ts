/**
 * Transactions in words: why a partition's read_committed consumers are behind (what holds its
 * last stable offset), and what aborting a transaction will do (or did). The numbers are the
 * contract's (`transactions.producers`, `transactions.abort`); the words only say them.
 */
import type { PartitionTransactionsView, ProducerStateView, TransactionAbortView } from '../../../../app/api/contract.js';
import { duration } from '../format.js';

const n = (x: number): string => x.toLocaleString('en-US');
const plural = (count: number, noun: string): string => `${n(count)} ${noun}${count === 1 ? '' : 's'}`;

/** What the coordinator says of an open transaction's producer, in a clause. */
function holderClause(p: ProducerStateView, nowMs: number): string {
  const t = p.transaction;
  const who = `producer ${p.producerId}`;
  if (!t || p.transactionalId === null) {
    return `${who}'s open transaction, which no transaction coordinator knows: it will not end by itself (a hanging transaction; its last write was ${duration(Math.max(0, nowMs - p.lastTimestamp))} ago)`;
  }
  if (!t.includesPartition) return `${who}'s transaction (${p.transactionalId}), which its coordinator (${t.state}) no longer counts this partition in: its marker will never be written here (a hanging transaction)`;
  const started = t.startTimeMs === null ? '' : `, started ${duration(Math.max(0, nowMs - t.startTimeMs))} ago`;
  const late = t.startTimeMs !== null && nowMs - t.startTimeMs > t.timeoutMs ? ' — past its timeout, so its coordinator is about to abort it' : '';
  return `${who}'s open transaction (${p.transactionalId}, ${t.state}${started}, timeout ${duration(t.timeoutMs)}${late})`;
}

/** Why read_committed consumers of this partition are where they are. */
export function lsoExplainer(p: PartitionTransactionsView, nowMs: number): string {
  const o = p.offsets;
  if (!o) return `The offsets of ${p.topic}-${p.partition} could not be read (${p.errorCode}).`;
  const unreplicated =
    o.logEndOffset !== null && o.logEndOffset > o.highWatermark ? ` The leader holds ${plural(o.logEndOffset - o.highWatermark, 'more offset')} up to its log end ${n(o.logEndOffset)}, not yet replicated to the ISR: nobody reads them yet.` : '';
  if (o.lastStableOffset >= o.highWatermark) {
    return `No open transaction holds ${p.topic}-${p.partition}: read_committed and read_uncommitted consumers both read up to the high watermark ${n(o.highWatermark)}.${unreplicated}`;
  }
  const holder = p.producers.find((x) => x.producerId === p.lsoHeldBy);
  const by = holder ? holderClause(holder, nowMs) : 'an open transaction';
  const others = p.producers.filter((x) => x.currentTxnStartOffset !== null && x.producerId !== p.lsoHeldBy).length;
  const more = others > 0 ? ` ${plural(others, 'other open transaction')} on this partition start${others === 1 ? 's' : ''} later and would hold it next.` : '';
  return (
    `The LSO is held at ${n(o.lastStableOffset)} by ${by}. A read_committed consumer reads the offsets below it and waits there; ` +
    `a read_uncommitted one reads on to the high watermark ${n(o.highWatermark)} (${plural(o.highWatermark - o.lastStableOffset, 'offset')} further).${more}${unreplicated}`
  );
}

/** What an abort does (a preview) or did. */
export function abortWords(a: TransactionAbortView): string {
  const at = a.before.logEndOffset ?? a.before.highWatermark;
  const head = `${a.dryRun ? 'Writes' : 'Wrote'} an ABORT marker for producer ${a.producerId} (epoch ${a.producerEpoch}, coordinator epoch ${a.coordinatorEpoch}) at offset ${n(at)} of ${a.topic}-${a.partition}, through its leader (broker ${a.leader}).`;
  const aborted = `${plural(a.abortedRecords, 'record')} of the transaction${a.startOffset !== null ? ` (from offset ${n(a.startOffset)})` : ''} become${a.abortedRecords === 1 ? 's' : ''} aborted: read_committed consumers skip ${a.abortedRecords === 1 ? 'it' : 'them'}.`;
  const lower = a.countsExact ? '' : ' (at least: the partition holds more records than a preview reads)';
  if (a.lastStableOffsetAfter <= a.before.lastStableOffset) {
    const holder = a.stillOpen.find((o) => o.startOffset === a.lastStableOffsetAfter);
    return `${head} The LSO stays at ${n(a.before.lastStableOffset)}${holder ? `: producer ${holder.producerId}'s open transaction, from offset ${n(holder.startOffset)}, still holds it` : ''}. ${aborted}${lower}`;
  }
  return `${head} The LSO moves from ${n(a.before.lastStableOffset)} to ${n(a.lastStableOffsetAfter)}: ${aborted} ${plural(a.releasedRecords, 'record')} of other producers become${a.releasedRecords === 1 ? 's' : ''} readable to them.${lower}`;
}
