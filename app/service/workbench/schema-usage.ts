/**
 * `schemas.usage` over either driver: which schema ids a topic's records carry, read from each
 * partition's log start to its high watermark (at most `maxScan` records in all), keys and values
 * counted apart by the id in Confluent's wire format (magic byte 0, then the id), then named with
 * the subjects that hold each id.
 */
import type { SchemaUsageView } from '../../api/schemas-contract.js';
import { readHeader } from '../../schemas/wire-format.js';
import type { RecordSource } from './record-source.js';

const SCAN_CHUNK_BYTES = 1024 * 1024;
const DEFAULT_MAX_SCAN = 100_000;

/** `subjectsFor` is asked once, after the scan, with every id found; it answers each id's subjects. */
export async function schemaUsage(source: RecordSource, topic: string, maxScan: number | undefined, subjectsFor: (ids: number[]) => Promise<(id: number) => string[]>): Promise<SchemaUsageView> {
  const limit = maxScan ?? DEFAULT_MAX_SCAN;
  const partitions = await source.partitions(topic);
  const bounds = await source.bounds(topic, partitions);
  const counts = new Map<string, { id: number; part: 'key' | 'value'; records: number }>();
  let scanned = 0;
  let unframed = 0;
  const reached: number[] = [];
  for (const b of bounds) {
    let at = b.logStartOffset;
    while (at < b.highWatermark && scanned < limit) {
      const chunk = await source.read(topic, b.partition, at, SCAN_CHUNK_BYTES);
      if (chunk.length === 0) {
        at = b.highWatermark; // the rest was compacted away
        break;
      }
      for (const r of chunk) {
        if (scanned >= limit) break;
        scanned++;
        at = r.offset + 1;
        let framed = false;
        for (const [part, bytes] of [['key', r.key], ['value', r.value]] as const) {
          const h = bytes ? readHeader(bytes) : null;
          if (!h) continue;
          framed = true;
          const k = `${part}:${h.schemaId}`;
          const c = counts.get(k) ?? { id: h.schemaId, part, records: 0 };
          c.records++;
          counts.set(k, c);
        }
        if (!framed) unframed++;
      }
    }
    reached.push(at);
  }
  const complete = bounds.every((b, i) => reached[i]! >= b.highWatermark);
  const found = [...counts.values()].sort((a, b) => a.id - b.id || a.part.localeCompare(b.part));
  const subjectsOf = await subjectsFor([...new Set(found.map((c) => c.id))]);
  return { topic, scanned, ids: found.map((c) => ({ ...c, subjects: subjectsOf(c.id) })), unframed, complete };
}
