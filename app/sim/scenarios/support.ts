/** Shared steps of the scenario tests (docs/semantics.md#the-scenario-suite). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kafkaErrorOf } from '../../core/test-support/kafka-error.js';
import type { StorageProvider } from '../../core/log/log-store.js';
import { MemoryStorage } from '../../core/log/memory-log-store.js';
import { SqliteStorage } from '../../storage/sqlite-storage.js';
import type { ClusterView } from '../../api/views.js';
import type { Simulation } from '../simulation.js';
import { serviceOver, type VirtualClusterService } from '../virtual-service.js';

/** The error code a synchronous engine call throws. */
export function errorCode(fn: () => unknown): string {
  return kafkaErrorOf(fn).code;
}

/** Run the clock until the controller's ISR of `topic-partition` equals `isr` (as a set). */
export function waitForIsr(sim: Simulation, topic: string, partition: number, isr: number[], maxMs = 120_000): number {
  const want = [...isr].sort((a, b) => a - b).join();
  return sim.waitFor(() => [...sim.partition(topic, partition).isr].sort((a, b) => a - b).join() === want, maxMs, `ISR {${want}} of ${topic}-${partition}`);
}

const services = new WeakMap<Simulation, VirtualClusterService>();

/**
 * The product's own health figures, read as the console reads them (`cluster.describe`): Kafka's
 * OfflinePartitionsCount, UnderReplicatedPartitions, UnderMinIsrPartitionCount and
 * FencedBrokerCount. Scenarios assert on these rather than recomputing them.
 */
export async function clusterHealth(sim: Simulation): Promise<ClusterView> {
  let svc = services.get(sim);
  if (!svc) services.set(sim, (svc = serviceOver(sim, { seed: 1, fastForwardMs: null })));
  const r = await svc.call('cluster.describe', {});
  if (!r.ok) throw new Error(`cluster.describe failed: ${r.error.code} ${r.error.message}`);
  return r.value;
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

/** What a steady producer saw: every answer's error code and latency, in the order sent. */
export interface SteadyTraffic {
  sent: number;
  answered: number;
  errors: string[];
  latenciesMs: number[];
  /** Stop sending (answers still in flight keep arriving). */
  stop(): void;
}

/**
 * A producer that sends one record to `topic-partition` every `everyMs` of engine time without
 * waiting for answers (several requests in flight, as a real producer with linger.ms and
 * max.in.flight.requests.per.connection), until stopped.
 */
export function steadyProducer(sim: Simulation, topic: string, partition: number, acks: 1 | 'all', everyMs: number): SteadyTraffic {
  let on = true;
  const traffic: SteadyTraffic = {
    sent: 0,
    answered: 0,
    errors: [],
    latenciesMs: [],
    stop: () => {
      on = false;
    },
  };
  const encoder = new TextEncoder();
  const tick = (): void => {
    if (!on) return;
    const sentAt = sim.now;
    const value = encoder.encode(`steady-${traffic.sent++}`);
    sim.engine.produce({ topic, partition, acks, timeoutMs: 30_000, records: [{ key: null, value, headers: [], timestamp: sentAt }] }, (r) => {
      traffic.answered++;
      traffic.latenciesMs.push(sim.now - sentAt);
      if (r.errorCode !== 'NONE') traffic.errors.push(r.errorCode);
    });
    sim.scheduler.schedule(everyMs, tick);
  };
  tick();
  return traffic;
}
