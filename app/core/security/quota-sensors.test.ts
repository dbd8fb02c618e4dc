import { describe, expect, it } from 'vitest';
import { entityKey, type QuotaEntity } from './client-quotas.js';
import { BrokerQuotas, SampledRate, TokenBucket } from './quota-sensors.js';

const WINDOW = { samples: 11, windowMs: 1000 };

function quotas(set: Record<string, number>, key = 'producer_byte_rate'): BrokerQuotas {
  return new BrokerQuotas(() => ({ client: WINDOW, controller: WINDOW }), (k, e: QuotaEntity) => (k === key ? set[entityKey(e)] : undefined));
}

describe('SampledRate (Kafka Rate over SampledStat)', () => {
  it('divides by at least samples - 1 windows, then by the time the samples cover', () => {
    const r = new SampledRate(WINDOW);
    r.record(10_000, 0);
    expect(r.windowSize(0)).toBe(10_000);
    expect(r.measure(0)).toBe(1000);
    for (let t = 1000; t <= 15_000; t += 1000) r.record(1000, t);
    // Twelve samples are kept (samples + 1), but the oldest (4 s) is 11 s old and expires: 5–15 s.
    expect(r.windowSize(15_000)).toBe(10_000);
    expect(r.windowSize(15_500)).toBe(10_500);
  });

  it('forgets samples idle for samples × window', () => {
    const r = new SampledRate(WINDOW);
    r.record(5000, 0);
    expect(r.measure(10_999)).toBeGreaterThan(0);
    expect(r.measure(11_000)).toBe(0);
  });
});

describe('byte-rate quotas', () => {
  it('throttles by (rate − quota) / quota × window, and not within the quota', () => {
    const q = quotas({ 'user="alice"': 1000 });
    const alice = { user: 'alice', clientId: 'p' };
    expect(q.record('producer_byte_rate', alice, 10_000, 0)).toBe(0);
    // 20,000 bytes in the 10 s minimum window: 2,000 B/s, twice the quota: 10 s to fall back.
    expect(q.record('producer_byte_rate', alice, 10_000, 0)).toBe(10_000);
    // Another user has no quota and is never throttled.
    expect(q.record('producer_byte_rate', { user: 'bob', clientId: 'p' }, 1e9, 0)).toBe(0);
  });

  it('keeps a producer that waits out its throttles within 10% of the quota', () => {
    const q = quotas({ 'client-id=<default>': 50_000 });
    const client = { user: 'ANONYMOUS', clientId: 'bench' };
    let now = 0;
    let sentAfterWarmup = 0;
    while (now < 120_000) {
      const throttle = q.record('producer_byte_rate', client, 16_384, now);
      if (now >= 30_000) sentAfterWarmup += 16_384;
      now += Math.max(throttle, 5);
    }
    const rate = sentAfterWarmup / 90;
    expect(Math.abs(rate - 50_000) / 50_000).toBeLessThan(0.1);
  });

  it('shares one rate between clients whose quota resolves to the same tags', () => {
    const q = quotas({ 'client-id="app"': 1000 });
    expect(q.record('producer_byte_rate', { user: 'alice', clientId: 'app' }, 10_000, 0)).toBe(0);
    expect(q.record('producer_byte_rate', { user: 'bob', clientId: 'app' }, 10_000, 0)).toBe(10_000);
    const [view] = q.views(0).filter((v) => v.limit !== null);
    expect(view).toMatchObject({ key: 'producer_byte_rate', user: '', clientId: 'app', limit: 1000, lastThrottleMs: 10_000, lastThrottleAtMs: 0 });
  });

  it('caps the request-time throttle at one window', () => {
    const q = quotas({ 'user=<default>': 10 }, 'request_percentage');
    expect(q.record('request_percentage', { user: 'a', clientId: 'c' }, 500, 0)).toBe(1000);
  });
});

describe('controller mutation quota (KIP-599 token bucket)', () => {
  it('starts full at quota × samples × window, lets the request that empties it pass, then refuses until refilled', () => {
    const b = new TokenBucket(WINDOW);
    expect(b.measure(2, 0)).toBe(22);
    const q = quotas({ 'user="alice"': 2 }, 'controller_mutation_rate');
    const alice = { user: 'alice', clientId: 'admin' };
    expect(q.recordMutations(alice, 20, true, 0)).toEqual({ throttleMs: 0, refused: false });
    expect(q.recordMutations(alice, 10, true, 0)).toEqual({ throttleMs: 0, refused: false });
    // 22 - 30 = -8 tokens at 2 per second: 4 s.
    expect(q.recordMutations(alice, 1, true, 0)).toEqual({ throttleMs: 4000, refused: true });
    expect(q.recordMutations(alice, 1, true, 4000)).toEqual({ throttleMs: 0, refused: false });
  });

  it('permissive (older request versions) records, then throttles what went over', () => {
    const q = quotas({ 'user="alice"': 2 }, 'controller_mutation_rate');
    expect(q.recordMutations({ user: 'alice', clientId: 'c' }, 30, false, 0)).toEqual({ throttleMs: 4000, refused: false });
  });
});
