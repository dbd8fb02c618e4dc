/**
 * `records.search` over any `RecordSource`: a bounded, resumable scan of a topic's partitions.
 *
 * Invariants:
 * - Each partition is read in offset order (oldest first) or reverse offset order (newest
 *   first), a chunk at a time; across partitions the next record examined is the oldest (or
 *   newest) timestamp among the partitions' next records, ties by partition.
 * - `scanned` counts records examined; a record read into a chunk but not examined is not
 *   counted and `next` still points at it, so a continued read examines each record once.
 * - The read stops at `limit` matches, `maxScan` examined records, `timeBudgetMs`, or when every
 *   partition is done; memory holds one chunk per partition and the matches.
 */
import type { z } from 'zod';
import { KafkaError } from '../../api/errors.js';
import type { recordsSearchInputSchema, RecordsSearchView, SearchPositionView, WorkbenchRecordView } from '../../api/records-search-contract.js';
import { decodePayload, filterText, filterValue, payloadView, schemaIdOf, type Decoded, type DecodeAs, type SchemaLookup } from './payload.js';
import { compileFilter, type FilterInput } from './record-filter.js';
import type { FetchedRecord, PartitionBounds, RecordSource } from './record-source.js';

export type SearchInput = z.output<typeof recordsSearchInputSchema>;

/** Bytes asked of the source per chunk. */
const CHUNK_BYTES = 1024 * 1024;
/** Records per chunk when reading backwards (a window below the position). */
const BACKWARD_WINDOW = 500;

interface Cursor {
  partition: number;
  bounds: PartitionBounds;
  /** Oldest first: next offset to read. Newest first: read below this offset. */
  position: number;
  buffer: FetchedRecord[];
  /** The next record of `buffer` to examine (an index, so taking one is O(1)). */
  at: number;
  done: boolean;
}

/** One record being examined: decodes on first use, once. (Methods, not closures: a scan makes one per record.) */
class Scanned implements FilterInput {
  private key?: Decoded;
  private value?: Decoded;
  private headerViews?: { key: string; text(): string | null }[];
  constructor(
    readonly r: FetchedRecord,
    private readonly keyAs: DecodeAs,
    private readonly valueAs: DecodeAs,
    private readonly schemas: Map<number, Awaited<ReturnType<SchemaLookup['byId']>>>,
  ) {}
  get headers(): { key: string; text(): string | null }[] {
    this.headerViews ??= this.r.headers.map((h) => ({ key: h.key, text: () => (h.value === null ? null : HEADER_TEXT.decode(h.value)) }));
    return this.headerViews;
  }
  get partition() {
    return this.r.partition;
  }
  get offset() {
    return this.r.offset;
  }
  get timestamp() {
    return this.r.timestamp;
  }
  get size() {
    let n = (this.r.key?.length ?? 0) + (this.r.value?.length ?? 0);
    for (const h of this.r.headers) n += h.key.length + (h.value?.length ?? 0);
    return n;
  }
  decodedKey(): Decoded | null {
    if (this.r.key === null) return null;
    this.key ??= decode(this.r.key, this.keyAs, this.schemas);
    return this.key;
  }
  decodedValue(): Decoded | null {
    if (this.r.value === null) return null;
    this.value ??= decode(this.r.value, this.valueAs, this.schemas);
    return this.value;
  }
  keyText(): string | null {
    const d = this.decodedKey();
    return d ? filterText(d) : null;
  }
  valueText(): string | null {
    const d = this.decodedValue();
    return d ? filterText(d) : null;
  }
  keyValue(): unknown {
    const d = this.decodedKey();
    return d ? filterValue(d) : null;
  }
  valueValue(): unknown {
    const d = this.decodedValue();
    return d ? filterValue(d) : null;
  }
}

const HEADER_TEXT = new TextDecoder();

function decode(bytes: Uint8Array, as: DecodeAs, schemas: Map<number, Awaited<ReturnType<SchemaLookup['byId']>>>): Decoded {
  const id = schemaIdOf(bytes, as);
  return decodePayload(bytes, as, id === null ? undefined : (schemas.get(id) ?? null));
}

