import { describe, expect, it } from 'vitest';
import type { MetadataRecord } from '../metadata/records.js';
import { alterClientQuotas, describeClientQuotas, entityKey, resolveQuota, type QuotaEntity, type QuotaEntry } from './client-quotas.js';

describe('resolveQuota: KIP-55 precedence per quota key', () => {
  const levels: [string, QuotaEntity][] = [
    ['1 user+client', { user: 'alice', 'client-id': 'app' }],
    ['2 user+default client', { user: 'alice', 'client-id': null }],
    ['3 user', { user: 'alice' }],
    ['4 default user+client', { user: null, 'client-id': 'app' }],
    ['5 default user+default client', { user: null, 'client-id': null }],
    ['6 default user', { user: null }],
    ['7 client', { 'client-id': 'app' }],
    ['8 default client', { 'client-id': null }],
  ];

  it('takes the most specific entity that sets the key, all eight levels in order', () => {
    for (let i = 0; i < levels.length; i++) {
      // Every level from i on is set, each with its own value: level i must win.
      const set = new Map(levels.slice(i).map(([, e], j) => [entityKey(e), 100 * (i + j + 1)]));
      const r = resolveQuota((e) => set.get(entityKey(e)), 'alice', 'app');
      expect(r.limit, levels[i]![0]).toBe(100 * (i + 1));
      expect(r.entity, levels[i]![0]).toEqual(levels[i]![1]);
    }
  });

  it('keeps the rate per user for user quotas, per user and client for combined ones, per client for client ones', () => {
    const only = (e: QuotaEntity) => (x: QuotaEntity) => (entityKey(x) === entityKey(e) ? 1000 : undefined);
    expect(resolveQuota(only({ user: null }), 'alice', 'app')).toMatchObject({ user: 'alice', clientId: '' });
    expect(resolveQuota(only({ user: null, 'client-id': null }), 'alice', 'app')).toMatchObject({ user: 'alice', clientId: 'app' });
    expect(resolveQuota(only({ 'client-id': null }), 'alice', 'app')).toMatchObject({ user: '', clientId: 'app', limit: 1000 });
    expect(resolveQuota(() => undefined, 'alice', 'app')).toEqual({ limit: null, entity: null, user: '', clientId: 'app' });
  });
});

describe('alterClientQuotas: ClientQuotaControlManager', () => {
  const none = (): undefined => undefined;

  it('sets and removes keys as records, skipping values that do not change', () => {
    const current = { producer_byte_rate: 1024 };
    const { records, results } = alterClientQuotas(() => current, [
      { entity: { user: 'alice' }, ops: [{ key: 'producer_byte_rate', value: 1024 }, { key: 'consumer_byte_rate', value: 2048 }, { key: 'request_percentage', value: null }] },
    ]);
    expect(results).toEqual([{ entity: { user: 'alice' }, errorCode: 'NONE', errorMessage: null }]);
    expect(records).toEqual<MetadataRecord[]>([{ type: 'ClientQuota', entity: { user: 'alice' }, key: 'consumer_byte_rate', value: 2048 }]);
    expect(alterClientQuotas(() => current, [{ entity: { user: 'alice' }, ops: [{ key: 'producer_byte_rate', value: null }] }]).records).toEqual([
      { type: 'ClientQuota', entity: { user: 'alice' }, key: 'producer_byte_rate', value: null },
    ]);
  });

  it("refuses hostile entities, keys and values with Kafka's INVALID_REQUEST and changes nothing of that entity", () => {
    const cases: [QuotaEntity, string, number, RegExp][] = [
      [{}, 'producer_byte_rate', 1, /Invalid empty client quota entity/],
      [{ user: '' }, 'producer_byte_rate', 1, /Empty user not supported/],
      [{ user: 'a', ip: '1.2.3.4' }, 'producer_byte_rate', 1, /IP entity should/],
      [{ ip: 'not an ip' }, 'connection_creation_rate', 1, /is not a valid IP/],
      [{ user: 'a' }, 'no_such_key', 1, /Invalid configuration key no_such_key/],
      [{ user: 'a' }, 'producer_byte_rate', 0, /must be greater than 0/],
      [{ user: 'a' }, 'producer_byte_rate', -5, /must be greater than 0/],
      [{ user: 'a' }, 'producer_byte_rate', 10.5, /cannot be a fractional value/],
      [{ ip: '1.2.3.4' }, 'producer_byte_rate', 1, /Invalid configuration key/],
    ];
    for (const [entity, key, value, message] of cases) {
      const { records, results } = alterClientQuotas(none, [{ entity, ops: [{ key: 'consumer_byte_rate', value: 10 }, { key, value }] }]);
      expect(records, JSON.stringify(entity)).toEqual([]);
      expect(results[0]!.errorCode).toBe('INVALID_REQUEST');
      expect(results[0]!.errorMessage).toMatch(message);
    }
    const unknownType = alterClientQuotas(none, [{ entity: { group: 'g' } as QuotaEntity, ops: [{ key: 'producer_byte_rate', value: 1 }] }]);
    expect(unknownType.results[0]!.errorMessage).toBe('Unhandled client quota entity type: group');
    const twice = alterClientQuotas(none, [{ entity: { user: 'a' }, ops: [{ key: 'producer_byte_rate', value: 1 }, { key: 'producer_byte_rate', value: 2 }] }]);
    expect(twice.records).toEqual([]);
    expect(twice.results[0]!.errorMessage).toBe('Ignoring duplicate entity ClientQuotaEntity(entries={user=a})');
    // A fractional request_percentage is fine: it is a double.
    expect(alterClientQuotas(none, [{ entity: { 'client-id': null }, ops: [{ key: 'request_percentage', value: 12.5 }] }]).results[0]!.errorCode).toBe('NONE');
  });
});

