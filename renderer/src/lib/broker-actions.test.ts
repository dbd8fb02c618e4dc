import { describe, expect, it } from 'vitest';
import type { BrokerView } from '../../../app/api/contract.js';
import { BROKER_ACTION } from './broker-actions.js';

const broker = (over: Partial<BrokerView>): BrokerView => ({
  id: 4,
  rack: null,
  state: 'running',
  partitionCount: 0,
  leaderCount: 0,
  isolated: false,
  fetcherStalled: false,
  isController: false,
  brokerEpoch: 7,
  logBytes: 0,
  listener: null,
  ...over,
});

describe('the broker action table', () => {
  it('offers Remove only for a broker that is down and hosts no replica, as Kafka refuses otherwise', () => {
    const remove = BROKER_ACTION.remove;
    expect(remove.unavailable(broker({ state: 'running' }))).toContain('shut it down');
    // Killed, still the home of 33 replicas per the controller's metadata: drain first.
    expect(remove.unavailable(broker({ state: 'killed', partitionCount: 33 }))).toBe('Broker 4 still hosts 33 replicas: drain it first (Balance, excluding broker 4), then remove it.');
    expect(remove.unavailable(broker({ state: 'stopped', partitionCount: 1 }))).toContain('still hosts 1 replica:');
    expect(remove.unavailable(broker({ state: 'stopped', partitionCount: 0 }))).toBeNull();
  });
});
