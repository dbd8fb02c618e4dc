import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../app/api/events.js';
import { openCluster, type OpenCluster } from './open-cluster.js';

const quiet = { error: () => {} };
const PROFILES = fileURLToPath(new URL('../../resources/profiles', import.meta.url));
const open: OpenCluster[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('openCluster', () => {
  it('closes in order and reopens the same cluster with its topics and records, never behind in time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-open-'));
    dirs.push(dir);
    const first = openCluster({ dataDir: dir, logger: quiet });
    open.push(first);
    expect(await first.ready(10_000)).toBe(true);
    expect(await first.service.call('topics.create', { name: 'kept', partitions: 1, replicationFactor: 3 })).toMatchObject({ ok: true });
    let produced;
    for (let i = 0; i < 100; i++) {
      produced = await first.service.call('records.produce', { topic: 'kept', partition: 0, acks: 'all', records: [{ value: 'durable' }] });
      if (produced.ok && produced.value.errorCode === 'NONE') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(produced).toMatchObject({ ok: true, value: { errorCode: 'NONE' } });
    const closedAt = first.scheduler.now();
    first.close();
    expect(first.engine.isShutDown()).toBe(true);
    open.pop();

    const second = openCluster({ dataDir: dir, logger: quiet });
    open.push(second);
    expect(second.scheduler.now()).toBeGreaterThanOrEqual(closedAt);
    expect(await second.ready(20_000)).toBe(true);
    const consumed = await second.service.call('records.consume', { topic: 'kept', partition: 0, offset: 0 });
    expect(consumed).toMatchObject({ ok: true, value: { records: [{ offset: 0, value: 'durable' }] } });
  });

  it('gives every cluster an id of its own in Kafka’s form, kept across a reopen', async () => {
    const [a, b] = [mkdtempSync(join(tmpdir(), 'rs-open-')), mkdtempSync(join(tmpdir(), 'rs-open-'))];
    dirs.push(a, b);
    const idOf = async (c: OpenCluster): Promise<string> => {
      const d = await c.service.call('cluster.describe', {});
      if (!d.ok) throw new Error(d.error.message);
      return d.value.clusterId;
    };
    const first = openCluster({ dataDir: a, logger: quiet, brokers: 1 });
    const other = openCluster({ dataDir: b, logger: quiet, brokers: 1 });
    open.push(first, other);
    const id = await idOf(first);
    expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    expect(await idOf(other)).not.toBe(id);
    first.close();
    const again = openCluster({ dataDir: a, logger: quiet, brokers: 1 });
    open.push(again);
    expect(await idOf(again)).toBe(id);
  });

  it('starts a new cluster from a built-in profile (first run): its brokers, racks and broker configs; an existing cluster is left as it is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-open-'));
    dirs.push(dir);
    const first = openCluster({ dataDir: dir, logger: quiet, initialProfile: 'balanced' });
    open.push(first);
    expect(await first.ready(10_000)).toBe(true);
    const brokers = await first.service.call('brokers.list', {});
    expect(brokers.ok && brokers.value.map((b) => [b.id, b.rack])).toEqual([[1, 'rack-1'], [2, 'rack-2'], [3, 'rack-3']]);
    let minIsr: string | undefined;
    for (let i = 0; i < 100 && minIsr !== '2'; i++) {
      const configs = await first.service.call('configs.describe', { resource: { type: 'broker', name: '' } });
      minIsr = configs.ok ? configs.value.find((c) => c.name === 'min.insync.replicas')?.value : undefined;
      if (minIsr !== '2') await new Promise((r) => setTimeout(r, 50));
    }
    expect(minIsr).toBe('2');
    // The user changes it; reopening with the same option does not apply the profile again.
    expect(await first.service.call('configs.alter', { resource: { type: 'broker', name: '' }, set: { 'min.insync.replicas': '1' } })).toMatchObject({ ok: true });
    first.close();
    open.pop();
    const second = openCluster({ dataDir: dir, logger: quiet, initialProfile: 'balanced' });
    open.push(second);
    expect(await second.ready(20_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    const after = await second.service.call('configs.describe', { resource: { type: 'broker', name: '' } });
    expect(after.ok && after.value.find((c) => c.name === 'min.insync.replicas')?.value).toBe('1');
  });

  it('a new cluster runs with its profile\'s read-only broker configs as server.properties, on its first open and every later one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-open-'));
    dirs.push(dir);
    const staticOf = async (c: typeof first, name: string) => {
      const configs = await c.service.call('configs.describe', { resource: { type: 'broker', name: '1' } });
      return configs.ok ? configs.value.find((x) => x.name === name) : undefined;
    };
    const first = openCluster({ dataDir: dir, logger: quiet, initialProfile: 'durability' });
    open.push(first);
    expect(await first.ready(10_000)).toBe(true);
    expect(await staticOf(first, 'auto.create.topics.enable')).toMatchObject({ value: 'false', source: 'STATIC_BROKER_CONFIG' });
    expect(await staticOf(first, 'num.partitions')).toMatchObject({ value: '6', source: 'STATIC_BROKER_CONFIG' });
    first.close();
    open.pop();
    const second = openCluster({ dataDir: dir, logger: quiet });
    open.push(second);
    expect(await second.ready(20_000)).toBe(true);
    expect(await staticOf(second, 'auto.create.topics.enable')).toMatchObject({ value: 'false', source: 'STATIC_BROKER_CONFIG' });
  });

  it('reads built-in profiles from the folder it is given (a packaged app ships them as resources) and refuses an unknown initial profile', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-open-'));
    const profiles = mkdtempSync(join(tmpdir(), 'rs-profiles-'));
    dirs.push(dir, profiles);
    expect(() => openCluster({ dataDir: dir, logger: quiet, initialProfile: 'balanced', profilesDir: profiles })).toThrow(/ENOENT|no such file/);
    for (const name of ['durability', 'balanced', 'throughput']) copyFileSync(join(PROFILES, `${name}.json`), join(profiles, `${name}.json`));
    expect(() => openCluster({ dataDir: dir, logger: quiet, initialProfile: 'nope', profilesDir: profiles })).toThrow(/No built-in profile named "nope"/);
    const c = openCluster({ dataDir: dir, logger: quiet, initialProfile: 'throughput', profilesDir: profiles });
    open.push(c);
    expect(c.engine.listBrokers().length).toBeGreaterThan(0);
  });

  it('a cluster slow to open says how far it got on the event stream, then that it opened', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-open-'));
    dirs.push(dir);
    // A cluster that stopped without its orderly close (the process died) reopens slowly: each
    // broker's new incarnation is refused until the session of the old one has expired (here 1 s).
    const staticConfigs = { 'broker.session.timeout.ms': '1000', 'broker.heartbeat.interval.ms': '200' };
    const crashed = openCluster({ dataDir: dir, logger: quiet, brokers: 3, staticConfigs });
    expect(await crashed.ready(10_000)).toBe(true);
    crashed.clock.stop();
    crashed.storage.close();
    // Every millisecond counts as "a while" here, so the reopen says how far it got along the way.
    const cluster = openCluster({ dataDir: dir, logger: quiet, staticConfigs, openingEventEveryMs: 1 });
    open.push(cluster);
    const seen: EngineEvent[] = [];
    cluster.service.subscribe((e) => seen.push(e));
    expect(await cluster.ready(10_000)).toBe(true);
    const opening = seen.flatMap((e) => (e.type === 'cluster.opening' ? [e] : []));
    expect(opening.length).toBeGreaterThanOrEqual(2);
    const last = opening[opening.length - 1]!;
    expect(last).toMatchObject({ done: true, brokersRunning: 3, brokers: 3 });
    expect(opening.slice(0, -1).every((e) => !e.done && e.brokers === 3 && e.brokersRunning < 3)).toBe(true);
    expect(opening.map((e) => e.elapsedMs)).toEqual([...opening.map((e) => e.elapsedMs)].sort((a, b) => a - b));
    // The console that connects later finds them in the recent events.
    const recent = await cluster.service.call('events.recent', {});
    expect(recent.ok && recent.value.some((e) => e.type === 'cluster.opening' && e.done)).toBe(true);
  });
});
