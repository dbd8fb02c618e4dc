import { describe, expect, it } from 'vitest';
import type { AlterPartitionRequest } from '../core/broker/messages.js';
import type { DeliveryPort } from '../core/network.js';
import { Simulation } from './simulation.js';

/** Every AlterPartition request the brokers send, as the controller receives it. */
function recordingPort(requests: AlterPartitionRequest[]): (scheduler: Simulation['scheduler']) => DeliveryPort {
  return (scheduler) => ({
    post(delayMs, delivery, run) {
      const payload = delivery.payload as { type?: string } | null;
      if (delivery.kind === 'request' && delivery.to === 'controller' && payload?.type === 'alterPartition') requests.push(payload as AlterPartitionRequest);
      scheduler.schedule(delayMs, run);
    },
  });
}

describe('AlterPartition batches (Kafka’s AlterPartitionManager)', () => {
  it('a returning follower rejoins the ISR of every partition through a few batched requests, each answered per partition', () => {
    const requests: AlterPartitionRequest[] = [];
    const sim = new Simulation({ brokers: 3, seed: 11, deliveries: recordingPort(requests) });
    sim.engine.createTopic({ name: 'orders', partitions: 60, replicationFactor: 3, configs: {} });
    const inSync = (): boolean => [...sim.engine.metadata.topicsByName.get('orders')!.partitions.values()].every((p) => p.leader >= 0 && p.isr.length === 3);
    sim.waitFor(inSync, 60_000, 'every partition in sync');

    const follower = sim.engine.listBrokers().find((b) => !b.isController)!.id;
    sim.engine.killBroker(follower);
    sim.waitFor(() => [...sim.engine.metadata.topicsByName.get('orders')!.partitions.values()].every((p) => !p.isr.includes(follower)), 60_000, 'the follower out of every ISR');
    requests.length = 0;
    sim.engine.startBroker(follower);
    sim.waitFor(inSync, 60_000, 'every partition back in sync');

    const proposals = requests.flatMap((r) => r.partitions.filter((p) => p.newIsr.some((m) => m.brokerId === follower)));
    // Each of the 60 partitions was proposed at least once; far fewer requests carried them.
    expect(new Set(proposals.map((p) => p.partition)).size).toBe(60);
    expect(requests.length).toBeLessThan(20);
    expect(Math.max(...requests.map((r) => r.partitions.length))).toBeGreaterThan(1);
  });
});
