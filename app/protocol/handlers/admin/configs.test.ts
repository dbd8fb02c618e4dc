/**
 * Configs as Kafka's DescribeConfigs and AlterConfigs answer them, where a client library's own
 * tests look closely: the synonym list (only the first broker synonym's layers, nothing before the
 * config's own name), the source that follows from it, "" for empty lists, a broker's own node.id
 * and broker.id, and legacy AlterConfigs on a BROKER resource.
 */
import { describe, expect, it } from 'vitest';
import { ApiKey } from '../../generated/index.js';
import { WireSim } from '../../test-support/wire-sim.js';

const SOURCE = { DYNAMIC_TOPIC: 1, DYNAMIC_BROKER: 2, DYNAMIC_DEFAULT: 3, STATIC: 4, DEFAULT: 5 } as const;
const INVALID_REQUEST = 42;

function cluster(staticConfigs: Record<string, string> = {}) {
  const w = new WireSim({ seed: 31, staticConfigs });
  w.sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
  return w;
}

async function describeTopic(w: WireSim, keys: string[], topic = 't') {
  const r = await w.respond(1, ApiKey.DescribeConfigs, 3, { resources: [{ resourceType: 2, resourceName: topic, configurationKeys: keys }], includeSynonyms: true, includeDocumentation: false });
  return new Map(r.results[0]!.configs.map((c) => [c.name, c]));
}

async function describeBroker(w: WireSim, brokerId: number, keys: string[] | null, name = String(brokerId)) {
  const r = await w.respond(brokerId, ApiKey.DescribeConfigs, 3, { resources: [{ resourceType: 4, resourceName: name, configurationKeys: keys }], includeSynonyms: true, includeDocumentation: false });
  return r.results[0]!;
}

describe('DescribeConfigs synonyms as Kafka lists them', () => {
  it('a topic config lists only its first broker synonym\'s layers: defaults of later synonyms are dropped (retention.ms, segment.ms, segment.jitter.ms, flush.ms)', async () => {
    const w = cluster();
    const c = await describeTopic(w, ['retention.ms', 'segment.ms', 'segment.jitter.ms', 'flush.ms', 'min.insync.replicas']);
    for (const name of ['retention.ms', 'segment.ms', 'segment.jitter.ms', 'flush.ms']) {
      expect(c.get(name)).toMatchObject({ configSource: SOURCE.DEFAULT, synonyms: [] });
    }
    expect(c.get('retention.ms')!.value).toBe('604800000');
    expect(c.get('min.insync.replicas')!.synonyms).toEqual([{ name: 'min.insync.replicas', value: '1', source: SOURCE.DEFAULT }]);
  });

  it('the first synonym set somewhere is listed with the later ones after it; a later synonym set alone lists nothing', async () => {
    const both = cluster({ 'log.retention.ms': '3600000', 'log.retention.hours': '100' });
    expect((await describeTopic(both, ['retention.ms'])).get('retention.ms')).toMatchObject({
      value: '3600000',
      configSource: SOURCE.STATIC,
      synonyms: [
        { name: 'log.retention.ms', value: '3600000', source: SOURCE.STATIC },
        { name: 'log.retention.hours', value: '100', source: SOURCE.STATIC },
        { name: 'log.retention.hours', value: '168', source: SOURCE.DEFAULT },
      ],
    });
    const hoursOnly = cluster({ 'log.retention.hours': '100' });
    expect((await describeTopic(hoursOnly, ['retention.ms'])).get('retention.ms')).toMatchObject({ value: '360000000', configSource: SOURCE.DEFAULT, synonyms: [] });
  });

  it('a topic override comes first; the throttled-replica lists have no broker synonym and an empty value is "" (not null)', async () => {
    const w = cluster();
    w.sim.createTopic('o', 1, 1, { 'retention.ms': '1000' });
    const o = await describeTopic(w, ['retention.ms', 'leader.replication.throttled.replicas', 'follower.replication.throttled.replicas'], 'o');
    expect(o.get('retention.ms')!.synonyms).toEqual([{ name: 'retention.ms', value: '1000', source: SOURCE.DYNAMIC_TOPIC }]);
    for (const name of ['leader.replication.throttled.replicas', 'follower.replication.throttled.replicas']) {
      expect(o.get(name)).toMatchObject({ value: '', configSource: SOURCE.DEFAULT, synonyms: [] });
    }
  });

  it('a broker config: its own name first (log.retention.hours when log.retention.ms is set lists only its default); null only for a config nothing sets', async () => {
    const w = cluster({ 'log.retention.ms': '3600000' });
    const r = await describeBroker(w, 2, ['log.retention.hours', 'log.retention.ms', 'log.roll.ms']);
    const c = new Map(r.configs.map((x) => [x.name, x]));
    expect(c.get('log.retention.hours')).toMatchObject({ value: '168', configSource: SOURCE.DEFAULT, synonyms: [{ name: 'log.retention.hours', value: '168', source: SOURCE.DEFAULT }] });
    expect(c.get('log.retention.ms')!.synonyms).toEqual([
      { name: 'log.retention.ms', value: '3600000', source: SOURCE.STATIC },
      { name: 'log.retention.hours', value: '168', source: SOURCE.DEFAULT },
    ]);
    expect(c.get('log.roll.ms')).toMatchObject({ value: null, configSource: SOURCE.DEFAULT, synonyms: [] });
  });

  it('each broker reports its own node.id and broker.id as static configs', async () => {
    const w = cluster();
    for (const id of [1, 3]) {
      const c = new Map((await describeBroker(w, id, ['node.id', 'broker.id'])).configs.map((x) => [x.name, x]));
      expect(c.get('node.id')).toMatchObject({ value: String(id), configSource: SOURCE.STATIC, readOnly: true, synonyms: [{ name: 'node.id', value: String(id), source: SOURCE.STATIC }, { name: 'node.id', value: '-1', source: SOURCE.DEFAULT }] });
      expect(c.get('broker.id')).toMatchObject({ value: String(id), configSource: SOURCE.STATIC, readOnly: true });
    }
  });
});

