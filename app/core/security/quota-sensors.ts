/**
 * The quota sensors of one broker, as Kafka's ClientQuotaManager, ClientRequestQuotaManager and
 * ControllerMutationQuotaManager keep them (each broker enforces its quotas on its own).
 *
 * - Byte rates and request time are a sampled rate (org.apache.kafka.common.metrics.stats.Rate over
 *   SampledStat): `quota.window.num` samples of `quota.window.size.seconds`, the rate being the
 *   samples' sum over the time they cover, never less than samples − 1 windows. A value is
 *   recorded, then checked; over the quota, the throttle is the time the rate needs to fall back
 *   to it: (rate − quota) / quota × window (QuotaUtils.throttleTime), the request-time one at most
 *   one window (ClientRequestQuotaManager).
 * - Controller mutations are a token bucket (TokenBucket): it holds up to quota × samples × window
 *   tokens, refills at the quota, and a topic creation or deletion takes one per partition; the
 *   check comes before the record (StrictControllerMutationQuota), so the request that empties
 *   the bucket passes and the next is throttled for −tokens / quota seconds.
 * - Clients share a sensor when their quota resolves to the same tags (client-quotas.ts). Sensors
 *   record even without a quota, so the console can show a client's rate; one idle for an hour
 *   is dropped, as Kafka expires them.
 */
import { resolveQuota, type ClientQuotaKey, type QuotaEntity, type ResolvedQuota } from './client-quotas.js';

export interface QuotaWindow {
  samples: number;
  windowMs: number;
}

interface Sample {
  startMs: number;
  lastEventMs: number;
  value: number;
  events: number;
}

/** Kafka's Rate over a SampledStat (its Sample, current, advance, purge and windowSize rules). */
export class SampledRate {
  private readonly samples: Sample[] = [];
  private current = 0;

  constructor(private readonly window: QuotaWindow) {}

  private newSample(now: number): Sample {
    return { startMs: now, lastEventMs: now, value: 0, events: 0 };
  }

  record(value: number, now: number): void {
    if (this.samples.length === 0) this.samples.push(this.newSample(now));
    let sample = this.samples[this.current]!;
    if (now - sample.startMs >= this.window.windowMs) {
      this.current = (this.current + 1) % (this.window.samples + 1);
      if (this.current >= this.samples.length) this.samples.push((sample = this.newSample(now)));
      else {
        sample = this.samples[this.current]!;
        Object.assign(sample, this.newSample(now));
      }
    }
    sample.value += value;
    sample.events += 1;
    sample.lastEventMs = now;
  }

  private purge(now: number): void {
    const expireAge = this.window.samples * this.window.windowMs;
    for (const s of this.samples) if (now - s.lastEventMs >= expireAge) Object.assign(s, this.newSample(now));
  }

  /** The time the rate is computed over, at least samples − 1 windows (Rate.windowSize). */
  windowSize(now: number): number {
    this.purge(now);
    if (this.samples.length === 0) this.samples.push(this.newSample(now));
    let oldest = this.samples[0]!;
    for (const s of this.samples) if (s.startMs < oldest.startMs) oldest = s;
    let elapsed = now - oldest.startMs;
    const full = Math.floor(elapsed / this.window.windowMs);
    const minFull = this.window.samples - 1;
    if (full < minFull) elapsed += (minFull - full) * this.window.windowMs;
    return Math.max(elapsed, 1);
  }

  /** Per second. */
  measure(now: number): number {
    this.purge(now);
    let total = 0;
    for (const s of this.samples) total += s.value;
    return total / (this.windowSize(now) / 1000);
  }
}

/** Kafka's TokenBucket: starts full, refills at the quota, capped at quota × samples × window. */
export class TokenBucket {
  private tokens = 0;
  /** Kafka's starts at 0 ms, ages before any clock it runs on: the first refill fills the bucket. */
  private lastUpdateMs = -Infinity;

  constructor(private readonly window: QuotaWindow) {}

  private refill(quota: number, now: number): void {
    const burst = this.window.samples * (this.window.windowMs / 1000) * quota;
    this.tokens = Math.min(burst, this.tokens + (quota * (now - this.lastUpdateMs)) / 1000);
    this.lastUpdateMs = now;
  }

  measure(quota: number, now: number): number {
    this.refill(quota, now);
    return this.tokens;
  }

  record(quota: number, value: number, now: number): void {
    this.refill(quota, now);
    const burst = this.window.samples * (this.window.windowMs / 1000) * quota;
    this.tokens = Math.min(burst, this.tokens - value);
  }
}

/** What the console shows of one sensor: whose it is, its quota, its rate and its last throttle. */
export interface QuotaSensorView {
  key: ClientQuotaKey;
  user: string;
  clientId: string;
  /** The entity whose quota applies (null: unlimited). */
  entity: QuotaEntity | null;
  limit: number | null;
  /** Bytes/s, percent or mutations/s over the window now (a token bucket: the mutation rate recorded). */
  rate: number;
  /** The last throttle this sensor gave, and when; 0 and null when it never throttled. */
  lastThrottleMs: number;
  lastThrottleAtMs: number | null;
}

interface Sensor {
  key: ClientQuotaKey;
  user: string;
  clientId: string;
  rate: SampledRate;
  bucket: TokenBucket | null;
  lastThrottleMs: number;
  lastThrottleAtMs: number | null;
  lastRecordMs: number;
  entity: QuotaEntity | null;
  limit: number | null;
}

const EXPIRE_MS = 3_600_000;

