/**
 * What the service remembers of the engine's traffic so a console opened (or reloaded) late has a
 * history: the last `capacity` `metrics.sampled` samples (one per second of engine time), and per
 * topic the records committed per sample — the high watermark's advance, from
 * `highWatermark.advanced` — so a topic's rate costs nothing per partition when it is asked for.
 *
 * Invariants: samples are kept oldest first, strictly increasing in `atMs` (an older one starts a
 * new history, as after a clock reset); at most `capacity` of them; each sample's topic counts
 * cover exactly the high-watermark advances seen since the previous sample.
 */
import type { EngineEvent } from '../../api/events.js';
import type { MetricsView } from '../../api/metrics.js';

export class TrafficHistory {
  private samples: { metrics: MetricsView; committed: Map<string, number> }[] = [];
  /** High-watermark advances since the last sample, per topic. */
  private pending = new Map<string, number>();

  constructor(private readonly capacity = 600) {}

  /** Feed every engine event; only samples and high-watermark advances count. */
  onEvent(e: EngineEvent): void {
    if (e.type === 'highWatermark.advanced') {
      if (e.highWatermark > e.previous) this.pending.set(e.topic, (this.pending.get(e.topic) ?? 0) + (e.highWatermark - e.previous));
      return;
    }
    if (e.type !== 'metrics.sampled') return;
    const { type: _type, ...metrics } = e;
    const last = this.samples.at(-1);
    if (last && metrics.atMs <= last.metrics.atMs) this.samples = [];
    this.samples.push({ metrics, committed: this.pending });
    this.pending = new Map();
    if (this.samples.length > this.capacity) this.samples.splice(0, this.samples.length - this.capacity);
  }

  /** The samples of the last `windowMs` of engine time (up to the newest), oldest first. */
  metrics(windowMs: number): MetricsView[] {
    const newest = this.samples.at(-1)?.metrics.atMs;
    if (newest === undefined) return [];
    return this.samples.filter((s) => s.metrics.atMs > newest - windowMs).map((s) => structuredClone(s.metrics));
  }

  /**
   * Records committed per second of engine time to `topic` over the last `windowMs` of samples
   * (the high watermark's advance summed over its partitions, divided by the time the samples cover).
   */
  committedPerSec(topic: string, windowMs: number): number {
    const newest = this.samples.at(-1)?.metrics.atMs;
    if (newest === undefined) return 0;
    let records = 0;
    let ms = 0;
    for (const s of this.samples) {
      if (s.metrics.atMs <= newest - windowMs) continue;
      records += s.committed.get(topic) ?? 0;
      ms += s.metrics.intervalMs;
    }
    return ms > 0 ? (records * 1000) / ms : 0;
  }
}
