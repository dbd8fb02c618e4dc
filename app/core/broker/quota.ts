/**
 * A replication quota: bytes per second measured over `samples` windows of `windowMs`, the way
 * Kafka's `Rate` measures it (the elapsed time counts at least samples-1 full windows, so a
 * burst right after start is not read as an enormous rate).
 */
export class RateMeter {
  private readonly windows: { start: number; bytes: number }[] = [];

  constructor(
    private readonly samples: number,
    private readonly windowMs: number,
  ) {}

  record(bytes: number, nowMs: number): void {
    const start = Math.floor(nowMs / this.windowMs) * this.windowMs;
    const last = this.windows[this.windows.length - 1];
    if (last && last.start === start) last.bytes += bytes;
    else this.windows.push({ start, bytes });
    this.expire(nowMs);
  }

  private expire(nowMs: number): void {
    const oldest = nowMs - this.samples * this.windowMs;
    while (this.windows.length > 0 && this.windows[0]!.start + this.windowMs <= oldest) this.windows.shift();
  }

  /** Bytes per second over the sampled windows. */
  rate(nowMs: number): number {
    this.expire(nowMs);
    const total = this.windows.reduce((s, w) => s + w.bytes, 0);
    const first = this.windows[0];
    let elapsed = first ? nowMs - first.start : 0;
    const minElapsed = (this.samples - 1) * this.windowMs;
    if (elapsed < minElapsed) elapsed = minElapsed;
    return elapsed > 0 ? (total * 1000) / elapsed : 0;
  }

  isExceeded(quotaBytesPerSec: number, nowMs: number): boolean {
    if (!Number.isFinite(quotaBytesPerSec)) return false;
    return this.rate(nowMs) > quotaBytesPerSec;
  }
}

/** Whether `partition` on `brokerId` is in a throttled-replicas list (`p:b,p:b` or `*`). */
export function isThrottledReplica(list: string, partition: number, brokerId: number): boolean {
  const trimmed = list.trim();
  if (trimmed === '') return false;
  if (trimmed === '*') return true;
  return trimmed.split(',').some((entry) => {
    const [p, b] = entry.trim().split(':');
    return Number(p) === partition && Number(b) === brokerId;
  });
}
