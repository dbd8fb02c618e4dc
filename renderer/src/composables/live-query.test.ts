/**
 * The live query's lifecycle on a scripted transport and fake timers: when it reads, how events,
 * polls and reconnects coalesce into reads, and that nothing is left listening or ticking once it
 * is released or the event stream stops. (Every store built on it is tested against a real host in
 * stores/*.test.ts; this pins the timing rules those tests cannot see.)
 */
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EngineEvent, Result } from '../../../app/api/contract.js';
import { setActiveConnection } from '../api/active-connection.js';
import { ClientError, createClient } from '../api/client.js';
import { setClient } from '../api/instance.js';
import type { ConnectionStatus, Transport } from '../api/transport.js';
import { useEventStreamStore } from '../stores/event-stream.js';
import { EXTERNAL_READ_TIMEOUT_MS, useLiveQuery } from './live-query.js';

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
    useEventStreamStore().start();
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
    const stream = useEventStreamStore();
    const before = stream.listening();
    const q = clockQuery({ pollMs: 1000 });
    const a = q.acquire();
    const b = q.acquire();
    expect(stream.running).toEqual(['clock']);
    await vi.advanceTimersByTimeAsync(3050);
    expect(t.reads()).toBe(4); // the first read, then one a second
    t.emit(killed(1)); // a throttled read pending at release
    a();
    a(); // a release is idempotent: the other lease still holds it
    expect(q.running.value).toBe(true);
    b();
    expect(q.running.value).toBe(false);
    expect(stream.listening()).toEqual(before);
    expect(stream.running).toEqual([]);
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

  it('stops listening and polling while the event stream is stopped, and resumes with a read when it starts again', async () => {
    const stream = useEventStreamStore();
    const q = clockQuery({ pollMs: 1000 });
    const release = q.acquire();
    await vi.advanceTimersByTimeAsync(20);
    stream.stop();
    expect(stream.listening()).toEqual({ events: 0, reconnect: 0 });
    expect(stream.running).toEqual([]);
    t.emit(killed(1));
    await vi.advanceTimersByTimeAsync(5000);
    expect(t.reads()).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    stream.start();
    await vi.advanceTimersByTimeAsync(20);
    expect(t.reads()).toBe(2);
    expect(stream.running).toEqual(['clock']);
    release();
    expect(stream.running).toEqual([]);
  });

  describe('on an external cluster, where a read can be lost (a broker that never answers it)', () => {
    /** Reads up to `lost` never answer unless the test answers them; later reads answer at once with their number. */
    function losing(lost: number) {
      let reads = 0;
      const pending = new Map<number, (n: number) => void>();
      const read = (): Promise<number> => {
        const n = ++reads;
        return n <= lost ? new Promise<number>((resolve) => pending.set(n, resolve)) : Promise.resolve(n);
      };
      return { read, reads: () => reads, answer: (n: number) => pending.get(n)?.(n) };
    }
    beforeEach(() => {
      // The window's choice of connection lives in sessionStorage, which Node lacks.
      const kept = new Map<string, string>();
      (globalThis as { sessionStorage?: unknown }).sessionStorage = { getItem: (k: string) => kept.get(k) ?? null, setItem: (k: string, v: string) => void kept.set(k, v), removeItem: (k: string) => void kept.delete(k) };
      setActiveConnection({ id: 'c1', name: 'prod', kind: 'external', bootstrap: 'kafka-1:9092' });
    });
    afterEach(() => {
      delete (globalThis as { sessionStorage?: unknown }).sessionStorage;
    });

    it('stops waiting for a lost read after EXTERNAL_READ_TIMEOUT_MS (half of request.timeout.ms) and reads again, showing the cluster; the lost read’s late answer is dropped', async () => {
      const s = losing(1);
      const q = useLiveQuery<number>({ name: 'lost-once', initial: 0, read: s.read });
      const release = q.acquire();
      await vi.advanceTimersByTimeAsync(EXTERNAL_READ_TIMEOUT_MS - 1);
      // Still waiting: the polls asked for meanwhile coalesce behind the read in flight.
      expect([s.reads(), q.loaded.value, q.error.value]).toEqual([1, false, null]);
      await vi.advanceTimersByTimeAsync(1);
      // The polls it held back read at once: the page shows the cluster before Kafka's client would even give up on one request (30 s).
      expect([s.reads(), q.loaded.value, q.data.value, q.error.value]).toEqual([2, true, 2, null]);
      s.answer(1);
      await vi.advanceTimersByTimeAsync(0);
      expect(q.data.value).toBe(2);
      release();
    });

    it('says the cluster did not answer (REQUEST_TIMED_OUT, retriable) while no read answers, keeps reading once per poll, and shows it once one does', async () => {
      const s = losing(3);
      const q = useLiveQuery<number>({ name: 'lost-thrice', initial: 0, read: s.read, pollMs: 20_000 });
      const release = q.acquire();
      await vi.advanceTimersByTimeAsync(EXTERNAL_READ_TIMEOUT_MS);
      expect(q.error.value).toBeInstanceOf(ClientError);
      expect((q.error.value as ClientError).error).toMatchObject({ code: 'REQUEST_TIMED_OUT', retriable: true });
      expect([s.reads(), q.loaded.value]).toEqual([1, false]);
      await vi.advanceTimersByTimeAsync(20_000 - EXTERNAL_READ_TIMEOUT_MS);
      expect(s.reads()).toBe(2); // the poll reads again: one more read, not a pile-up
      await vi.advanceTimersByTimeAsync(20_000);
      expect([s.reads(), q.loaded.value]).toEqual([3, false]);
      // A lost read that answers after all, before any newer one did, is shown.
      s.answer(2);
      await vi.advanceTimersByTimeAsync(0);
      expect([q.loaded.value, q.data.value, q.error.value]).toEqual([true, 2, null]);
      await vi.advanceTimersByTimeAsync(20_000);
      expect([s.reads(), q.data.value, q.error.value]).toEqual([4, 4, null]);
      release();
    });

    it('keeps one read in flight while reads answer within the bound', async () => {
      let reads = 0;
      const q = useLiveQuery<number>({ name: 'slow', initial: 0, read: () => new Promise((r) => setTimeout(() => r(++reads), EXTERNAL_READ_TIMEOUT_MS - 1_000)) });
      const release = q.acquire();
      await vi.advanceTimersByTimeAsync(EXTERNAL_READ_TIMEOUT_MS + 5_000);
      expect([reads, q.data.value, q.error.value]).toEqual([1, 1, null]);
      release();
    });
  });
});
