/**
 * In-memory implementation of the storage port. It behaves like a disk that outlives broker
 * processes for as long as the provider object lives. Batches are stored by reference (they are
 * never mutated after append), so replicas of one batch share memory.
 */
import type { EpochEntry } from './epoch-cache.js';
import type {
  BrokerDiskState,
  BrokerLogStore,
  MetadataStore,
  ReplicaCheckpoint,
  ReplicaLogStore,
  SegmentInfo,
  StorageProvider,
  StoredMetadataRecord,
  StoredMetadataSnapshot,
} from './log-store.js';
import { sliceBatch, type RecordBatch } from './records.js';

class MemoryReplicaLog implements ReplicaLogStore {
  private batches: RecordBatch[] = [];
  private epochs: EpochEntry[] = [];
  private checkpoint: ReplicaCheckpoint = { highWatermark: 0, logStartOffset: 0, flushedOffset: 0 };
  private segments: SegmentInfo[] = [];
  private bytes = 0;
  private cleanerCheckpoint: number | null = null;

  append(batch: RecordBatch): void {
    const end = this.endOffset();
    if (batch.baseOffset < end) throw new Error(`append at ${batch.baseOffset} but the log ends at ${end}`);
    this.batches.push(batch);
    this.bytes += batch.sizeBytes;
  }

  replaceCleaned(fromOffset: number, untilOffset: number, batches: readonly RecordBatch[], segments: readonly SegmentInfo[]): void {
    for (const b of batches) if (b.baseOffset < fromOffset || b.baseOffset >= untilOffset) throw new Error(`cleaned batch at ${b.baseOffset} outside [${fromOffset}, ${untilOffset})`);
    let i = this.indexOf(fromOffset);
    if (this.batches[i] && this.batches[i]!.baseOffset < fromOffset) i++;
    let j = i;
    while (j < this.batches.length && this.batches[j]!.baseOffset < untilOffset) j++;
    this.batches = [...this.batches.slice(0, i), ...batches, ...this.batches.slice(j)];
    this.bytes = this.batches.reduce((s, b) => s + b.sizeBytes, 0);
    this.segments = segments.map((s) => ({ ...s }));
  }

  loadCleanerCheckpoint(): number | null {
    return this.cleanerCheckpoint;
  }

  saveCleanerCheckpoint(offset: number | null): void {
    this.cleanerCheckpoint = offset;
  }

  private indexOf(offset: number): number {
    // First batch whose lastOffset >= offset (binary search).
    let lo = 0;
    let hi = this.batches.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.batches[mid]!.lastOffset < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  read(fromOffset: number, untilOffset: number, maxBytes: number): RecordBatch[] {
    const out: RecordBatch[] = [];
    let bytes = 0;
    for (let i = this.indexOf(fromOffset); i < this.batches.length; i++) {
      const slice = sliceBatch(this.batches[i]!, fromOffset, untilOffset);
      if (!slice) break;
      if (out.length > 0 && bytes + slice.sizeBytes > maxBytes) break;
      out.push(slice);
      bytes += slice.sizeBytes;
    }
    return out;
  }

  truncateTo(offset: number): void {
    const i = this.indexOf(offset);
    const kept = this.batches.slice(0, i);
    const straddling = this.batches[i];
    if (straddling && straddling.baseOffset < offset) kept.push(sliceBatch(straddling, straddling.baseOffset, offset, true)!);
    this.batches = kept;
    this.bytes = kept.reduce((s, b) => s + b.sizeBytes, 0);
  }

  deleteBefore(offset: number): void {
    const i = this.indexOf(offset);
    const rest = this.batches.slice(i);
    const first = rest[0];
    if (first && first.baseOffset < offset) rest[0] = sliceBatch(first, offset, first.lastOffset + 1, true)!;
    this.batches = rest;
    this.bytes = rest.reduce((s, b) => s + b.sizeBytes, 0);
    if (this.checkpoint.logStartOffset < offset) this.checkpoint = { ...this.checkpoint, logStartOffset: offset };
  }

  endOffset(): number {
    const last = this.batches[this.batches.length - 1];
    return last ? last.lastOffset + 1 : this.checkpoint.logStartOffset;
  }

  sizeBytes(): number {
    return this.bytes;
  }

  loadEpochs(): EpochEntry[] {
    return this.epochs.map((e) => ({ ...e }));
  }

  saveEpochs(entries: readonly EpochEntry[]): void {
    this.epochs = entries.map((e) => ({ ...e }));
  }

  loadCheckpoint(): ReplicaCheckpoint {
    return { ...this.checkpoint };
  }

  saveCheckpoint(checkpoint: ReplicaCheckpoint): void {
    this.checkpoint = { ...checkpoint };
  }

  loadSegments(): SegmentInfo[] {
    return this.segments.map((s) => ({ ...s }));
  }

  saveSegments(segments: readonly SegmentInfo[]): void {
    this.segments = segments.map((s) => ({ ...s }));
  }

  /** Whole batches whose base offset is in the range (segment boundaries fall between batches). */
  rangeStats(fromOffset: number, untilOffset: number): { bytes: number; maxTimestamp: number; maxAppendTimeMs: number } {
    let bytes = 0;
    let maxTimestamp = -1;
    let maxAppendTimeMs = -1;
    let i = this.indexOf(fromOffset);
    if (this.batches[i] && this.batches[i]!.baseOffset < fromOffset) i++;
    for (; i < this.batches.length && this.batches[i]!.baseOffset < untilOffset; i++) {
      const b = this.batches[i]!;
      bytes += b.sizeBytes;
      maxAppendTimeMs = Math.max(maxAppendTimeMs, b.appendTimeMs);
      for (const r of b.records) maxTimestamp = Math.max(maxTimestamp, r.timestamp);
    }
    return { bytes, maxTimestamp, maxAppendTimeMs };
  }
}

class MemoryBrokerStore implements BrokerLogStore {
  private readonly replicas = new Map<string, MemoryReplicaLog>();
  private state: BrokerDiskState = { cleanShutdown: false, lastBrokerEpoch: -1, powerLost: false };