describe('legacy AlterConfigs on a BROKER resource', () => {
  const alter = (w: WireSim, to: number, name: string, configs: { name: string; value: string | null }[]) =>
    w.respond(to, ApiKey.AlterConfigs, 1, { resources: [{ resourceType: 4, resourceName: name, configs }], validateOnly: false });

  it('the resource name must be the receiving broker\'s id: another id or a non-number is INVALID_REQUEST', async () => {
    const w = cluster();
    const other = (await alter(w, 1, '2', [{ name: 'log.cleaner.threads', value: '2' }])).responses[0]!;
    expect(other).toMatchObject({ errorCode: INVALID_REQUEST, errorMessage: 'Unexpected broker id, expected 1, but received 2' });
    const word = (await alter(w, 1, 'one', [])).responses[0]!;
    expect(word).toMatchObject({ errorCode: INVALID_REQUEST, errorMessage: 'Node id must be an integer, but it is: one' });
    expect(w.sim.engine.metadata.brokerConfigs.get('2')).toBeUndefined();
    const incremental = await w.respond(3, ApiKey.IncrementalAlterConfigs, 0, { resources: [{ resourceType: 4, resourceName: '1', configs: [{ name: 'log.cleaner.threads', configOperation: 0, value: '2' }] }], validateOnly: false });
    expect(incremental.responses[0]!.errorCode).toBe(INVALID_REQUEST);
  });

  it('on its own broker: unknown custom keys are kept beside known ones, and the next call replaces them all', async () => {
    const w = cluster();
    const ok = (await alter(w, 2, '2', [{ name: 'log.cleaner.threads', value: '2' }, { name: 'custom.plugin.setting', value: 'x' }])).responses[0]!;
    expect(ok.errorCode).toBe(0);
    expect(w.sim.engine.metadata.brokerConfigs.get('2')).toEqual({ 'log.cleaner.threads': '2', 'custom.plugin.setting': 'x' });
    const c = new Map((await describeBroker(w, 2, ['log.cleaner.threads'])).configs.map((x) => [x.name, x]));
    expect(c.get('log.cleaner.threads')).toMatchObject({ value: '2', configSource: SOURCE.DYNAMIC_BROKER });
    expect((await alter(w, 2, '2', [{ name: 'custom.other', value: 'y' }])).responses[0]!.errorCode).toBe(0);
    expect(w.sim.engine.metadata.brokerConfigs.get('2')).toEqual({ 'custom.other': 'y' });
  });

  it('what Kafka refuses before forwarding: a read-only config, a key twice, a null value, a resource twice — all INVALID_REQUEST', async () => {
    const w = cluster();
    const readOnly = (await alter(w, 1, '1', [{ name: 'num.partitions', value: '3' }])).responses[0]!;
    expect(readOnly.errorCode).toBe(INVALID_REQUEST);
    expect(readOnly.errorMessage).toMatch(/Cannot update these configs dynamically/);
    expect((await alter(w, 1, '1', [{ name: 'log.cleaner.threads', value: '2' }, { name: 'log.cleaner.threads', value: '3' }])).responses[0]).toMatchObject({ errorCode: INVALID_REQUEST, errorMessage: 'Error due to duplicate config keys' });
    expect((await alter(w, 1, '1', [{ name: 'log.cleaner.threads', value: null }])).responses[0]).toMatchObject({ errorCode: INVALID_REQUEST, errorMessage: 'Null value not supported for : log.cleaner.threads' });
    const twice = await w.respond(1, ApiKey.AlterConfigs, 1, { resources: [{ resourceType: 4, resourceName: '1', configs: [] }, { resourceType: 4, resourceName: '1', configs: [] }], validateOnly: false });
    expect(twice.responses.map((r) => r.errorCode)).toEqual([INVALID_REQUEST, INVALID_REQUEST]);
    expect(w.sim.engine.metadata.brokerConfigs.get('1')).toBeUndefined();
  });
});
