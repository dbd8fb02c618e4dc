/**
 * The per-IP connection creation rate of one broker, as Kafka's ConnectionQuotas enforces the
 * `connection_creation_rate` of ip quota entities (KIP-612): the quota of the client's address is
 * its own entity's, else the default ip entity's, else none (Kafka's IP_CONNECTION_RATE_DEFAULT,
 * unlimited: nothing is recorded). With a quota, each new connection is recorded in the address's
 * sampled rate (the client quotas' `quota.window.num` × `quota.window.size.seconds`, Kafka's Rate);
 * over the quota the connection is not accepted: it is un-recorded and the throttle is the time
 * the rate needs to fall back to the quota, (rate − quota) / quota × window, at most one window.
 * The listener keeps a throttled connection open without reading it for that long, then closes
 * it (Kafka's acceptor delays the close the same way). Every client on one host shares its
 * address: loopback clients all count as 127.0.0.1, as they do for a Kafka broker.
 */
import { SampledRate, type QuotaWindow } from './quota-sensors.js';

/** A connection from an address: accepted (0) or throttled for `throttleMs`. */
export interface ConnectionVerdict {
  throttleMs: number;
  /** The address's quota (connections/s), null without one. */
  quota: number | null;
}

export class IpConnectionQuotas {
  private readonly rates = new Map<string, SampledRate>();

  constructor(
    private readonly window: () => QuotaWindow,
    /** A quota entity's connection_creation_rate, as the broker's metadata holds it. */
    private readonly rateOf: (entity: { ip: string | null }) => number | undefined,
  ) {}

  /** The quota of `ip`: its own entity's, else the default ip entity's, else null (unlimited). */
  quotaOf(ip: string): number | null {
    return this.rateOf({ ip }) ?? this.rateOf({ ip: null }) ?? null;
  }

  /** Records a new connection from `ip` at `now` and says whether it is accepted. */
  record(ip: string, now: number): ConnectionVerdict {
    const quota = this.quotaOf(ip);
    if (quota === null) return { throttleMs: 0, quota };
    let rate = this.rates.get(ip);
    if (!rate) this.rates.set(ip, (rate = new SampledRate(this.window())));
    rate.record(1, now);
    const measured = rate.measure(now);
    if (measured <= quota) return { throttleMs: 0, quota };
    const windowMs = this.window().windowMs;
    const throttleMs = Math.min(Math.max(1, Math.round(((measured - quota) / quota) * rate.windowSize(now))), windowMs);
    rate.record(-1, now); // not accepted: not counted
    return { throttleMs, quota };
  }

  /** Connections per second from `ip` accepted over the window now (0 when none was recorded). */
  rate(ip: string, now: number): number {
    return this.rates.get(ip)?.measure(now) ?? 0;
  }
}
