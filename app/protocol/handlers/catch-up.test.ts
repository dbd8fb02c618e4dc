/**
 * A restarted broker serves clients only once it has caught up with the metadata log (KRaft's
 * BrokerServer enables request processing after the initial catch-up): a client that reaches it
 * earlier waits, and is then answered from the caught-up metadata, never with
 * UNKNOWN_TOPIC_OR_PARTITION for a topic that exists.
 */
import { describe, expect, it } from 'vitest';
import type { BrokerAnswer, ClientMetadataResponse, ProduceAnswer } from '../../core/engine.js';
import { ApiKey } from '../generated/index.js';
import { clientBatch, clientRecord, WireSim } from '../test-support/wire-sim.js';

function cluster(): WireSim {
  const w = new WireSim({ seed: 23, brokers: 3 });
  w.sim.createTopic('orders', 3, 3, {}, [[1, 2, 3], [1, 3, 2], [3, 1, 2]]);
  for (let i = 0; i < 30; i++) w.sim.createTopic(`t${i}`, 1, 2, {}, [[1, 3]]);
  return w;
}

describe('a broker serves clients only after its initial metadata catch-up', () => {
  it('Metadata sent to a broker the moment it starts is answered once it runs, with every topic and its leaders', () => {
    const w = cluster();
    w.sim.engine.stopBroker(2);
    w.sim.waitFor(() => w.sim.engine.brokerState(2) === 'stopped', 60_000, 'broker 2 stopped');
    w.sim.engine.startBroker(2);
    expect(w.sim.engine.brokerState(2)).toBe('starting');
    let answer: BrokerAnswer<ClientMetadataResponse> | null = null;
    let stateWhenAnswered = '';
    w.sim.engine.metadataRequest(2, { type: 'metadata', topics: ['orders', 't29'] }, (a) => {
      answer = a;
      stateWhenAnswered = w.sim.engine.brokerState(2);
    });
    w.sim.waitFor(() => answer !== null, 30_000, 'an answer');
    expect(stateWhenAnswered).toBe('running');
    const r = answer as unknown as BrokerAnswer<ClientMetadataResponse>;
    if (r.kind !== 'response') throw new Error('unreachable');
    expect(r.response.topics.map((t) => [t.name, t.error])).toEqual([
      ['orders', 'NONE'],
      ['t29', 'NONE'],
    ]);
    expect(r.response.topics[0]!.partitions.map((p) => p.leader)).toEqual([1, 1, 3]);
  });

  it('a Produce sent while it starts waits, then gets Kafka\'s NOT_LEADER_OR_FOLLOWER for a partition it follows (not UNKNOWN_TOPIC_OR_PARTITION)', () => {
    const w = cluster();
    w.sim.engine.killBroker(2);
    w.sim.waitFor(() => w.sim.engine.metadata.brokers.get(2)!.fenced, 60_000, 'broker 2 fenced');
    w.sim.engine.startBroker(2);
    let answer: ProduceAnswer | null = null;
    let stateWhenAnswered = '';
    const wire = clientBatch([clientRecord('v')]);
    w.sim.engine.produceRequest(2, { type: 'produce', acks: -1, timeoutMs: 5_000, apiVersion: 8, partitions: [{ topic: 'orders', partition: 0, wire }] }, (a) => {
      answer = a;
      stateWhenAnswered = w.sim.engine.brokerState(2);
    });
    w.sim.waitFor(() => answer !== null, 30_000, 'an answer');
    expect(stateWhenAnswered).toBe('running');
    const r = answer as unknown as ProduceAnswer;
    if (r.kind !== 'response') throw new Error(`no response: ${r.kind}`);
    expect(r.response.partitions[0]!.error).toBe('NOT_LEADER_OR_FOLLOWER');
  });

  it('over the wire: a Metadata frame to a restarting broker gets the topics, not an empty image', async () => {
    const w = cluster();
    w.sim.engine.stopBroker(3);
    w.sim.waitFor(() => w.sim.engine.brokerState(3) === 'stopped', 60_000, 'broker 3 stopped');
    w.sim.engine.startBroker(3);
    const m = await w.respond(3, ApiKey.Metadata, 8, { topics: [{ name: 'orders' }], allowAutoTopicCreation: false });
    expect(w.sim.engine.brokerState(3)).toBe('running');
    expect(m.topics[0]).toMatchObject({ name: 'orders', errorCode: 0 });
    expect(m.topics[0]!.partitions).toHaveLength(3);
  });
});
