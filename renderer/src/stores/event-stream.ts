/**
 * The event stream: connection status, the recent-events feed, and a fan-out so each store can
 * react to the events it cares about. `start()` subscribes once (idempotent); `stop()` ends the
 * subscription and suspends every live query (their listeners and polls go), `start()` again
 * resumes them. Live queries (composables/live-query.ts) attach here, so what still listens is
 * visible in one place (`listening()`).
 */
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { EngineEvent } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import type { ConnectionStatus } from '../api/transport.js';
import { groupOf, type EventGroup } from '../lib/event-narrator.js';

/** Events too frequent for the feed (they still reach `on` listeners). */
const NOT_IN_FEED = new Set<EngineEvent['type']>(['highWatermark.advanced']);
export const FEED_SIZE = 300;
/**
 * The feed takes in what arrived at most this often (listeners hear each event at once): a burst
 * (some 33,000 events for a controlled shutdown at 100,000 partitions) redraws it a few times a
 * second, not once per event.
 */
export const FEED_FLUSH_MS = 100;

/**
 * The feed's events, oldest first, keeping the newest FEED_SIZE of each group (the overview's
 * filter): a flood of one kind (100,000 ISR changes as a broker stops) does not push the others
 * (that broker stopping) out of reach of the filter.
 */
function trimFeed(events: EngineEvent[]): EngineEvent[] {
  if (events.length <= FEED_SIZE) return events;
  const counts = new Map<EventGroup, number>();
  const kept: EngineEvent[] = [];
  for (let i = events.length - 1; i >= 0; i--) {
    const g = groupOf(events[i]!);
    const n = counts.get(g) ?? 0;
    if (n < FEED_SIZE) {
      counts.set(g, n + 1);
      kept.push(events[i]!);
    }
  }
  return kept.length === events.length ? events : kept.reverse();
}

/** What a live query does when the event stream stops and starts again. */
export interface Suspendable {
  readonly name: string;
  suspend(): void;
  resume(): void;
}

export const useEventStreamStore = defineStore('event-stream', () => {
  const status = ref<ConnectionStatus>('connecting');
  /** Newest last: the newest FEED_SIZE events of each group (trimFeed). */
  const recent = shallowRef<EngineEvent[]>([]);
  /** Stopped by `stop()` (and not started since): live queries stay suspended. */
  const stopped = ref(false);
  const listeners = new Set<(event: EngineEvent) => void>();
  const reconnectListeners = new Set<() => void>();
  const attached = new Set<Suspendable>();
  /** Names of the live queries running now (attached and not suspended). */
  const running = shallowRef<readonly string[]>([]);
  let unsubscribe: (() => void) | undefined;

  /** Feed events not yet in `recent` (at most FEED_SIZE of the newest are ever shown). */
  let pending: EngineEvent[] = [];
  /** Trim `pending` when it grows past this (twice what the last trim left: amortized, not per event). */
  let pendingLimit = 2 * FEED_SIZE;
  let flushTimer: ReturnType<typeof setTimeout> | undefined;

  /** Move what arrived into the feed now. */
  function flushFeed(): void {
    if (flushTimer !== undefined) clearTimeout(flushTimer);
    flushTimer = undefined;
    if (pending.length === 0) return;
    const next = recent.value.concat(pending);
    pending = [];
    pendingLimit = 2 * FEED_SIZE;
    recent.value = trimFeed(next);
  }

  function dispatch(event: EngineEvent): void {
    if (!NOT_IN_FEED.has(event.type) && !(event.type as string).startsWith('metrics.')) {
      pending.push(event);
      if (pending.length > pendingLimit) {
        pending = trimFeed(pending);
        pendingLimit = Math.max(2 * FEED_SIZE, 2 * pending.length);
      }
      flushTimer ??= setTimeout(flushFeed, FEED_FLUSH_MS);
    }
    for (const l of [...listeners]) l(event);
  }

  function start(): void {
    if (unsubscribe) return;
    const c = client();
    const offEvents = c.subscribe(dispatch);
    let wasOpen = false;
    const offStatus = c.onStatus((s) => {
      status.value = s;
      if (s === 'open') {
        if (wasOpen) for (const l of [...reconnectListeners]) l();
        wasOpen = true;
      }
    });
    unsubscribe = () => {
      offEvents();
      offStatus();
    };
    if (stopped.value) {
      stopped.value = false;
      for (const q of [...attached]) q.resume();
    }
  }

  /** End the subscription; every live query drops its listeners and polls until `start()`. */
  function stop(): void {
    unsubscribe?.();
    unsubscribe = undefined;
    stopped.value = true;
    for (const q of [...attached]) q.suspend();
  }

  /** Listen to every event; returns the unsubscribe function. */
  function on(listener: (event: EngineEvent) => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  /** Called when the stream comes back after a drop: stores re-read their state. */
  function onReconnect(listener: () => void): () => void {
    reconnectListeners.add(listener);
    return () => reconnectListeners.delete(listener);
  }

  /** A live query in use registers here (suspended at once when the event stream is stopped); returns the detach function. */
  function attach(query: Suspendable): () => void {
    attached.add(query);
    if (stopped.value) query.suspend();
    return () => attached.delete(query);
  }

  /** A live query reports that it runs (listeners and poll on) or no longer does. */
  function setRunning(name: string, on: boolean): void {
    const rest = running.value.filter((n) => n !== name);
    running.value = on ? [...rest, name] : rest;
  }

  /** How many event and reconnect listeners are subscribed (tests check that stores release theirs). */
  function listening(): { events: number; reconnect: number } {
    return { events: listeners.size, reconnect: reconnectListeners.size };
  }

  function seed(events: EngineEvent[]): void {
    recent.value = trimFeed(events.filter((e) => !NOT_IN_FEED.has(e.type)));
  }

  return { status, recent, stopped, running, start, stop, on, onReconnect, attach, setRunning, listening, seed, dispatch, flushFeed };
});
