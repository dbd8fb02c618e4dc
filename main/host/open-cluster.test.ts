import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openCluster, type OpenCluster } from './open-cluster.js';

const quiet = { error: () => {} };
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
});
