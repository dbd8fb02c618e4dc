import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../app/api/contract.js';
import { startRemoteService } from './forked-engine.js';
import { engineBed } from './test-support/engine-bed.js';

const { tempDir, keep } = engineBed('rs-remote-');

const silent = { error: () => {} };

describe('startRemoteService (the engine in a child process)', () => {
  it('round-trips calls, forwards events, closes the child in order, and answers INTERNAL once it is gone', async () => {
    const dataDir = tempDir();
    const service = await startRemoteService({ dataDir, seed: 7, logger: silent });
    keep(service);
    const events: EngineEvent[] = [];
    service.subscribe((event) => events.push(event));
    expect(await service.ready()).toBe(true);

    const created = await service.call('topics.create', { name: 'orders', partitions: 1, replicationFactor: 3 });
    expect(created).toMatchObject({ ok: true, value: { name: 'orders' } });
    // The partition needs a leader before it takes records: retry while it is being elected.
    let produced = await service.call('records.produce', { topic: 'orders', partition: 0, acks: 'all', records: [{ key: 'k', value: 'hello' }, { value: 'world' }] });
    for (let i = 0; i < 100 && !produced.ok && produced.error.retriable; i++) {
      await new Promise((r) => setTimeout(r, 50));
      produced = await service.call('records.produce', { topic: 'orders', partition: 0, acks: 'all', records: [{ key: 'k', value: 'hello' }, { value: 'world' }] });
    }
    expect(produced).toMatchObject({ ok: true, value: { baseOffset: 0 } });
    const consumed = await service.call('records.consume', { topic: 'orders', partition: 0, offset: 0 });
    expect(consumed.ok).toBe(true);
    expect(JSON.stringify(consumed)).toContain('hello');
    expect(JSON.stringify(consumed)).toContain('world');

    // A bad input is the service's own envelope, passed through unchanged.
    expect(await service.call('topics.create', { name: 42 })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(events.some((e) => e.type === 'topic.created')).toBe(true);

    expect(await service.close()).toBe(0);
    expect(await service.call('cluster.describe', {})).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });

    // The directory was released: it opens again.
    const again = await startRemoteService({ dataDir, seed: 8, logger: silent });
    keep(again);
    expect(await again.call('topics.list', {})).toMatchObject({ ok: true });
  }, 60_000);

  it('forwards every move of the high watermark without a gap, and never lets an answer overtake the move it made', async () => {
    const service = await startRemoteService({ dataDir: tempDir(), seed: 9, logger: silent });
    keep(service);
    const moves: { partition: number; previous: number; highWatermark: number }[] = [];
    service.subscribe((e) => {
      if (e.type === 'highWatermark.advanced' && e.topic === 'hw') moves.push({ partition: e.partition, previous: e.previous, highWatermark: e.highWatermark });
    });
    expect(await service.ready()).toBe(true);
    expect((await service.call('topics.create', { name: 'hw', partitions: 1, replicationFactor: 3 })).ok).toBe(true);
    const produce = () => service.call('records.produce', { topic: 'hw', partition: 0, acks: 'all', records: [{ value: 'x' }] });
    let first = await produce();
    for (let i = 0; i < 100 && !first.ok && first.error.retriable; i++) {
      await new Promise((r) => setTimeout(r, 50));
      first = await produce();
    }
    expect(first.ok).toBe(true);
    // Every acknowledged produce: by the time its answer arrives, the parent has seen the HW past it.
    const burst = 40;
    const answers = await Promise.all(
      Array.from({ length: burst }, async () => {
        const r = await produce();
        if (!r.ok) throw new Error(r.error.message);
        expect(Math.max(...moves.map((m) => m.highWatermark))).toBeGreaterThan(r.value.baseOffset);
        return r.value.baseOffset;
      }),
    );
    expect(Math.max(...answers)).toBe(burst);
    // The moves join up with no gap from 0 to the end (a coalesced event keeps the first previous).
    const sorted = [...moves].sort((a, b) => a.previous - b.previous);
    let reached = 0;
    for (const m of sorted) {
      expect(m.previous).toBeLessThanOrEqual(reached);
      reached = Math.max(reached, m.highWatermark);
    }
    expect(reached).toBe(burst + 1);
  }, 60_000);

  it('rejects with the lock message when the data directory is held by another engine', async () => {
    const dataDir = tempDir();
    const first = await startRemoteService({ dataDir, logger: silent });
    keep(first);
    await expect(startRemoteService({ dataDir, logger: silent })).rejects.toThrow(/locked by another process/);
    expect(await first.call('cluster.describe', {})).toMatchObject({ ok: true });
  }, 60_000);

  it('answers INTERNAL to pending and later calls when the child dies', async () => {
    const service = await startRemoteService({ dataDir: tempDir(), logger: silent });
    keep(service);
    const pending = service.call('cluster.describe', {});
    process.kill(service.pid, 'SIGKILL');
    const answer = await pending;
    // Either it answered before the kill landed, or it is INTERNAL.
    if (!answer.ok) expect(answer.error.code).toBe('INTERNAL');
    await new Promise((r) => setTimeout(r, 200));
    expect(await service.call('cluster.describe', {})).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
  }, 60_000);

  it('an engine whose parent is gone exits 0 and holds nothing: also when the parent went while it was still loading', async () => {
    const entry = fileURLToPath(new URL('./engine-main.ts', import.meta.url));
    for (const leave of ['at once', 'once opened'] as const) {
      const dataDir = tempDir();
      const child = fork(entry, [JSON.stringify({ dataDir })], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'ignore', 'ipc'], serialization: 'json' });
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      if (leave === 'at once') child.disconnect(); // before the child has loaded and could listen for it
      else {
        await new Promise<void>((done) => child.on('message', (m: { opened?: boolean }) => m.opened && done()));
        child.disconnect();
      }
      // Before the fix an engine left at once opened the cluster anyway and ran on, ports and lock held.
      const code = await Promise.race([exited, new Promise<'still running'>((done) => setTimeout(() => done('still running'), 45_000))]);
      if (code === 'still running') child.kill('SIGKILL');
      expect(code, leave).toBe(0);
      // Its data directory is free: another engine opens it.
      const next = await startRemoteService({ dataDir, logger: silent });
      keep(next);
      expect(await next.call('cluster.describe', {})).toMatchObject({ ok: true });
      await next.close();
    }
  }, 150_000);
});
