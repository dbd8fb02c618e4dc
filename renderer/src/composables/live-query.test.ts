/**
 * The live query's lifecycle on a scripted transport and fake timers: when it reads, how events,
 * polls and reconnects coalesce into reads, and that nothing is left listening or ticking once it
 * is released or the connection stops. (Every store built on it is tested against a real host in
 * stores/*.test.ts; this pins the timing rules those tests cannot see.)
 */
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EngineEvent, Result } from '../../../app/api/contract.js';
import { createClient } from '../api/client.js';
import { setClient } from '../api/instance.js';
import type { ConnectionStatus, Transport } from '../api/transport.js';
import { useConnectionStore } from '../stores/connection.js';
import { useLiveQuery } from './live-query.js';

/** A transport whose `clock.get` answers count up, each after `delayMs`; events and status are pushed by the test. */
function scriptedTransport(delayMs = 10) {
  let reads = 0;
  const events = new Set<(e: EngineEvent) => void>();
  const statuses = new Set<(s: ConnectionStatus) => void>();
  const transport: Transport = {
    kind: 'http',
    call: async () => {
      const n = ++reads;
      await new Promise((r) => setTimeout(r, delayMs));
      return { ok: true, value: { nowMs: n, mode: 'realtime', scale: 1 } } as Result<never>;
    },
    subscribe: (l) => (events.add(l), () => events.delete(l)),
    onStatus: (l) => (statuses.add(l), () => statuses.delete(l)),
    close: () => {},
  };
  return {
    transport,
    reads: () => reads,
    status: (s: ConnectionStatus) => statuses.forEach((l) => l(s)),
    emit: (e: EngineEvent) => events.forEach((l) => l(e)),
  };
}

const killed = (brokerId: number): EngineEvent => ({ type: 'broker.stateChanged', atMs: 1, brokerId, previous: 'running', state: 'killed', reason: 'killed' }) as EngineEvent;

describe('a live query', () => {
  let t: ReturnType<typeof scriptedTransport>;
  beforeEach(() => {
    vi.useFakeTimers();
    t = scriptedTransport();
    setClient(createClient(t.transport));
    setActivePinia(createPinia());
    useConnectionStore().start();
    t.status('open');
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const clockQuery = (opts: { pollMs?: number } = {}) =>
    useLiveQuery<number>({
      name: 'clock',
      initial: 0,
      read: async () => (await createClient(t.transport).call('clock.get', {})).nowMs,
      invalidatedBy: (e) => e.type === 'broker.stateChanged',
      throttleMs: 100,
      ...opts,
    });

  it('reads once when first used, and a burst of invalidating events makes one more read after the throttle', async () => {
    const q = clockQuery();
    expect(t.reads()).toBe(0);
    const release = q.acquire();
    await vi.advanceTimersByTimeAsync(20);
    expect([t.reads(), q.data.value, q.loaded.value]).toEqual([1, 1, true]);
    for (let i = 0; i < 5; i++) t.emit(killed(i));
    t.emit({ ...killed(9), type: 'topic.deleted' } as unknown as EngineEvent);
    await vi.advanceTimersByTimeAsync(99);
    expect(t.reads()).toBe(1);
    await vi.advanceTimersByTimeAsync(20);
    expect([t.reads(), q.data.value]).toEqual([2, 2]);
    release();
  });

  it('coalesces reads asked for while one is in flight into one more, and each caller sees a read that started after its call', async () => {
    const q = clockQuery();
    const first = q.refresh();
    const second = q.refresh();
    const third = q.refresh();
    await vi.advanceTimersByTimeAsync(30);
    await Promise.all([first, second, third]);
    expect(t.reads()).toBe(2);
    expect(q.data.value).toBe(2);
  });

  it('drops a read in flight once an action’s answer is shown, so an older read never overwrites it', async () => {
    const q = clockQuery();
    const reading = q.refresh();
    q.set(42);
    await vi.advanceTimersByTimeAsync(20);
    await reading;
    expect(t.reads()).toBe(1);
    expect(q.data.value).toBe(42);
  });

  it('polls while used; once released nothing is left listening, throttling or polling', async () => {
    const connection = useConnectionStore();
    const before = connection.listening();
    const q = clockQuery({ pollMs: 1000 });
    const a = q.acquire();
    const b = q.acquire();
    expect(connection.running).toEqual(['clock']);
    await vi.advanceTimersByTimeAsync(3050);
    expect(t.reads()).toBe(4); // the first read, then one a second
    t.emit(killed(1)); // a throttled read pending at release
    a();
    a(); // a release is idempotent: the other lease still holds it
    expect(q.running.value).toBe(true);
    b();
    expect(q.running.value).toBe(false);
    expect(connection.listening()).toEqual(before);
    expect(connection.running).toEqual([]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(t.reads()).toBe(4);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('re-reads at once when the event stream comes back after a drop', async () => {
    const q = clockQuery();
    const release = q.acquire();
    await vi.advanceTimersByTimeAsync(20);
    t.status('connecting');
    t.status('open');
    await vi.advanceTimersByTimeAsync(20);
    expect(t.reads()).toBe(2);
    release();
  });

  it('stops listening and polling while the connection is stopped, and resumes with a read when it starts again', async () => {
    const connection = useConnectionStore();
    const q = clockQuery({ pollMs: 1000 });
    const release = q.acquire();
    await vi.advanceTimersByTimeAsync(20);
    connection.stop();
    expect(connection.listening()).toEqual({ events: 0, reconnect: 0 });
    expect(connection.running).toEqual([]);
    t.emit(killed(1));
    await vi.advanceTimersByTimeAsync(5000);
    expect(t.reads()).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    connection.start();
    await vi.advanceTimersByTimeAsync(20);
    expect(t.reads()).toBe(2);
    expect(connection.running).toEqual(['clock']);
    release();
    expect(connection.running).toEqual([]);
  });
});