export async function searchRecords(source: RecordSource, input: SearchInput, schemas: SchemaLookup | null, now: () => number = Date.now): Promise<RecordsSearchView> {
  const started = now();
  const order = input.order ?? 'oldest-first';
  const backwards = order === 'newest-first';
  const limit = input.limit ?? 100;
  const maxScan = input.maxScan ?? 100_000;
  const budget = input.timeBudgetMs ?? 5000;
  const keyAs = input.decode?.key ?? 'auto';
  const valueAs = input.decode?.value ?? 'auto';
  const filter = compileFilter(input.filter);

  const all = await source.partitions(input.topic);
  const chosen = input.partitions ?? all;
  const missing = chosen.filter((p) => !all.includes(p));
  if (missing.length > 0) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic ${input.topic} has no partition ${missing.join(', ')} (it has ${all.length}).`);
  const bounds = await source.bounds(input.topic, chosen);
  const cursors: Cursor[] = [];
  for (const b of bounds) cursors.push({ partition: b.partition, bounds: b, position: await startPosition(source, input, b, backwards), buffer: [], at: 0, done: false });
  for (const c of cursors) c.done = backwards ? c.position <= c.bounds.logStartOffset : c.position >= c.bounds.highWatermark;

  const schemaCache = new Map<number, Awaited<ReturnType<SchemaLookup['byId']>>>();
  const records: WorkbenchRecordView[] = [];
  let scanned = 0;
  let stoppedBecause: RecordsSearchView['stoppedBecause'] = 'end';

  for (;;) {
    if (records.length >= limit) {
      stoppedBecause = 'limit';
      break;
    }
    if (scanned >= maxScan) {
      stoppedBecause = 'max-scan';
      break;
    }
    if (now() - started >= budget) {
      stoppedBecause = 'time-budget';
      break;
    }
    // Fill every empty buffer that has more to read, then take the next record in time order.
    for (const c of cursors) if (c.at >= c.buffer.length && !c.done) await fill(source, input.topic, c, backwards);
    let next: Cursor | undefined;
    let best: FetchedRecord | undefined;
    for (const c of cursors) {
      const head = c.buffer[c.at];
      if (!head) continue;
      if (!best || (backwards ? head.timestamp > best.timestamp : head.timestamp < best.timestamp)) {
        next = c;
        best = head;
      }
    }
    if (!next) break;
    const r = next.buffer[next.at++]!;
    next.position = backwards ? r.offset : r.offset + 1;
    if (next.at >= next.buffer.length) next.done = backwards ? next.position <= next.bounds.logStartOffset : next.position >= next.bounds.highWatermark;
    scanned++;
    const s = new Scanned(r, keyAs, valueAs, schemaCache);
    if (schemas && filter.needsPayloads) await preloadSchemas(schemas, schemaCache, r, keyAs, valueAs);
    if (!filter.test(s)) continue;
    if (schemas && !filter.needsPayloads) await preloadSchemas(schemas, schemaCache, r, keyAs, valueAs);
    records.push(view(s));
  }

  const nextPositions: SearchPositionView[] = cursors.map((c) => ({
    partition: c.partition,
    offset: c.position,
    done: c.done && c.at >= c.buffer.length,
    logStartOffset: c.bounds.logStartOffset,
    highWatermark: c.bounds.highWatermark,
  }));
  return {
    records,
    scanned,
    stoppedBecause,
    next: nextPositions,
    order,
    elapsedMs: now() - started,
    filterErrors: filter.errors,
    ...(filter.firstError !== undefined ? { firstFilterError: filter.firstError } : {}),
  };
}

async function preloadSchemas(lookup: SchemaLookup, cache: Map<number, Awaited<ReturnType<SchemaLookup['byId']>>>, r: FetchedRecord, keyAs: DecodeAs, valueAs: DecodeAs): Promise<void> {
  for (const [bytes, as] of [[r.key, keyAs], [r.value, valueAs]] as const) {
    const id = schemaIdOf(bytes, as);
    if (id !== null && !cache.has(id)) cache.set(id, await lookup.byId(id).catch(() => null));
  }
}

async function startPosition(source: RecordSource, input: SearchInput, b: PartitionBounds, backwards: boolean): Promise<number> {
  const clamp = (o: number) => Math.min(Math.max(o, b.logStartOffset), b.highWatermark);
  const from = input.from;
  // Newest first reads down to the log start whichever end is named: the whole log, newest first.
  if ('beginning' in from) return backwards ? b.highWatermark : b.logStartOffset;
  if ('end' in from) return b.highWatermark;
  if ('offset' in from) return clamp(backwards ? from.offset + 1 : from.offset);
  if ('lastN' in from) return backwards ? b.highWatermark : clamp(b.highWatermark - from.lastN);
  if ('timestamp' in from) return clamp(await source.offsetForTime(input.topic, b.partition, from.timestamp));
  const p = from.positions.find((x) => x.partition === b.partition);
  return p ? clamp(p.offset) : backwards ? b.highWatermark : b.logStartOffset;
}

async function fill(source: RecordSource, topic: string, c: Cursor, backwards: boolean): Promise<void> {
  if (!backwards) {
    const got = (await source.read(topic, c.partition, c.position, CHUNK_BYTES)).filter((r) => r.offset >= c.position && r.offset < c.bounds.highWatermark);
    c.buffer = got;
    c.at = 0;
    if (got.length === 0) c.done = true;
    return;
  }
  // Backwards: read the window below the position forward, keep what is below it, newest first.
  let from = Math.max(c.bounds.logStartOffset, c.position - BACKWARD_WINDOW);
  for (;;) {
    const got: FetchedRecord[] = [];
    let at = from;
    while (at < c.position) {
      const chunk = (await source.read(topic, c.partition, at, CHUNK_BYTES)).filter((r) => r.offset >= at && r.offset < c.position);
      if (chunk.length === 0) break;
      got.push(...chunk);
      at = chunk[chunk.length - 1]!.offset + 1;
    }
    if (got.length > 0 || from <= c.bounds.logStartOffset) {
      c.buffer = got.reverse();
      c.at = 0;
      if (got.length === 0) c.done = true;
      return;
    }
    // The window held nothing (compacted away): look further down.
    c.position = from;
    from = Math.max(c.bounds.logStartOffset, from - BACKWARD_WINDOW);
  }
}

function view(s: Scanned): WorkbenchRecordView {
  const r = s.r;
  const k = s.decodedKey();
  const v = s.decodedValue();
  return {
    partition: r.partition,
    offset: r.offset,
    timestamp: r.timestamp,
    timestampType: r.timestampType,
    key: r.key && k ? payloadView(r.key, k) : null,
    value: r.value && v ? payloadView(r.value, v) : null,
    headers: r.headers.map((h) => ({ key: h.key, value: h.value === null ? null : payloadView(h.value, decodePayload(h.value, 'auto')) })),
    sizeBytes: s.size,
    leaderEpoch: r.leaderEpoch,
    producerId: r.producerId,
    producerEpoch: r.producerEpoch,
    sequence: r.sequence,
    compression: r.compression,
    transactional: r.transactional,
  };
}