  replica(key: string): ReplicaLogStore {
    let r = this.replicas.get(key);
    if (!r) {
      r = new MemoryReplicaLog();
      this.replicas.set(key, r);
    }
    return r;
  }

  replicaKeys(): string[] {
    return [...this.replicas.keys()];
  }

  hasReplica(key: string): boolean {
    return this.replicas.has(key);
  }

  deleteReplica(key: string): void {
    this.replicas.delete(key);
  }

  totalBytes(): number {
    let total = 0;
    for (const r of this.replicas.values()) total += r.sizeBytes();
    return total;
  }

  loadState(): BrokerDiskState {
    return { ...this.state };
  }

  saveState(state: BrokerDiskState): void {
    this.state = { ...state };
  }
}

class MemoryMetadataStore implements MetadataStore {
  private records: StoredMetadataRecord[] = [];
  private snapshots: StoredMetadataSnapshot[] = [];
  private readonly settings = new Map<string, string>();
  loadSettings(): Record<string, string> {
    return Object.fromEntries(this.settings);
  }
  saveSetting(key: string, value: string | null): void {
    if (value === null) this.settings.delete(key);
    else this.settings.set(key, value);
  }
  append(records: readonly StoredMetadataRecord[]): void {
    this.records.push(...records);
  }
  readAll(): StoredMetadataRecord[] {
    return [...this.records];
  }
  readAfter(offset: number, limit = Infinity): StoredMetadataRecord[] {
    return this.records.filter((r) => r.offset > offset).slice(0, limit);
  }
  isEmpty(): boolean {
    return this.records.length === 0 && this.snapshots.length === 0;
  }
  latestSnapshot(): StoredMetadataSnapshot | null {
    return this.snapshots[this.snapshots.length - 1] ?? null;
  }
  saveSnapshot(snapshot: StoredMetadataSnapshot, keepFrom: number): void {
    // Stored as JSON text, as the SQLite store does: a later change to the image cannot reach it.
    this.snapshots.push({ ...snapshot, data: JSON.parse(JSON.stringify(snapshot.data)) as unknown });
    this.snapshots = this.snapshots.filter((s) => s.offset >= keepFrom);
    this.records = this.records.filter((r) => r.offset >= keepFrom);
  }
}

export class MemoryStorage implements StorageProvider {
  private readonly brokers = new Map<number, MemoryBrokerStore>();
  private readonly meta = new MemoryMetadataStore();

  broker(brokerId: number): BrokerLogStore {
    let b = this.brokers.get(brokerId);
    if (!b) {
      b = new MemoryBrokerStore();
      this.brokers.set(brokerId, b);
    }
    return b;
  }

  metadata(): MetadataStore {
    return this.meta;
  }
}