/** Who is recorded: the principal's name (`alice` of `User:alice`) and the request's client id. */
export interface QuotaClient {
  user: string;
  clientId: string;
}

/** The four quota managers of one broker. */
export class BrokerQuotas {
  private readonly sensors = new Map<string, Sensor>();
  /** Resolutions by key, user and client id, valid while the quotas' version stays (a produce request resolves once per change, not per request). */
  private readonly resolved = new Map<string, ResolvedQuota>();
  private resolvedVersion = -1;
  private lastPurgeMs = 0;

  constructor(
    private readonly window: () => { client: QuotaWindow; controller: QuotaWindow },
    /** A quota key's value on one entity in this broker's metadata (undefined: not set). */
    private readonly lookup: (key: ClientQuotaKey, entity: QuotaEntity) => number | undefined,
    /** Changes whenever the broker's quotas do. */
    private readonly version: () => number = () => 0,
  ) {}

  private resolve(key: ClientQuotaKey, client: QuotaClient): ResolvedQuota {
    const v = this.version();
    if (v !== this.resolvedVersion) {
      this.resolved.clear();
      this.resolvedVersion = v;
    }
    const id = `${key}\u0000${client.user}\u0000${client.clientId}`;
    let r = this.resolved.get(id);
    if (!r) this.resolved.set(id, (r = resolveQuota((e) => this.lookup(key, e), client.user, client.clientId)));
    return r;
  }

  private sensor(key: ClientQuotaKey, client: QuotaClient, now: number): Sensor {
    if (now - this.lastPurgeMs > 60_000) {
      this.lastPurgeMs = now;
      for (const [k, s] of this.sensors) if (now - s.lastRecordMs > EXPIRE_MS) this.sensors.delete(k);
      if (this.resolved.size > 10_000) this.resolved.clear();
    }
    const resolved = this.resolve(key, client);
    const id = `${key}\u0000${resolved.user}\u0000${resolved.clientId}`;
    let s = this.sensors.get(id);
    if (!s) {
      const windows = this.window();
      const w = key === 'controller_mutation_rate' ? windows.controller : windows.client;
      s = { key, user: resolved.user, clientId: resolved.clientId, rate: new SampledRate(w), bucket: key === 'controller_mutation_rate' ? new TokenBucket(w) : null, lastThrottleMs: 0, lastThrottleAtMs: null, lastRecordMs: now, entity: null, limit: null };
      this.sensors.set(id, s);
    }
    s.entity = resolved.entity;
    s.limit = resolved.limit;
    s.lastRecordMs = now;
    return s;
  }

  private throttled(s: Sensor, ms: number, now: number): number {
    if (ms > 0) {
      s.lastThrottleMs = ms;
      s.lastThrottleAtMs = now;
    }
    return ms;
  }

  /**
   * Record `value` (bytes, or request time in percent of one thread's second) and answer the
   * throttle in ms (0 within the quota).
   */
  record(key: Exclude<ClientQuotaKey, 'controller_mutation_rate'>, client: QuotaClient, value: number, now: number): number {
    const s = this.sensor(key, client, now);
    s.rate.record(value, now);
    if (s.limit === null) return 0;
    const rate = s.rate.measure(now);
    if (rate <= s.limit) return 0;
    let ms = Math.round(((rate - s.limit) / s.limit) * s.rate.windowSize(now));
    if (key === 'request_percentage') ms = Math.min(ms, this.window().client.windowMs);
    return this.throttled(s, ms, now);
  }

  /** A throttled fetch's bytes are taken back: it answers no records (ClientQuotaManager.unrecordQuotaSensor). */
  unrecord(key: 'consumer_byte_rate', client: QuotaClient, value: number, now: number): void {
    this.sensor(key, client, now).rate.record(-value, now);
  }

  /**
   * Controller mutations (KIP-599): `strict` (CreateTopics v6+, DeleteTopics v5+, CreatePartitions
   * v3+) refuses the request while the bucket is in debt; permissive (older versions) records and
   * throttles. Returns the throttle in ms and whether the mutations were refused.
   */
  recordMutations(client: QuotaClient, partitions: number, strict: boolean, now: number): { throttleMs: number; refused: boolean } {
    const s = this.sensor('controller_mutation_rate', client, now);
    if (s.limit === null) {
      s.rate.record(partitions, now);
      return { throttleMs: 0, refused: false };
    }
    const bucket = s.bucket!;
    const debt = (tokens: number): number => Math.round((-tokens / s.limit!) * 1000);
    if (strict) {
      const tokens = bucket.measure(s.limit, now);
      if (tokens < 0) return { throttleMs: this.throttled(s, debt(tokens), now), refused: true };
      bucket.record(s.limit, partitions, now);
      s.rate.record(partitions, now);
      return { throttleMs: 0, refused: false };
    }
    bucket.record(s.limit, partitions, now);
    s.rate.record(partitions, now);
    const tokens = bucket.measure(s.limit, now);
    return { throttleMs: tokens < 0 ? this.throttled(s, debt(tokens), now) : 0, refused: false };
  }

  /** Every live sensor, for the console. */
  views(now: number): QuotaSensorView[] {
    return [...this.sensors.values()].map((s) => ({
      key: s.key,
      user: s.user,
      clientId: s.clientId,
      entity: s.entity,
      limit: s.limit,
      rate: s.rate.measure(now),
      lastThrottleMs: s.lastThrottleMs,
      lastThrottleAtMs: s.lastThrottleAtMs,
    }));
  }
}
