import { describe, expect, it } from 'vitest';
import { memberLabels } from './member-labels.js';

const member = (clientId: string, uuid: string, host = '/127.0.0.1', groupInstanceId: string | null = null) => ({ memberId: `${clientId}-${uuid}`, clientId, host, groupInstanceId });

describe('telling a group’s members apart', () => {
  it('keeps the client id when it names one member', () => {
    const labels = memberLabels([member('billing', 'aaaa-1'), member('audit', 'bbbb-2')]);
    expect([...labels.values()]).toEqual(['billing', 'audit']);
  });

  it('adds the host when members share a client id but not a host', () => {
    const labels = memberLabels([member('rdkafka', '1111', '/10.0.0.1'), member('rdkafka', '2222', '/10.0.0.2')]);
    expect([...labels.values()]).toEqual(['rdkafka @ 10.0.0.1', 'rdkafka @ 10.0.0.2']);
  });

  it('adds as much of the member id’s UUID as tells them apart when client id and host are shared', () => {
    const a = member('rdkafka', '7f3a9c21-0000-4000-8000-000000000001');
    const b = member('rdkafka', '7f3a1d44-0000-4000-8000-000000000002');
    const c = member('rdkafka', '0b12ffee-0000-4000-8000-000000000003');
    const labels = memberLabels([a, b, c]);
    expect(labels.get(a.memberId)).toBe('rdkafka #7f3a9');
    expect(labels.get(b.memberId)).toBe('rdkafka #7f3a1');
    expect(labels.get(c.memberId)).toBe('rdkafka #0b12f');
    expect(new Set(labels.values()).size).toBe(3);
  });

  it('names a static member by its group.instance.id', () => {
    expect([...memberLabels([member('rdkafka', 'x', '/h', 'orders-0'), member('rdkafka', 'y', '/h', 'orders-1')]).values()]).toEqual(['orders-0', 'orders-1']);
  });
});
