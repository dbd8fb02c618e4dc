/**
 * The Messages workbench: browse and filter a topic with `records.search` (the scan and the
 * filter run on the console's server side; the page holds one page of matches), continue from
 * where a read stopped, tail live, export what a search finds as JSON Lines or CSV, import JSON
 * Lines into a topic (this cluster or another connection) with a rate limit and a dry run, and
 * copy a range of records to another topic.
 *
 * Exports, imports and copies run a chunk at a time with progress and can be cancelled; what
 * they hold at once is one chunk (the file being written is a list of Blob parts the browser
 * keeps outside the JS heap).
 */
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { MethodInput, RecordsSearchView, SearchPositionView, WorkbenchRecordView } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { CSV_HEADER, parseJsonLine, toCsvRow, toJsonLine, type LineRecord } from '../lib/messages/record-lines.js';

export type SearchInput = MethodInput<'records.search'>;

export interface Progress {
  /** What runs: export, import or copy. */
  kind: 'export' | 'import' | 'copy';
  done: number;
  /** Records (or lines) expected in all, when known. */
  total: number | null;
  scanned: number;
  message: string;
  finished: boolean;
  error: string | null;
}

/** Records examined per chunk of an export or copy. */
const CHUNK_LIMIT = 2000;
const TAIL_INTERVAL_MS = 1000;
/** Matches a page keeps while tailing (the oldest drop off). */
const TAIL_KEEP = 2000;

