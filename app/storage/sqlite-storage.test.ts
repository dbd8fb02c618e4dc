import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KafkaError } from '../api/errors.js';
import { recordText, Simulation, textRecord } from '../sim/simulation.js';
import { latestVersion, migrate } from './migrations.js';
import { SqliteStorage } from './sqlite-storage.js';
import { DEFAULT_CACHE_KIB } from './sqlite-file.js';
import { encodeRecordBatch, STORAGE_CODECS } from './record-batch-codec.js';
import { createCompressionCodecs } from '../protocol/records/compression.js';
import type { LogRecord, RecordBatch } from '../core/log/records.js';
import { kafkaErrorOf } from '../core/test-support/kafka-error.js';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'replica-studio-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const errorOf = kafkaErrorOf;

/** A batch of `n` text records from `base`, the i-th stamped `at + i`. */
const batch = (base: number, n: number, epoch: number, at: number) => ({
  baseOffset: base,
  lastOffset: base + n - 1,
  leaderEpoch: epoch,
  appendTimeMs: at,
  records: Array.from({ length: n }, (_, i) => ({ ...textRecord(`v${base + i}`), timestamp: at + i })),
  sizeBytes: 0,
});

describe('SQLite storage', () => {
  it('gives each file a page cache of DEFAULT_CACHE_KIB, not better-sqlite3\'s 16 MiB per connection', () => {
    const storage = SqliteStorage.open(tempDir());
    try {
      storage.broker(1).replicaKeys();
      storage.metadata();
      const files = (storage as unknown as { files: { db: BetterSqlite3.Database }[] }).files;
      expect(files.length).toBe(2);
      for (const f of files) expect(f.db.pragma('cache_size', { simple: true })).toBe(-DEFAULT_CACHE_KIB);
    } finally {
      storage.close();
    }
  });

  it('keeps topics, configs, logs, HW and epochs across a reopen after an orderly shutdown', () => {
    const dir = tempDir();
    let storage = SqliteStorage.open(dir);
    let sim = new Simulation({ seed: 1, storage });
    sim.createTopic('orders', 2, 3, { 'min.insync.replicas': '2', 'retention.ms': '86400000' });
    for (let i = 0; i < 20; i++) expect(sim.produce('orders', i % 2, [`v${i}`]).errorCode).toBe('NONE');
    sim.advance(6_000);
    const before = [0, 1].map((p) => sim.partition('orders', p));
    const closingAt = sim.now;
    sim.engine.shutdown();
    sim.waitFor(() => sim.engine.isShutDown(), 60_000, 'shutdown');
    storage.close();

    storage = SqliteStorage.open(dir);
    sim = new Simulation({ seed: 2, storage });
    expect(sim.now).toBeGreaterThanOrEqual(closingAt); // the clock carries on from the close
    for (const p of [0, 1]) {
      const after = sim.partition('orders', p);
      expect(after.replicas).toEqual(before[p]!.replicas);
      expect(after.highWatermark).toBe(10);
      expect(sim.consumeAll('orders', p).map(recordText)).toEqual(Array.from({ length: 10 }, (_, i) => `v${2 * i + p}`));
    }
    expect(sim.engine.metadata.topicsByName.get('orders')!.configs).toEqual({ 'min.insync.replicas': '2', 'retention.ms': '86400000' });
    // Epoch caches survive: the leader's cache starts at epoch 0, offset 0.
    const leader = sim.internals.brokers.get(sim.partition('orders', 0).leader)!.partitionFor('orders', 0)!;
    expect(leader.log.epochCache.entries()[0]).toEqual({ epoch: 0, startOffset: 0 });
    storage.close();
  });

  it('recovers after the process dies without a shutdown (nothing written is lost)', () => {
    const dir = tempDir();
    let storage = SqliteStorage.open(dir);
    let sim = new Simulation({ seed: 3, storage });
    sim.createTopic('t', 1, 3);
    for (let i = 0; i < 50; i++) expect(sim.produce('t', 0, [`r${i}`]).errorCode).toBe('NONE');
    storage.close(); // as if the process was killed: no shutdown, no final checkpoint

    storage = SqliteStorage.open(dir);
    sim = new Simulation({ seed: 4, storage, start: false });
    sim.engine.start();
    sim.waitFor(() => sim.engine.listBrokers().every((b) => b.state === 'running'), 60_000, 'brokers rejoin');
    sim.waitFor(() => sim.partition('t', 0).highWatermark === 50, 30_000, 'HW back at 50');
    expect(sim.consumeAll('t', 0)).toHaveLength(50);
    storage.close();
  });

  it('copies the WAL into the file a little after a commit, not inside it; a process killed before that loses nothing', async () => {
    const dir = tempDir();
    const file = join(dir, 'metadata.db');
    const records = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ offset: from + i, timestampMs: 1, record: { type: 'Note', text: 'x'.repeat(1000), i: from + i } }));
    const storage = SqliteStorage.open(dir, { checkpointDelayMs: 100 });
    const meta = storage.metadata();
    const before = statSync(file).size;
    // ~6 MB in one commit: past SQLite's own 1,000-page checkpoint, which would copy it in the commit.
    storage.batch(() => meta.append(records(0, 6_000)));
    expect(statSync(file).size).toBe(before);
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(5_000_000);
    const started = Date.now();
    while (statSync(file).size < 5_000_000 && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 20));
    expect(statSync(file).size).toBeGreaterThan(5_000_000);

    // More, then the process dies at once (another process, so the file is left as a kill leaves it).
    const script = `
      import { SqliteStorage } from ${JSON.stringify(join(import.meta.dirname, 'sqlite-storage.ts'))};
      const s = SqliteStorage.open(${JSON.stringify(dir + '-2')});
      const m = s.metadata();
      s.batch(() => m.append(Array.from({ length: 6000 }, (_, i) => ({ offset: i, timestampMs: 1, record: { i } }))));
      process.kill(process.pid, 'SIGKILL');`;
    dirs.push(dir + '-2');
    storage.close();
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.signal).toBe('SIGKILL');
    expect(statSync(`${dir}-2/metadata.db-wal`).size).toBeGreaterThan(statSync(`${dir}-2/metadata.db`).size); // it was all in the WAL
    const reopened = SqliteStorage.open(dir + '-2');
    try {
      const back = reopened.metadata().readAll();
      expect(back).toHaveLength(6_000);
      expect(back[5_999]).toEqual({ offset: 5_999, timestampMs: 1, record: { i: 5_999 } });
    } finally {
      reopened.close();
    }
  });

  it('keeps a reassignment in flight, its throttles and a stopped broker across a reopen', () => {
    const dir = tempDir();
    let storage = SqliteStorage.open(dir);
    let sim = new Simulation({ seed: 5, storage, brokers: 4 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    for (let i = 0; i < 10; i++) sim.produce('t', 0, [`r${i}`]);
    sim.engine.stallFollower(4);
    sim.engine.executeReassignment({ partitions: [{ topic: 't', partition: 0, replicas: [1, 2, 4] }], throttleBytesPerSec: 10_000_000 });
    sim.engine.stopBroker(4); // the move to 4 cannot finish while 4 is down
    sim.waitFor(() => sim.engine.brokerState(4) === 'stopped', 30_000, 'broker 4 stopped');
    expect(sim.engine.listReassignments()).toHaveLength(1);
    sim.engine.shutdown();
    sim.waitFor(() => sim.engine.isShutDown(), 60_000, 'shutdown');
    storage.close();

    storage = SqliteStorage.open(dir);
    sim = new Simulation({ seed: 6, storage, start: false });
    sim.engine.start();
    sim.waitFor(() => [1, 2, 3].every((b) => sim.engine.brokerState(b) === 'running'), 60_000, 'brokers 1-3 back');
    expect(sim.engine.brokerState(4)).toBe('stopped'); // stays as the user left it
    expect(sim.engine.listReassignments()).toMatchObject([{ topic: 't', partition: 0, replicas: [1, 2, 4, 3], addingReplicas: [4], removingReplicas: [3] }]);
    expect(sim.engine.metadata.topicsByName.get('t')!.configs['follower.replication.throttled.replicas']).toBe('0:4');
    sim.engine.startBroker(4);
    sim.waitFor(() => sim.engine.listReassignments().length === 0, 60_000, 'the reassignment to complete');
    expect(sim.partition('t', 0).replicas).toEqual([1, 2, 4]);
    expect(sim.consumeAll('t', 0)).toHaveLength(10);
    storage.close();
  });

  it('migrates a version-1 broker file to the latest schema, keeping its data', () => {
    const dir = tempDir();
    const file = join(dir, 'broker-1.db');
    const db = new BetterSqlite3(file);
    expect(migrate(db, 'broker', file, 1)).toBe(1);
    db.prepare("INSERT INTO replicas (key, high_watermark) VALUES ('abc:0', 7)").run();
    expect(() => db.prepare('SELECT * FROM segments').all()).toThrow(/no such table/);
    db.close();
    const storage = SqliteStorage.open(dir);
    const broker = storage.broker(1);
    expect(broker.replicaKeys()).toEqual(['abc:0']);
    expect(broker.replica('abc:0').loadCheckpoint().highWatermark).toBe(7);
    expect(broker.replica('abc:0').loadSegments()).toEqual([]);
    const version = new BetterSqlite3(file, { readonly: true });
    storage.close();
    expect((version.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value).toBe(String(latestVersion('broker')));
    version.close();
  });

  it("a broker's store tells which replica logs it holds and their total size, without creating any", () => {
    const dir = tempDir();
    const storage = SqliteStorage.open(dir);
    const broker = storage.broker(1);
    expect(broker.hasReplica('t:0')).toBe(false);
    expect(broker.totalBytes()).toBe(0);
    const log = broker.replica('t:0');
    log.append({ baseOffset: 0, lastOffset: 1, leaderEpoch: 0, appendTimeMs: 5, records: [textRecord('a'), textRecord('bb')], sizeBytes: 0 });
    broker.replica('t:1').append({ baseOffset: 0, lastOffset: 0, leaderEpoch: 0, appendTimeMs: 5, records: [textRecord('c')], sizeBytes: 0 });
    expect(broker.hasReplica('t:0')).toBe(true);
    expect(broker.hasReplica('t:2')).toBe(false);
    expect(broker.replicaKeys()).toEqual(['t:0', 't:1']);
    expect(broker.totalBytes()).toBe(log.sizeBytes() + broker.replica('t:1').sizeBytes());
    expect(log.sizeBytes()).toBeGreaterThan(61);
    broker.deleteReplica('t:0');
    expect(broker.hasReplica('t:0')).toBe(false);
    expect(broker.totalBytes()).toBe(broker.replica('t:1').sizeBytes());
    storage.close();
    // Reopened: read from the file.
    const again = SqliteStorage.open(dir);
    expect(again.broker(1).hasReplica('t:1')).toBe(true);
    expect(again.broker(1).hasReplica('t:0')).toBe(false);
    expect(again.broker(1).totalBytes()).toBeGreaterThan(61);
    again.close();
  });

  it("stores a batch that carries its bytes (a client's, or the leader's a follower copies) as those bytes, its largest timestamp from their header, never building its records", () => {
    const storage = SqliteStorage.open(tempDir());
    try {
      const sent = batch(0, 3, 0, 100);
      const encoded = encodeRecordBatch({ ...sent, records: [sent.records[2]!, sent.records[0]!, sent.records[1]!] }); // the largest first
      const lazy: RecordBatch = {
        baseOffset: 0,
        lastOffset: 2,
        leaderEpoch: 0,
        appendTimeMs: 100,
        get records(): LogRecord[] {
          throw new Error('the records were built');
        },
        sizeBytes: encoded.length,
        encoded,
      };
      const leader = storage.broker(1).replica('t:0');
      leader.append(lazy);
      const follower = storage.broker(2).replica('t:0');
      follower.append(leader.read(0, 3, 1 << 20)[0]!);
      for (const log of [leader, follower]) {
        expect(log.rangeStats(0, 3)).toEqual({ bytes: encoded.length, maxTimestamp: 102, maxAppendTimeMs: 100 });
        expect(Buffer.from(log.read(0, 3, 1 << 20)[0]!.encoded!)).toEqual(encoded);
      }
    } finally {
      storage.close();
    }
  });

  it('a scan of header fields (the producer state rebuilt after a reopen) checks the CRC but neither decompresses nor walks the records; a read to serve checks them', () => {
    const dir = tempDir();
    const codecs = createCompressionCodecs();
    const encoded = [0, 3].map((base) =>
      encodeRecordBatch({ ...batch(base, 3, 0, 100), sizeBytes: 0 }, { compression: 'lz4', codecs, producer: { id: 7, epoch: 1, baseSequence: base } }),
    );
    const first = SqliteStorage.open(dir);
    try {
      for (const [i, bytes] of encoded.entries()) first.broker(1).replica('t:0').append({ ...batch(i * 3, 3, 0, 100), sizeBytes: bytes.length, encoded: bytes, producer: { producerId: 7, producerEpoch: 1, baseSequence: i * 3 } });
    } finally {
      first.close();
    }
    const storage = SqliteStorage.open(dir);
    const decompress = vi.spyOn(STORAGE_CODECS, 'decompress');
    try {
      const log = storage.broker(1).replica('t:0');
      const scanned = log.read(0, 6, 1 << 20, true);
      expect(scanned.map((b) => [b.baseOffset, b.lastOffset, b.producer])).toEqual([
        [0, 2, { producerId: 7, producerEpoch: 1, baseSequence: 0 }],
        [3, 5, { producerId: 7, producerEpoch: 1, baseSequence: 3 }],
      ]);
      expect(decompress).not.toHaveBeenCalled();
      expect(scanned[1]!.records.map(recordText)).toEqual(['v3', 'v4', 'v5']); // checked and built when read
      expect(decompress).toHaveBeenCalledTimes(1);
      decompress.mockClear();
      log.read(0, 6, 1 << 20);
      expect(decompress).toHaveBeenCalledTimes(2);
      // A flipped byte is found by the scan too (CRC-32C).
      const file = new BetterSqlite3(join(dir, 'broker-1.db'));
      const row = file.prepare('SELECT data FROM batches WHERE base_offset = 3').get() as { data: Buffer };
      row.data.writeUInt8(row.data.readUInt8(row.data.length - 2) ^ 0xff, row.data.length - 2);
      file.prepare('UPDATE batches SET data = ? WHERE base_offset = 3').run(row.data);
      file.close();
      storage.close();
      const reopened = SqliteStorage.open(dir);
      try {
        expect(errorOf(() => reopened.broker(1).replica('t:0').read(0, 6, 1 << 20, true))).toMatchObject({ code: 'CORRUPT_MESSAGE', message: expect.stringMatching(/CRC32C/) });
      } finally {
        reopened.close();
      }
    } finally {
      decompress.mockRestore();
      storage.close();
    }
  });

  it('replica logs opened after listing them (one bulk read) are the logs as stored: end, size, checkpoint, epochs, segments, range stats', () => {
    const dir = tempDir();
    const storage = SqliteStorage.open(dir);
    const broker = storage.broker(1);
    const a = broker.replica('a:0');
    a.append(batch(0, 3, 0, 100));
    a.append(batch(3, 2, 1, 200));
    a.saveEpochs([{ epoch: 0, startOffset: 0 }, { epoch: 1, startOffset: 3 }]);
    a.saveSegments([{ baseOffset: 0, createdMs: 100 }, { baseOffset: 3, createdMs: 200 }]);
    a.saveCheckpoint({ highWatermark: 4, logStartOffset: 0, flushedOffset: 3 });
    broker.replica('b:0'); // empty
    storage.close();
    const view = (log: ReturnType<typeof broker.replica>) => ({
      end: log.endOffset(),
      size: log.sizeBytes(),
      checkpoint: log.loadCheckpoint(),
      epochs: log.loadEpochs(),
      segments: log.loadSegments(),
      whole: log.rangeStats(0, log.endOffset()),
      last: log.rangeStats(3, log.endOffset()),
    });
    const direct = SqliteStorage.open(dir);
    const expected = ['a:0', 'b:0'].map((k) => view(direct.broker(1).replica(k)));
    direct.close();
    const listed = SqliteStorage.open(dir);
    expect(listed.broker(1).replicaKeys()).toEqual(['a:0', 'b:0']);
    const got = ['a:0', 'b:0'].map((k) => view(listed.broker(1).replica(k)));
    expect(got).toEqual(expected);
    expect(got[0]!.whole.bytes).toBe(got[0]!.size);
    expect(got[1]).toMatchObject({ end: 0, size: 0, whole: { bytes: 0, maxTimestamp: -1, maxAppendTimeMs: -1 } });
    // A write drops what the bulk read knew: the log reads its file again.
    const a2 = listed.broker(1).replica('a:0');
    a2.truncateTo(3);
    expect(a2.rangeStats(0, a2.endOffset())).toEqual({ bytes: a2.sizeBytes(), maxTimestamp: 102, maxAppendTimeMs: 100 });
    listed.close();
  });

  it('a listed replica log hands its bulk-read checkpoint, epochs and segments to the log that opens it and keeps no copy; later reads ask the file', () => {
    const dir = tempDir();
    const storage = SqliteStorage.open(dir);
    const a = storage.broker(1).replica('a:0');
    a.append(batch(0, 3, 0, 100));
    a.saveEpochs([{ epoch: 0, startOffset: 0 }, { epoch: 1, startOffset: 2 }]);
    a.saveSegments([{ baseOffset: 0, createdMs: 100 }]);
    a.saveCheckpoint({ highWatermark: 3, logStartOffset: 0, flushedOffset: 3 });
    storage.close();

    const listed = SqliteStorage.open(dir);
    expect(listed.broker(1).replicaKeys()).toEqual(['a:0']);
    const log = listed.broker(1).replica('a:0');
    const opened = { checkpoint: log.loadCheckpoint(), epochs: log.loadEpochs(), segments: log.loadSegments() };
    // What the log was opened with is no longer held beside the log (a reopened broker's idle logs kept it for good).
    const kept = (log as unknown as { preloaded: { row: unknown; epochs: unknown; segments: unknown } | null }).preloaded;
    expect(kept).toBeNull();
    // A second read gives the same answers, from the file.
    expect({ checkpoint: log.loadCheckpoint(), epochs: log.loadEpochs(), segments: log.loadSegments() }).toEqual(opened);
    expect(opened).toEqual({
      checkpoint: { highWatermark: 3, logStartOffset: 0, flushedOffset: 3 },
      epochs: [{ epoch: 0, startOffset: 0 }, { epoch: 1, startOffset: 2 }],
      segments: [{ baseOffset: 0, createdMs: 100 }],
    });
    // The whole-log figures of the bulk read, kept by the log, still answer rangeStats without a
    // query, and stay right through appends; after a truncation the file is asked.
    expect(log.rangeStats(0, log.endOffset())).toEqual({ bytes: log.sizeBytes(), maxTimestamp: 102, maxAppendTimeMs: 100 });
    log.append(batch(3, 2, 1, 250));
    const appended = log.rangeStats(0, log.endOffset());
    log.truncateTo(4);
    const truncated = log.rangeStats(0, log.endOffset());
    listed.close();
    const fresh = SqliteStorage.open(dir);
    const again = fresh.broker(1).replica('a:0');
    expect(truncated).toEqual(again.rangeStats(0, again.endOffset()));
    expect(appended.bytes).toBeGreaterThan(truncated.bytes);
    expect(appended).toMatchObject({ maxTimestamp: 251, maxAppendTimeMs: 250 });
    fresh.close();
  });

  it('migrates a new metadata file to version 1', () => {
    const dir = tempDir();
    const file = join(dir, 'metadata.db');
    const db = new BetterSqlite3(file);
    expect(migrate(db, 'metadata', file)).toBe(latestVersion('metadata'));
    expect(db.prepare('SELECT count(*) AS n FROM records').get()).toEqual({ n: 0 });
    db.close();
  });

  it('migrates a version-1 metadata file to version 2 (snapshots), keeping its records; a snapshot then drops what it covers', () => {
    const dir = tempDir();
    const file = join(dir, 'metadata.db');
    const db = new BetterSqlite3(file);
    expect(migrate(db, 'metadata', file, 1)).toBe(1);
    const insert = db.prepare('INSERT INTO records (offset, timestamp_ms, record) VALUES (?, ?, ?)');
    for (let i = 0; i < 3; i++) insert.run(i, 10 * i, JSON.stringify({ type: 'Topic', name: `t${i}`, topicId: `id${i}` }));
    expect(() => db.prepare('SELECT * FROM snapshots').all()).toThrow(/no such table/);
    db.close();
    const storage = SqliteStorage.open(dir);
    const meta = storage.metadata();
    expect(meta.isEmpty()).toBe(false);
    expect(meta.latestSnapshot()).toBeNull();
    expect(meta.readAfter(0).map((r) => r.offset)).toEqual([1, 2]);
    meta.saveSnapshot({ offset: 1, timestampMs: 10, data: { offset: 1, marker: 'image at 1' } }, 0);
    meta.saveSnapshot({ offset: 2, timestampMs: 20, data: { offset: 2, marker: 'image at 2' } }, 2);
    storage.close();
    const again = SqliteStorage.open(dir);
    expect(again.metadata().latestSnapshot()).toEqual({ offset: 2, timestampMs: 20, data: { offset: 2, marker: 'image at 2' } });
    // Records and snapshots older than the kept one are gone.
    expect(again.metadata().readAll().map((r) => r.offset)).toEqual([2]);
    again.close();
    const version = new BetterSqlite3(file, { readonly: true });
    expect((version.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string }).value).toBe('2');
    expect(version.prepare('SELECT count(*) AS n FROM snapshots').get()).toEqual({ n: 1 });
    version.close();
  });

  it('refuses a file from a newer version with an error naming it, and leaves it untouched', () => {
    const dir = tempDir();
    SqliteStorage.open(dir).close();
    const file = join(dir, 'metadata.db');
    const db = new BetterSqlite3(file);
    db.pragma('journal_mode = DELETE');
    db.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
    db.close();
    const bytes = readFileSync(file);
    const err = errorOf(() => SqliteStorage.open(dir));
    expect(err.code).toBe('KAFKA_STORAGE_ERROR');
    expect(err.message).toContain(file);
    expect(err.message).toMatch(/newer version/);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('refuses a data directory another process holds, naming the locked file', () => {
    const dir = tempDir();
    const first = SqliteStorage.open(dir);
    const err = errorOf(() => SqliteStorage.open(dir));
    expect(err.code).toBe('KAFKA_STORAGE_ERROR');
    expect(err.message).toContain(join(dir, 'metadata.db'));
    expect(err.message).toMatch(/locked/);
    first.close();
    SqliteStorage.open(dir).close(); // free again once the first one closed
  });

  it('reports a read-only data directory with the file, and leaves its data intact', () => {
    const dir = tempDir();
    const storage = SqliteStorage.open(dir);
    storage.broker(1).replica('t:0').saveCheckpoint({ highWatermark: 3, logStartOffset: 0, flushedOffset: 0 });
    storage.close();
    // A read-only bind mount needs root (CI and this machine run as root); elsewhere a path on a
    // read-only file system stands in for it.
    const mounted = spawnSync('mount', ['--bind', dir, dir]).status === 0 && spawnSync('mount', ['-o', 'remount,ro,bind', dir]).status === 0;
    try {
      const target = mounted ? dir : '/proc/replica-studio-test/cluster';
      const err = errorOf(() => SqliteStorage.open(target));
      expect(err.code).toBe('KAFKA_STORAGE_ERROR');
      expect(err.message).toContain(target);
      if (mounted) expect(err.message).toMatch(/read-only/);
    } finally {
      if (mounted) spawnSync('umount', [dir]);
    }
    const again = SqliteStorage.open(dir);
    expect(again.broker(1).replica('t:0').loadCheckpoint().highWatermark).toBe(3);
    again.close();
  });

  it('reports a full disk (SQLITE_FULL) with the file, and the data written before stays readable', () => {
    const dir = tempDir();
    const storage = SqliteStorage.open(dir, { maxPageCount: 40 });
    const log = storage.broker(1).replica('t:0');
    const payload = new Uint8Array(1000).fill(7);
    let err: KafkaError | null = null;
    let written = 0;
    for (let i = 0; i < 500 && !err; i++) {
      try {
        log.append({ baseOffset: i, lastOffset: i, leaderEpoch: 0, appendTimeMs: i, records: [{ key: null, value: payload, headers: [], timestamp: i }], sizeBytes: 1061 });
        written++;
      } catch (e) {
        err = e as KafkaError;
      }
    }
    expect(err).not.toBeNull();
    expect(err!.code).toBe('KAFKA_STORAGE_ERROR');
    expect((err!.details as { sqliteCode: string }).sqliteCode).toBe('SQLITE_FULL');
    expect(err!.message).toContain(storage.brokerFile(1));
    expect(log.endOffset()).toBe(written);
    storage.close();
    const reopened = SqliteStorage.open(dir);
    const again = reopened.broker(1).replica('t:0');
    expect(again.endOffset()).toBe(written);
    expect(again.read(0, written, Number.MAX_SAFE_INTEGER).reduce((n, b) => n + b.records.length, 0)).toBe(written);
    reopened.close();
  });
});
