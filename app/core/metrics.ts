/**
 * Throughput metrics. Brokers and the in-app client bump cumulative counters as the work happens
 * (a leader appends a produced batch, a leader answers a replica fetch, a follower receives one,
 * the consumer gets records); once per second of engine time the engine turns their growth into
 * rates with `MetricsSampler`.
 *
 * Invariants: counters only grow while their broker object lives; a sample's rates are the
 * counters' growth since the previous sample scaled to one second, so over a run the rates times
 * the sampled seconds add up to the counters' growth. A broker first seen (added, or re-added
 * under a known id) starts from zero.
 */
import type { BrokerMetricsView, MetricsView } from '../api/views.js';

/** How often the engine samples its counters (ms of engine time). */
export const METRICS_INTERVAL_MS = 1_000;

/** One broker's cumulative traffic counters (since its broker object was created). */
export class BrokerTraffic {
  /** Records appended as a leader from produce requests (acknowledged or not). */
  produceRecords = 0;
  /** Bytes of those batches, as the log stores them. */
  produceBytes = 0;
  /** Bytes received as a follower in replica fetch responses. */
  replicationBytesIn = 0;
  /** Bytes sent as a leader in replica fetch responses. */
  replicationBytesOut = 0;
}

/** What the sampler reads from one broker. */
export interface BrokerSampleInput {
  id: number;
  traffic: BrokerTraffic;
  logBytes: number;
}

type Counts = Pick<BrokerTraffic, 'produceRecords' | 'produceBytes' | 'replicationBytesIn' | 'replicationBytesOut'>;

/** Turns cumulative counters into per-second rates between two samples. */
export class MetricsSampler {
  private readonly previous = new Map<number, { traffic: BrokerTraffic; counts: Counts }>();
  private previousConsumed = 0;
  private previousAtMs: number | null = null;
  private latestSample: MetricsView | null = null;

  /** The latest sample, or null before the first. */
  get latest(): MetricsView | null {
    return this.latestSample;
  }

  /** Sample now: the growth since the previous sample (or since `startedAtMs` for the first), per second. */
  sample(nowMs: number, startedAtMs: number, brokers: readonly BrokerSampleInput[], consumedRecords: number): MetricsView {
    const since = this.previousAtMs ?? startedAtMs;
    const intervalMs = Math.max(1, nowMs - since);
    const perSec = (growth: number): number => Math.round((Math.max(0, growth) * 1000) / intervalMs);
    const views: BrokerMetricsView[] = [];
    let produceRecords = 0;
    let produceBytes = 0;
    let replicationBytes = 0;
    const seen = new Set<number>();
    for (const b of [...brokers].sort((x, y) => x.id - y.id)) {
      seen.add(b.id);
      const t = b.traffic;
      const before = this.previous.get(b.id);
      // A new broker object under this id (removed and added again) starts from zero.
      const base: Counts = before && before.traffic === t ? before.counts : { produceRecords: 0, produceBytes: 0, replicationBytesIn: 0, replicationBytesOut: 0 };
      produceRecords += t.produceRecords - base.produceRecords;
      produceBytes += t.produceBytes - base.produceBytes;
      replicationBytes += t.replicationBytesOut - base.replicationBytesOut;
      views.push({
        brokerId: b.id,
        produceBytesPerSec: perSec(t.produceBytes - base.produceBytes),
        replicationBytesInPerSec: perSec(t.replicationBytesIn - base.replicationBytesIn),
        replicationBytesOutPerSec: perSec(t.replicationBytesOut - base.replicationBytesOut),
        logBytes: b.logBytes,
      });
      this.previous.set(b.id, {
        traffic: t,
        counts: { produceRecords: t.produceRecords, produceBytes: t.produceBytes, replicationBytesIn: t.replicationBytesIn, replicationBytesOut: t.replicationBytesOut },
      });
    }
    for (const id of [...this.previous.keys()]) if (!seen.has(id)) this.previous.delete(id);
    const sample: MetricsView = {
      atMs: nowMs,
      intervalMs,
      produceRecordsPerSec: perSec(produceRecords),
      produceBytesPerSec: perSec(produceBytes),
      consumeRecordsPerSec: perSec(consumedRecords - this.previousConsumed),
      replicationBytesPerSec: perSec(replicationBytes),
      brokers: views,
    };
    this.previousConsumed = consumedRecords;
    this.previousAtMs = nowMs;
    this.latestSample = sample;
    return sample;
  }
}

/** The sample before the first one: every rate 0, disk use as it is now. */
export function emptyMetrics(nowMs: number, brokers: readonly BrokerSampleInput[]): MetricsView {
  return {
    atMs: nowMs,
    intervalMs: 0,
    produceRecordsPerSec: 0,
    produceBytesPerSec: 0,
    consumeRecordsPerSec: 0,
    replicationBytesPerSec: 0,
    brokers: [...brokers]
      .sort((x, y) => x.id - y.id)
      .map((b) => ({ brokerId: b.id, produceBytesPerSec: 0, replicationBytesInPerSec: 0, replicationBytesOutPerSec: 0, logBytes: b.logBytes })),
  };
}
