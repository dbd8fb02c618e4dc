/**
 * Storage failures on real SQLite files: a corrupt batch takes only that replica offline; a full
 * disk halts only that broker (Kafka with its only log directory offline). The cluster carries on
 * and nothing already written is damaged.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordText, Simulation } from '../sim/simulation.js';
import { SqliteStorage } from './sqlite-storage.js';

const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'replica-studio-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('storage failures', () => {
  it('a corrupt batch takes that replica offline with a coded error; another replica takes over', () => {
    const dir = tempDir();
    const storage = SqliteStorage.open(dir);
    const sim = new Simulation({ seed: 31, storage });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    for (let i = 0; i < 60; i++) expect(sim.produce('t', 0, [`v${i}`]).errorCode).toBe('NONE');
    sim.advance(1_000);
    // Flip one byte inside the first batch's records on the leader's file (the CRC no longer matches).
    const leaderFile = storage.brokerStore(1).file;
    const row = leaderFile.db.prepare('SELECT replica, base_offset, data FROM batches ORDER BY base_offset LIMIT 1').get() as { replica: number; base_offset: number; data: Buffer };
    const damaged = Buffer.from(row.data);
    damaged.writeUInt8(damaged.readUInt8(damaged.length - 3) ^ 0xff, damaged.length - 3);
    leaderFile.db.prepare('UPDATE batches SET data = ? WHERE replica = ? AND base_offset = ?').run(damaged, row.replica, row.base_offset);

    const first = sim.consume('t', 0, 0);
    expect(first.errorCode).toBe('KAFKA_STORAGE_ERROR');
    const offline = sim.eventsOf('replica.offline');
    expect(offline).toHaveLength(1);
    expect(offline[0]).toMatchObject({ brokerId: 1, errorCode: 'CORRUPT_MESSAGE' });
    expect(offline[0]!.message).toContain(storage.brokerFile(1));
    expect(offline[0]!.message).toMatch(/offset 0/);
    sim.waitFor(() => sim.partition('t', 0).leader === 2, 10_000, 'broker 2 leading');
    expect(sim.partition('t', 0).isr).not.toContain(1);
    expect(sim.engine.brokerState(1)).toBe('running'); // only the replica, not the broker
    expect(sim.consumeAll('t', 0).map(recordText)).toEqual(Array.from({ length: 60 }, (_, i) => `v${i}`));
    expect(sim.produce('t', 0, ['after']).errorCode).toBe('NONE');
    sim.advance(60_000);
    expect(sim.partition('t', 0).isr).not.toContain(1); // it cannot rejoin while offline
    storage.close();
  });

  it('a full disk halts that broker with an error naming its file; the cluster carries on and nothing is damaged', () => {
    const dir = tempDir();
    let storage = SqliteStorage.open(dir, { maxPageCount: 120 });
    const sim = new Simulation({ seed: 32, storage });
    sim.createTopic('t', 1, 3, { 'min.insync.replicas': '2' }, [[1, 2, 3]]);
    const payload = 'x'.repeat(2_000);
    const acked: string[] = [];
    for (let i = 0; i < 400 && sim.eventsOf('broker.storageFailed').length === 0; i++) {
      const r = sim.produce('t', 0, [`${i}:${payload}`]);
      if (r.errorCode === 'NONE') acked.push(`${i}:${payload}`);
    }
    const failed = sim.eventsOf('broker.storageFailed');
    expect(failed.length).toBeGreaterThanOrEqual(1);
    const broker = failed[0]!.brokerId;
    expect(failed[0]!.errorCode).toBe('KAFKA_STORAGE_ERROR');
    expect(failed[0]!.message).toContain(storage.brokerFile(broker));
    expect(failed[0]!.message).toMatch(/full/);
    expect(sim.engine.brokerState(broker)).toBe('storage-failed');
    storage.close();

    // More space: reopen without the limit; every acknowledged record is intact.
    storage = SqliteStorage.open(dir);
    const again = new Simulation({ seed: 33, storage });
    again.waitFor(() => again.partition('t', 0).isr.length === 3, 60_000, 'full ISR');
    const values = again.consumeAll('t', 0).map(recordText);
    for (const v of acked) expect(values).toContain(v);
    storage.close();
  });

  it('an unreadable broker file fails only that broker, with an error naming the file', () => {
    const dir = tempDir();
    let storage = SqliteStorage.open(dir);
    let sim = new Simulation({ seed: 34, storage });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    for (let i = 0; i < 5; i++) sim.produce('t', 0, [`v${i}`]);
    sim.engine.shutdown();
    sim.waitFor(() => sim.engine.isShutDown(), 60_000, 'shutdown');
    // Damage a broker that is not the partition's last ISR member (that one would keep it offline).
    const isr = sim.partition('t', 0).isr;
    const victim = [1, 2, 3].find((b) => !isr.includes(b)) ?? isr[isr.length - 1]!;
    storage.close();
    writeFileSync(join(dir, `broker-${victim}.db`), 'this is not a database, it was overwritten by mistake'.repeat(100));
    rmSync(join(dir, `broker-${victim}.db-wal`), { force: true });

    storage = SqliteStorage.open(dir);
    sim = new Simulation({ seed: 35, storage, start: false });
    sim.engine.start();
    const others = [1, 2, 3].filter((b) => b !== victim);
    sim.waitFor(() => others.every((b) => sim.engine.brokerState(b) === 'running'), 60_000, 'the other brokers');
    expect(sim.engine.brokerState(victim)).toBe('storage-failed');
    const failed = sim.eventsOf('broker.storageFailed')[0]!;
    expect(failed.brokerId).toBe(victim);
    expect(failed.message).toContain(join(dir, `broker-${victim}.db`));
    sim.waitFor(() => others.includes(sim.partition('t', 0).leader), 60_000, 'a leader');
    expect(sim.consumeAll('t', 0).map(recordText)).toEqual(['v0', 'v1', 'v2', 'v3', 'v4']);
    storage.close();
  });
});
