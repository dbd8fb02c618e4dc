/**
 * Broker registration as Kafka's BrokerLifecycleManager does it: the controller comes up before
 * the brokers (KafkaRaftServer starts its controller first), so a starting cluster's brokers
 * register at once; a refused registration is sent again after an exponential backoff — 100 ms,
 * doubling, at most `broker.session.timeout.ms`, ±2 % jitter — not after a fixed second.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ControllerChannel, registrationBackoffMs } from '../core/broker/controller-channel.js';
import { Simulation } from './simulation.js';

afterEach(() => {
  vi.restoreAllMocks();
});

interface ChannelInside {
  host: { brokerId: number };
  register(): void;
}

/** Virtual times at which each broker sent a registration. */
function watchRegistrations(now: () => number): Map<number, number[]> {
  const seen = new Map<number, number[]>();
  const proto = ControllerChannel.prototype as unknown as ChannelInside;
  const register = proto.register;
  vi.spyOn(proto, 'register').mockImplementation(function (this: ChannelInside) {
    const id = this.host.brokerId;
    seen.set(id, [...(seen.get(id) ?? []), now()]);
    register.call(this);
  });
  return seen;
}

describe('broker registration (BrokerLifecycleManager)', () => {
  it('waits 100 ms after the first refusal, doubling up to the session timeout, within ±2 %', () => {
    const session = 9_000;
    const expected = [100, 200, 400, 800, 1_600, 3_200, 6_400, 9_000, 9_000];
    expected.forEach((ms, attempt) => {
      expect(registrationBackoffMs(attempt, session, 0.5)).toBe(ms);
      expect(registrationBackoffMs(attempt, session, 0)).toBe(Math.floor(ms * 0.98));
      expect(registrationBackoffMs(attempt, session, 0.999_999)).toBeLessThanOrEqual(ms * 1.02);
      expect(registrationBackoffMs(attempt, session, 0.999_999)).toBeGreaterThan(ms);
    });
  });

  it('a starting cluster finds its controller up: every broker registers once, at once, and runs', () => {
    // Registrations sent while the simulation is being built happen at its time 0.
    const clock = { now: (): number => 0 };
    const seen = watchRegistrations(() => clock.now());
    const sim = new Simulation({ seed: 5, brokers: 4 });
    clock.now = () => sim.now;
    expect([...seen.entries()].sort(([a], [b]) => a - b)).toEqual([1, 2, 3, 4].map((id) => [id, [0]]));
    expect(sim.engine.listBrokers().map((b) => b.state)).toEqual(['running', 'running', 'running', 'running']);
  });

  it('a broker restarted while its old session lives is refused and retries 100, 200, 400 … ms apart until the session has expired', () => {
    const sim = new Simulation({ seed: 7, brokers: 3 });
    sim.createTopic('t', 1, 3);
    sim.advance(3_000);
    const seen = watchRegistrations(() => sim.now);
    const restartedAt = sim.now;
    sim.engine.killBroker(2);
    sim.engine.startBroker(2);
    sim.waitFor(() => sim.engine.brokerState(2) === 'running', 60_000, 'broker 2 running again');
    const attempts = seen.get(2)!;
    expect(attempts[0]).toBe(restartedAt);
    const gaps = attempts.slice(1).map((t, i) => t - attempts[i]!);
    // Every gap but the last was a refusal (DUPLICATE_BROKER_REGISTRATION): 100 ms doubling, ±2 %.
    gaps.forEach((gap, i) => {
      const term = Math.min(100 * 2 ** i, 9_000);
      expect(gap).toBeGreaterThanOrEqual(Math.floor(term * 0.98));
      expect(gap).toBeLessThanOrEqual(Math.ceil(term * 1.02));
    });
    // Accepted at the first attempt after the old session ended (9 s without a heartbeat).
    const registered = sim.internals.controller.records().filter((r) => r.record.type === 'RegisterBroker' && r.record.brokerId === 2).at(-1)!;
    expect(registered.timestampMs).toBe(attempts.at(-1));
    expect(attempts.at(-2)! - restartedAt).toBeLessThan(9_000);
    expect(attempts.length).toBeGreaterThanOrEqual(7);
  });
});
