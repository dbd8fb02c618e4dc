import { EventEmitter } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import type { EngineEvent } from '../../app/api/contract.js';
import { engineBed } from '../engine/test-support/engine-bed.js';
import { fakeUtilityProcess } from './test-support/fake-utility-process.js';
import { startUtilityEngine, utilityProcessHandle, type UtilityProcessLike } from './utility-engine.js';

const ENGINE_SOURCE = fileURLToPath(new URL('../engine/engine-main.ts', import.meta.url));
const silent = { error: () => {} };
const { tempDir, keep } = engineBed('rs-utility-');

describe('the engine in a (stand-in) utility process', () => {
  it('is forked by path with its options, answers calls and events over the port, and closes in order', async () => {
    const utilityProcess = fakeUtilityProcess();
    const dataDir = tempDir();
    const service = await startUtilityEngine(utilityProcess, { enginePath: ENGINE_SOURCE, dataDir, seed: 3, logger: silent });
    keep(service);
    expect(utilityProcess.forks).toEqual([{ modulePath: ENGINE_SOURCE, args: [JSON.stringify({ dataDir, seed: 3 })], options: expect.objectContaining({ serviceName: 'Replica Studio engine' }) }]);
    expect(service.pid).toBeGreaterThan(0);
    // The engine's V8 runs with a small young generation (its RSS at 10,000 partitions: npm run bench -- scale).
    if (existsSync(`/proc/${service.pid}/cmdline`)) expect(readFileSync(`/proc/${service.pid}/cmdline`, 'utf8').split('\0')).toContain('--max-semi-space-size=2');
    const events: EngineEvent[] = [];
    service.subscribe((event) => events.push(event));
    expect(await service.ready()).toBe(true);

    expect(await service.call('topics.create', { name: 'orders', partitions: 2, replicationFactor: 3 })).toMatchObject({ ok: true, value: { name: 'orders' } });
    expect(await service.call('topics.create', { name: 7 })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(events.some((e) => e.type === 'topic.created')).toBe(true);

    // The port has no 'disconnect': the engine must leave by itself once it has closed.
    expect(await service.close()).toBe(0);
    expect(await service.call('cluster.describe', {})).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    const again = await startUtilityEngine(utilityProcess, { enginePath: ENGINE_SOURCE, dataDir, logger: silent });
    keep(again);
    expect(await again.call('topics.list', {})).toMatchObject({ ok: true, value: [expect.objectContaining({ name: 'orders' })] });
  }, 60_000);

  it('rejects with the engine\'s own message when the data directory is locked (the fatal message outruns the exit)', async () => {
    const utilityProcess = fakeUtilityProcess();
    const dataDir = tempDir();
    keep(await startUtilityEngine(utilityProcess, { enginePath: ENGINE_SOURCE, dataDir, logger: silent }));
    await expect(startUtilityEngine(utilityProcess, { enginePath: ENGINE_SOURCE, dataDir, logger: silent })).rejects.toThrow(/locked by another process/);
  }, 60_000);
});

describe('utilityProcessHandle', () => {
  function fakeProc(pid: number | undefined) {
    const emitter = new EventEmitter();
    const posted: unknown[] = [];
    const proc = Object.assign(emitter, { pid, postMessage: (m: unknown) => void posted.push(m), kill: vi.fn(() => true) });
    return { proc: proc as unknown as UtilityProcessLike, raw: proc, posted };
  }

  it('relays messages both ways and reports the exit code once', () => {
    const fake = fakeProc(4242);
    const handle = utilityProcessHandle(fake.proc);
    const messages: unknown[] = [];
    handle.onMessage((m) => messages.push(m));
    const exits: unknown[] = [];
    handle.onExit((code, reason) => exits.push([code, reason]));
    handle.send({ id: 1, method: 'cluster.describe', input: {} });
    expect(fake.posted).toEqual([{ id: 1, method: 'cluster.describe', input: {} }]);
    fake.raw.emit('message', { opened: true, created: false });
    expect(messages).toEqual([{ opened: true, created: false }]);
    expect(handle.connected).toBe(true);
    fake.raw.emit('exit', 3);
    fake.raw.emit('exit', 3);
    expect(exits).toEqual([[3, 'exited with 3']]);
    expect(handle.connected).toBe(false);
  });

  it('posts nothing once the process has gone (posting from the exit listener can crash Electron) and says so', () => {
    const fake = fakeProc(4242);
    const handle = utilityProcessHandle(fake.proc);
    fake.raw.emit('exit', 0);
    const failed = vi.fn();
    handle.send({ close: true }, failed);
    expect(fake.posted).toEqual([]);
    expect(failed).toHaveBeenCalledOnce();
  });

  it('kills with SIGKILL by pid (UtilityProcess.kill only sends SIGTERM, which the engine treats as an orderly close)', () => {
    const fake = fakeProc(777);
    const hardKill = vi.fn();
    utilityProcessHandle(fake.proc, hardKill).kill();
    expect(hardKill).toHaveBeenCalledWith(777);
    expect(fake.raw.kill).not.toHaveBeenCalled();

    const unspawned = fakeProc(undefined);
    utilityProcessHandle(unspawned.proc, hardKill).kill();
    expect(unspawned.raw.kill).toHaveBeenCalledOnce();
  });

  it('turns a fatal error of the utility process into an Error', () => {
    const fake = fakeProc(4242);
    const handle = utilityProcessHandle(fake.proc);
    const errors: Error[] = [];
    handle.onError((e) => errors.push(e));
    fake.raw.emit('error', 'FatalError', 'v8::Isolate', 'report');
    expect(errors.map((e) => e.message)).toEqual(['FatalError in the engine process at v8::Isolate']);
  });
});
