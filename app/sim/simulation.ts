/**
 * A simulated cluster on the virtual clock: the engine with a ManualScheduler, a seeded random
 * and in-memory storage, plus synchronous helpers that run the clock until an asynchronous
 * operation answers. Used by the scenario tests, the randomized fault test and drills that
 * fast-forward time.
 */
import { engineInternals, type EngineInternals } from '../core/cluster/internals.js';
import { createEngine, Engine, type ConsumeResult, type ConsumedRecord, type EngineOptions, type ProduceResult } from '../core/engine.js';
import { MemoryStorage } from '../core/log/memory-log-store.js';
import { recordOffset, type LogRecord } from '../core/log/records.js';
import type { StorageProvider } from '../core/log/log-store.js';
import type { DeliveryPort } from '../core/network.js';
import { ManualScheduler } from '../core/time.js';
import type { EngineEvent } from '../api/events.js';
import { seededRandom } from '../core/random.js';
import { groupRecordCodec } from '../protocol/group-records.js';
import { txnRecordCodec } from '../protocol/txn-records.js';
import { createCleanedBatchWriter } from '../protocol/records/cleaned-batch-writer.js';

export interface SimOptions {
  seed?: number;
  brokers?: number | { id: number; rack?: string | null }[];
  staticConfigs?: Record<string, string>;
  placement?: EngineOptions['placement'];
  storage?: StorageProvider;
  networkDelayMs?: number;
  /** Start the brokers and wait until all are unfenced (default true). */
  start?: boolean;
  /** Engine time at start (default: the time the storage last saw, or 0). */
  startMs?: number;
  /** Where network messages are delivered (the explorer's choice port); default: the scheduler. */
  deliveries?: (scheduler: ManualScheduler) => DeliveryPort;
  /** The LogValidator port, for simulations that take Kafka clients' record batches. */
  producedBatches?: EngineOptions['producedBatches'];
  /** Writes the batches the log cleaner keeps part of (default: app/protocol's, as the hosts use). */
  cleanedBatches?: EngineOptions['cleanedBatches'];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function textRecord(value: string, key?: string): LogRecord {
  return { key: key === undefined ? null : encoder.encode(key), value: encoder.encode(value), headers: [], timestamp: 0 };
}

export function recordText(r: { value: Uint8Array | null }): string | null {
  return r.value ? decoder.decode(r.value) : null;
}

export class Simulation {
  readonly scheduler: ManualScheduler;
  readonly engine: Engine;
  /** The engine's insides (controller, brokers with their replicas and logs, network): white-box checks only. */
  readonly internals: EngineInternals;
  readonly events: EngineEvent[] = [];

  constructor(options: SimOptions = {}) {
    const storage = options.storage ?? new MemoryStorage();
    this.scheduler = new ManualScheduler(options.startMs ?? Engine.savedTimeMs(storage));
    const brokers =
      typeof options.brokers === 'number' || options.brokers === undefined
        ? Array.from({ length: typeof options.brokers === 'number' ? options.brokers : 3 }, (_, i) => ({ id: i + 1 }))
        : options.brokers;
    this.engine = createEngine({
      scheduler: this.scheduler,
      random: seededRandom(options.seed ?? 1),
      storage,
      brokers,
      groupRecords: groupRecordCodec,
      txnRecords: txnRecordCodec,
      cleanedBatches: options.cleanedBatches ?? createCleanedBatchWriter(),
      ...(options.staticConfigs ? { staticConfigs: options.staticConfigs } : {}),
      ...(options.placement ? { placement: options.placement } : {}),
      ...(options.networkDelayMs !== undefined ? { networkDelayMs: options.networkDelayMs } : {}),
      ...(options.deliveries ? { deliveries: options.deliveries(this.scheduler) } : {}),
      ...(options.producedBatches ? { producedBatches: options.producedBatches } : {}),
    });
    this.internals = engineInternals(this.engine);
    this.engine.subscribe((e) => this.events.push(e));
    if (options.start !== false) {
      this.engine.start();
      this.waitFor(() => this.engine.listBrokers().every((b) => b.state === 'running'), 30_000, 'all brokers running');
    }
  }