export const useWorkbenchStore = defineStore('workbench', () => {
  const last = shallowRef<SearchInput | null>(null);
  const records = shallowRef<WorkbenchRecordView[]>([]);
  const result = shallowRef<RecordsSearchView | null>(null);
  const searching = ref(false);
  const error = shallowRef<unknown>(null);
  const tailing = ref(false);
  const progress = ref<Progress | null>(null);
  let tailTimer: ReturnType<typeof setTimeout> | null = null;
  let cancelled = false;

  const positionsOf = (next: SearchPositionView[]) => next.map((n) => ({ partition: n.partition, offset: n.offset }));

  async function run(input: SearchInput, append: boolean): Promise<void> {
    searching.value = true;
    try {
      const r = await client().call('records.search', input);
      result.value = r;
      records.value = append ? [...records.value, ...r.records].slice(-TAIL_KEEP) : r.records;
      error.value = null;
    } catch (e) {
      error.value = e;
      if (!append) records.value = [];
    } finally {
      searching.value = false;
    }
  }

  /** A new search. */
  async function search(input: SearchInput): Promise<void> {
    stopTail();
    last.value = input;
    await run(input, false);
  }

  /** The same search from where the last read stopped, appended. */
  async function more(): Promise<void> {
    const r = result.value;
    const input = last.value;
    if (!r || !input) return;
    await run({ ...input, from: { positions: positionsOf(r.next) } }, true);
  }

  /** Live tail: from the end (or where the last read stopped), oldest first, once a second. */
  function startTail(input: SearchInput): void {
    stopTail();
    const first: SearchInput = { ...input, order: 'oldest-first', from: { end: true } };
    last.value = first;
    tailing.value = true;
    records.value = [];
    const tick = async (): Promise<void> => {
      if (!tailing.value) return;
      const r = result.value;
      const from = r && last.value === first && r.next.length ? { positions: positionsOf(r.next) } : first.from;
      await run({ ...first, from }, true);
      if (tailing.value) tailTimer = setTimeout(() => void tick(), TAIL_INTERVAL_MS);
    };
    result.value = null;
    void tick();
  }

  function stopTail(): void {
    tailing.value = false;
    if (tailTimer) clearTimeout(tailTimer);
    tailTimer = null;
  }

  function cancel(): void {
    cancelled = true;
  }

  /**
   * Run `input` to its end a chunk at a time, handing each chunk's matches to `sink`; progress
   * counts against the records between the start positions and the high watermarks.
   */
  async function walk(kind: Progress['kind'], input: SearchInput, sink: (chunk: WorkbenchRecordView[]) => Promise<void> | void, maxRecords = Number.MAX_SAFE_INTEGER): Promise<void> {
    cancelled = false;
    progress.value = { kind, done: 0, total: null, scanned: 0, message: 'Starting', finished: false, error: null };
    let from = input.from;
    let done = 0;
    let scanned = 0;
    try {
      for (;;) {
        if (cancelled) {
          progress.value = { ...progress.value!, message: `Cancelled after ${done} records`, finished: true };
          return;
        }
        const r = await client().call('records.search', { ...input, from, limit: Math.min(CHUNK_LIMIT, maxRecords - done), maxScan: 100_000, order: 'oldest-first' });
        await sink(r.records);
        done += r.records.length;
        scanned += r.scanned;
        const total: number = progress.value!.total ?? r.next.reduce((n, p) => n + Math.max(0, p.highWatermark - p.offset), 0) + scanned;
        progress.value = { kind, done, total, scanned, message: `${done} records (${scanned} scanned)`, finished: false, error: null };
        if (r.stoppedBecause === 'end' || done >= maxRecords) break;
        from = { positions: positionsOf(r.next) };
      }
      progress.value = { kind, done, total: scanned, scanned, message: `Done: ${done} records (${scanned} scanned)`, finished: true, error: null };
    } catch (e) {
      progress.value = { ...progress.value!, finished: true, error: e instanceof Error ? e.message : String(e) };
    }
  }

  /** Export what `input` finds (its filter, from its start to the end) as a file; null when cancelled or failed. */
  async function exportFile(input: SearchInput, format: 'jsonl' | 'csv'): Promise<Blob | null> {
    const parts: string[] = format === 'csv' ? [`${CSV_HEADER}\n`] : [];
    const blobs: Blob[] = [];
    await walk('export', input, (chunk) => {
      for (const r of chunk) parts.push(`${format === 'csv' ? toCsvRow(r) : toJsonLine(r)}\n`);
      // A Blob per chunk keeps the page's heap at one chunk of text.
      blobs.push(new Blob(parts.splice(0)));
    });
    if (progress.value?.error || cancelled) return null;
    return new Blob(blobs, { type: format === 'csv' ? 'text/csv' : 'application/x-ndjson' });
  }

  /** Copy what `input` finds to `target` (another topic, on this or another connection), keeping keys, values, headers and timestamps. */
  async function copy(input: SearchInput, target: { topic: string; connection?: string; keepPartitions: boolean }): Promise<void> {
    await walk('copy', input, async (chunk) => {
      if (chunk.length === 0) return;
      const lines = chunk.map((r) => ({ ...parseJsonLine(toJsonLine(r), 0), partition: r.partition }));
      await produceLines(target, lines);
    });
  }

  async function produceLines(target: { topic: string; connection?: string; keepPartitions: boolean }, lines: (LineRecord & { partition?: number })[]): Promise<void> {
    const groups = new Map<number | undefined, LineRecord[]>();
    for (const l of lines) {
      const p = target.keepPartitions ? l.partition : undefined;
      const { partition: _p, ...record } = l;
      groups.set(p, [...(groups.get(p) ?? []), record]);
    }
    for (const [partition, records] of groups) {
      const input: MethodInput<'records.produce'> = { topic: target.topic, acks: 'all', records, ...(partition !== undefined ? { partition } : {}), ...(target.connection ? { connection: target.connection } : {}) };
      const r = await client().call('records.produce', input);
      const failed = r.batches.find((b) => b.errorCode !== 'NONE');
      if (failed) throw new Error(`partition ${failed.partition}: ${failed.errorCode}${failed.errorMessage ? ` (${failed.errorMessage})` : ''}`);
    }
  }

  /**
   * Import a JSON Lines file into `target`: `recordsPerSec` at most, a chunk of lines at a time;
   * `dryRun` checks every line and produces nothing. Reads the file as a stream.
   */
  async function importFile(file: Blob, target: { topic: string; connection?: string; keepPartitions: boolean; recordsPerSec: number; dryRun: boolean }): Promise<void> {
    cancelled = false;
    progress.value = { kind: 'import', done: 0, total: null, scanned: 0, message: 'Reading', finished: false, error: null };
    const reader = file.stream().pipeThrough(new TextDecoderStream()).getReader();
    let rest = '';
    let lineNo = 0;
    let done = 0;
    const started = Date.now();
    const chunkSize = Math.max(1, Math.min(500, target.recordsPerSec));
    let pending: (LineRecord & { partition?: number })[] = [];
    const flush = async (): Promise<void> => {
      if (pending.length === 0) return;
      if (!target.dryRun) await produceLines(target, pending);
      done += pending.length;
      pending = [];
      progress.value = { kind: 'import', done, total: null, scanned: lineNo, message: `${target.dryRun ? 'Checked' : 'Produced'} ${done} records`, finished: false, error: null };
      // The rate limit: never ahead of recordsPerSec since the start.
      const due = started + (done / target.recordsPerSec) * 1000;
      if (!target.dryRun && due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    };
    try {
      for (;;) {
        if (cancelled) {
          await reader.cancel();
          progress.value = { ...progress.value!, message: `Cancelled after ${done} records`, finished: true };
          return;
        }
        const { value, done: eof } = await reader.read();
        const text = rest + (value ?? '');
        const lines = text.split('\n');
        rest = eof ? '' : lines.pop()!;
        for (const [i, line] of lines.entries()) {
          // The newline that ends the file ends its last line; it starts none.
          if (eof && i === lines.length - 1 && line === '') break;
          lineNo++;
          if (line.trim() === '') continue;
          pending.push(parseJsonLine(line, lineNo));
          if (pending.length >= chunkSize) {
            await flush();
            // A read holds many chunks' lines (a 64 KiB part of the file): a cancel stops between chunks.
            if (cancelled) break;
          }
        }
        if (cancelled) continue;
        if (eof) break;
      }
      await flush();
      progress.value = { kind: 'import', done, total: done, scanned: lineNo, message: target.dryRun ? `Dry run: ${done} records in ${lineNo} lines would be produced; nothing was written` : `Done: ${done} records produced`, finished: true, error: null };
    } catch (e) {
      progress.value = { kind: 'import', done, total: null, scanned: lineNo, message: `Stopped after ${done} records`, finished: true, error: e instanceof Error ? e.message : String(e) };
    }
  }

  return { last, records, result, searching, error, tailing, progress, search, more, startTail, stopTail, cancel, exportFile, importFile, copy, produceLines };
});
