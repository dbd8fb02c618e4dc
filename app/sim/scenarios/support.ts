/** Shared steps of the scenario tests (kafka-semantics.md, "Test scenarios"). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kafkaErrorOf } from '../../core/test-support/kafka-error.js';
import type { StorageProvider } from '../../core/log/log-store.js';
import { MemoryStorage } from '../../core/log/memory-log-store.js';
import { SqliteStorage } from '../../storage/sqlite-storage.js';
import type { Simulation } from '../simulation.js';

/** The error code a synchronous engine call throws. */
export function errorCode(fn: () => unknown): string {
  return kafkaErrorOf(fn).code;
}

/** Run the clock until the controller's ISR of `topic-partition` equals `isr` (as a set). */
export function waitForIsr(sim: Simulation, topic: string, partition: number, isr: number[], maxMs = 120_000): number {
  const want = [...isr].sort((a, b) => a - b).join();
  return sim.waitFor(() => [...sim.partition(topic, partition).isr].sort((a, b) => a - b).join() === want, maxMs, `ISR {${want}} of ${topic}-${partition}`);
}

/** Offline partitions (leader -1), as OfflinePartitionsCount counts them. */
export function offlinePartitionCount(sim: Simulation): number {
  let n = 0;
  for (const { state } of sim.engine.metadata.allPartitions()) if (state.leader < 0) n++;
  return n;
}

/** Fenced registered brokers, as FencedBrokerCount counts them. */
export function fencedBrokerCount(sim: Simulation): number {
  return [...sim.engine.metadata.brokers.values()].filter((b) => b.fenced).length;
}

/** The live replica of a partition on a broker. */
export function replica(sim: Simulation, brokerId: number, topic: string, partition = 0) {
  const p = sim.internals.brokers.get(brokerId)?.partitionFor(topic, partition);
  if (!p) throw new Error(`broker ${brokerId} has no live replica of ${topic}-${partition}`);
  return p;
}

export const values = (from: number, to: number, prefix = 'm'): string[] => Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${from + i}`);

/** The storages a scenario runs on: in memory, and real SQLite files in a temp directory. */
export const STORAGES: { name: string; make: () => StorageProvider }[] = [
  { name: 'in memory', make: () => new MemoryStorage() },
  {
    name: 'on SQLite',
    make: () => {
      const dir = mkdtempSync(join(tmpdir(), 'replica-studio-scenario-'));
      const storage = SqliteStorage.open(dir);
      openStorages.push({ storage, dir });
      return storage;
    },
  },
];

const openStorages: { storage: SqliteStorage; dir: string }[] = [];

/** Close and delete the SQLite storages made by STORAGES (call in afterEach). */
export function cleanUpStorages(): void {
  for (const { storage, dir } of openStorages.splice(0)) {
    storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