describe('describeClientQuotas: ClientQuotasImage.describe', () => {
  const entries: QuotaEntry[] = [
    { entity: { user: 'alice' }, values: { producer_byte_rate: 1 } },
    { entity: { user: 'alice', 'client-id': 'app' }, values: { producer_byte_rate: 2 } },
    { entity: { user: null }, values: { producer_byte_rate: 3 } },
    { entity: { 'client-id': null }, values: { consumer_byte_rate: 4 } },
  ];
  const users = (r: QuotaEntry[]): string[] => r.map((e) => entityKey(e.entity));

  it('matches exact names, the default and any named entity, strict or not', () => {
    expect(users(describeClientQuotas(entries, [{ entityType: 'user', matchType: 0, match: 'alice' }], false))).toEqual(['user="alice"', 'user="alice",client-id="app"']);
    expect(users(describeClientQuotas(entries, [{ entityType: 'user', matchType: 0, match: 'alice' }], true))).toEqual(['user="alice"']);
    expect(users(describeClientQuotas(entries, [{ entityType: 'user', matchType: 1, match: null }], false))).toEqual(['user=<default>']);
    // SPECIFIED asks only that the entity has the type: KRaft's ClientQuotasImage lets the default through too.
    expect(users(describeClientQuotas(entries, [{ entityType: 'client-id', matchType: 2, match: null }], false))).toEqual(['user="alice",client-id="app"', 'client-id=<default>']);
    expect(describeClientQuotas(entries, [], false)).toHaveLength(4);
    expect(describeClientQuotas(entries, [], true)).toHaveLength(0);
  });

  it('refuses malformed filters with the error Kafka gives', () => {
    expect(() => describeClientQuotas(entries, [{ entityType: '', matchType: 0, match: 'x' }], false)).toThrow('Invalid empty entity type.');
    expect(() => describeClientQuotas(entries, [{ entityType: 'user', matchType: 2, match: null }, { entityType: 'user', matchType: 1, match: null }], false)).toThrow(/cannot appear more than once/);
    expect(() => describeClientQuotas(entries, [{ entityType: 'group', matchType: 2, match: null }], false)).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_VERSION' }));
    expect(() => describeClientQuotas(entries, [{ entityType: 'user', matchType: 0, match: null }], false)).toThrow(/MATCH_TYPE_EXACT, but set match string to null/);
    expect(() => describeClientQuotas(entries, [{ entityType: 'user', matchType: 1, match: 'x' }], false)).toThrow(/MATCH_TYPE_DEFAULT, but also specified/);
    expect(() => describeClientQuotas(entries, [{ entityType: 'user', matchType: 7, match: null }], false)).toThrow('Unknown match type 7');
    expect(() => describeClientQuotas(entries, [{ entityType: 'ip', matchType: 2, match: null }, { entityType: 'user', matchType: 2, match: null }], false)).toThrow(/IP filter component/);
  });
});
