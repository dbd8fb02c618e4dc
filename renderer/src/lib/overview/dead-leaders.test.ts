import { describe, expect, it } from 'vitest';
import type { BrokerView, EngineEvent } from '../../../../app/api/contract.js';
import { deadLeadersSentence, deadUnfencedBrokers } from './dead-leaders.js';

const broker = (id: number, over: Partial<BrokerView> = {}): BrokerView => ({
  id,
  state: 'running',
  rack: null,
  partitionCount: 30,
  leaderCount: 10,
  isolated: false,
  fetcherStalled: false,
  isController: false,
  brokerEpoch: 1,
  logBytes: 0,
  listener: null,
  ...over,
});
const killed = (brokerId: number, atMs: number): EngineEvent => ({ type: 'broker.stateChanged', atMs, brokerId, state: 'killed', previous: 'running', reason: 'killed' });

describe('leaders the controller has not fenced yet, cluster-wide', () => {
  it('counts the partitions a killed broker still leads in the metadata, and when it should be fenced', () => {
    const brokers = [broker(1), broker(2, { state: 'killed', leaderCount: 20 }), broker(3)];
    const d = deadUnfencedBrokers(brokers, [killed(2, 100_000)], 9_000);
    expect(d.partitionsLed).toBe(20);
    expect(d.brokers.map((b) => b.brokerId)).toEqual([2]);
    expect(d.firstFenceAtMs).toBe(109_000);
    const text = deadLeadersSentence(d, 102_000)!;
    expect(text).toContain('20 partitions can be neither written nor read');
    expect(text).toContain('broker 2 is killed (its process died)');
    expect(text).toContain('in about 7 s');
  });

  it('leaves a broker out once the controller has fenced it (it then leads nothing) and never names a running one', () => {
    const d = deadUnfencedBrokers([broker(1), broker(2, { state: 'killed', leaderCount: 0 })], [killed(2, 0)], 9_000);
    expect(d.brokers).toEqual([]);
    expect(deadLeadersSentence(d, 20_000)).toBeNull();
  });

  it('names an isolated broker for what it is (its links are cut, its process runs)', () => {
    const d = deadUnfencedBrokers([broker(3, { isolated: true, leaderCount: 4 })], [], 9_000);
    expect(d.partitionsLed).toBe(4);
    expect(deadLeadersSentence(d, 0)).toContain('broker 3 is isolated (its network links are cut)');
    // No event says when the links were cut: the time is not invented.
    expect(d.firstFenceAtMs).toBeNull();
    expect(deadLeadersSentence(d, 0)).toContain('once broker.session.timeout.ms has passed');
  });

  it('waits for a new controller first when the dead broker hosted the controller', () => {
    const events: EngineEvent[] = [
      killed(1, 50_000),
      { type: 'controller.changed', atMs: 50_000, controllerId: null, previousControllerId: 1, reason: 'lost' },
      { type: 'controller.changed', atMs: 53_000, controllerId: 2, previousControllerId: null, reason: 'elected' },
    ];
    const d = deadUnfencedBrokers([broker(1, { state: 'killed', leaderCount: 5 }), broker(2)], events, 9_000);
    expect(d.firstFenceAtMs).toBe(62_000);
  });
});
