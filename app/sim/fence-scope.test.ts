/**
 * Fencing a broker and its controlled shutdown touch only the partitions whose ISR holds it (the
 * controller's BrokersToIsrs, app/core/controller/brokers-to-isrs.ts), and "does it still lead
 * anything?" — asked on every heartbeat of a controlled shutdown — is a count: with 100,000
 * partitions a failover must not walk all of them, once per heartbeat.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HeartbeatRequest } from '../core/broker/messages.js';
import { BrokerLifecycle } from '../core/controller/broker-lifecycle.js';
import { Simulation } from './simulation.js';
import { watchControllerLooks } from './test-support/controller-looks.js';

afterEach(() => {
  vi.restoreAllMocks();
});

interface ControllerInside {
  fence(brokerId: number, reason: string): void;
  handleHeartbeat(req: HeartbeatRequest): unknown;
}

/**
 * What the controller looked at (`topic-partition`, once per partition-change check) and how often
 * it walked every partition, while it fenced `brokerId` or answered its shutdown heartbeats.
 */
function watchLeaving(brokerId: number): { looked: string[]; walks: number; fences: number } {
  const proto = BrokerLifecycle.prototype as unknown as ControllerInside;
  let inside = false;
  const seen = Object.assign(watchControllerLooks(() => inside), { fences: 0 });
  const within = <T>(fn: () => T): T => {
    const was = inside;
    inside = true;
    try {
      return fn();
    } finally {
      inside = was;
    }
  };
  const fence = proto.fence;
  const heartbeat = proto.handleHeartbeat;
  vi.spyOn(proto, 'fence').mockImplementation(function (this: ControllerInside, id: number, reason: string) {
    if (id !== brokerId) return fence.call(this, id, reason);
    seen.fences++;
    within(() => fence.call(this, id, reason));
  });
  vi.spyOn(proto, 'handleHeartbeat').mockImplementation(function (this: ControllerInside, req: HeartbeatRequest) {
    return req.brokerId === brokerId && req.wantShutDown ? within(() => heartbeat.call(this, req)) : heartbeat.call(this, req);
  });
  return seen;
}

/** Broker 4 holds a replica of `mine` only; `others` (on brokers 1–3) it never touches. */
function cluster(seed: number): Simulation {
  const sim = new Simulation({ seed, brokers: 4 });
  sim.createTopic('others', 9, 3, {}, [[1, 2, 3], [2, 3, 1], [3, 1, 2], [1, 3, 2], [2, 1, 3], [3, 2, 1], [1, 2, 3], [2, 3, 1], [3, 1, 2]]);
  sim.createTopic('mine', 3, 2, {}, [[4, 1], [2, 4], [4, 3]]);
  sim.waitFor(() => [0, 1, 2].every((p) => sim.partition('mine', p).isr.length === 2), 30_000, 'mine in sync');
  sim.waitFor(() => [...Array(9).keys()].every((p) => sim.partition('others', p).isr.length === 3), 30_000, 'others in sync');
  sim.advance(3_000);
  return sim;
}

describe('fencing and controlled shutdown look only at the broker’s own partitions', () => {
  it('a fenced broker leaves the ISRs it was in and its leaderships move, and the fence looked at no other partition', () => {
    const sim = cluster(31);
    const seen = watchLeaving(4);
    sim.engine.killBroker(4);
    sim.waitFor(() => sim.engine.metadata.brokers.get(4)?.fenced === true, 60_000, 'broker 4 fenced');

    expect(seen.fences).toBe(1);
    expect(seen.looked).toEqual(['mine-0', 'mine-1', 'mine-2']);
    expect(seen.walks).toBe(0);
    // As Kafka: out of every ISR, and the partitions it led have another leader.
    for (const p of [0, 1, 2]) expect(sim.partition('mine', p).isr).not.toContain(4);
    expect([sim.partition('mine', 0).leader, sim.partition('mine', 2).leader]).toEqual([1, 3]);
    expect(sim.engine.listBrokers().find((b) => b.id === 4)!.leaderCount).toBe(0);
    expect(sim.produce('mine', 0, ['after the fence']).errorCode).toBe('NONE');
  });

  it('a controlled shutdown moves the broker’s leaderships without walking every partition on any of its heartbeats', () => {
    const sim = cluster(32);
    const seen = watchLeaving(4);
    sim.engine.stopBroker(4);
    sim.waitFor(() => sim.engine.listBrokers().find((b) => b.id === 4)?.state === 'stopped', 60_000, 'broker 4 stopped');

    // The ISR removal of the shutdown looked at broker 4's three partitions, once.
    expect(seen.looked).toEqual(['mine-0', 'mine-1', 'mine-2']);
    expect(seen.walks).toBe(0);
    expect(sim.engine.listBrokers().find((b) => b.id === 4)!.leaderCount).toBe(0);
    expect([sim.partition('mine', 0).leader, sim.partition('mine', 2).leader]).toEqual([1, 3]);
    for (const p of [0, 1, 2]) expect(sim.partition('mine', p).isr).not.toContain(4);

    // Back again: it rejoins the ISRs, and the per-broker counts follow.
    sim.engine.startBroker(4);
    sim.waitFor(() => [0, 1, 2].every((p) => sim.partition('mine', p).isr.includes(4)), 60_000, 'broker 4 back in sync');
    expect(sim.engine.listBrokers().find((b) => b.id === 4)!.partitionCount).toBe(3);
  });
});