  get now(): number {
    return this.scheduler.now();
  }

  advance(ms: number): void {
    this.scheduler.advance(ms);
  }

  /** Run the clock until `predicate` holds; throws after `maxMs` of virtual time. */
  waitFor(predicate: () => boolean, maxMs: number, what = 'condition'): number {
    const took = this.scheduler.runUntil(predicate, maxMs);
    if (took < 0) throw new Error(`timed out after ${maxMs} ms of virtual time waiting for ${what}`);
    return took;
  }

  /** Run the clock until an async engine call answers. */
  await<T>(start: (done: (v: T) => void) => void, maxMs = 600_000): T {
    let result: { v: T } | null = null;
    start((v) => {
      result = { v };
    });
    this.waitFor(() => result !== null, maxMs, 'a response');
    return (result as unknown as { v: T }).v;
  }

  produce(topic: string, partition: number, values: string[], acks: number | 'all' = 'all', timeoutMs = 30_000): ProduceResult {
    return this.await((done) => this.engine.produce({ topic, partition, acks, timeoutMs, records: values.map((v) => textRecord(v)) }, done));
  }

  /** Produce one record per call, returning each result. */
  produceEach(topic: string, partition: number, values: string[], acks: number | 'all' = 'all'): ProduceResult[] {
    return values.map((v) => this.produce(topic, partition, [v], acks));
  }

  consume(topic: string, partition: number, offset: number, maxRecords = 10_000): ConsumeResult {
    return this.await((done) => this.engine.consume({ topic, partition, offset, maxRecords }, done));
  }

  /** Every record readable from `offset` up to the HW, following fetches. */
  consumeAll(topic: string, partition: number, offset = 0): ConsumedRecord[] {
    const out: ConsumedRecord[] = [];
    let next = offset;
    for (let i = 0; i < 10_000; i++) {
      const r = this.consume(topic, partition, next);
      if (r.errorCode !== 'NONE') throw new Error(`consume ${topic}-${partition}@${next}: ${r.errorCode}`);
      out.push(...r.records);
      // A compacted log may answer a read with batches but no record: go on past them.
      if (r.nextOffset <= next || (r.records.length === 0 && r.nextOffset >= r.highWatermark)) break;
      next = r.nextOffset;
    }
    return out;
  }

  createTopic(name: string, partitions: number, replicationFactor: number, configs: Record<string, string> = {}, assignments?: number[][]): void {
    this.engine.createTopic(assignments ? { name, configs, assignments } : { name, partitions, replicationFactor, configs });
    this.waitFor(() => this.topicReady(name), 30_000, `topic ${name} to have leaders`);
  }

  private topicReady(name: string): boolean {
    const t = this.engine.metadata.topicsByName.get(name);
    if (!t) return false;
    for (const state of t.partitions.values()) {
      if (state.leader < 0) continue;
      const leader = this.internals.brokers.get(state.leader);
      if (!leader?.partitionFor(name, state.partition)?.isLeader) return false;
    }
    return true;
  }

  partition(topic: string, partition = 0) {
    const view = this.engine.describePartition(topic, partition);
    if (!view) throw new Error(`no partition ${topic}-${partition}`);
    return view;
  }

  /** The log of `brokerId`'s replica as [offset, epoch, value] triples. */
  replicaLog(brokerId: number, topic: string, partition = 0): { offset: number; epoch: number; value: string | null }[] {
    const p = this.internals.brokers.get(brokerId)?.partitionFor(topic, partition);
    if (!p) throw new Error(`broker ${brokerId} has no live replica of ${topic}-${partition}`);
    const out: { offset: number; epoch: number; value: string | null }[] = [];
    for (const b of p.log.read(p.log.logStartOffset, p.log.logEndOffset, Number.MAX_SAFE_INTEGER)) {
      b.records.forEach((r, i) => out.push({ offset: recordOffset(b, i), epoch: b.leaderEpoch, value: recordText(r) }));
    }
    return out;
  }

  eventsOf<T extends EngineEvent['type']>(type: T): Extract<EngineEvent, { type: T }>[] {
    return this.events.filter((e): e is Extract<EngineEvent, { type: T }> => e.type === type);
  }
}
