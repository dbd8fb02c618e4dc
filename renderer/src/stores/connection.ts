/**
 * The event stream: connection status, the recent-events feed, and a fan-out so each store can
 * react to the events it cares about. `start()` subscribes once (idempotent).
 */
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { EngineEvent } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import type { ConnectionStatus } from '../api/transport.js';

/** Events too frequent for the feed (they still reach `on` listeners). */
const NOT_IN_FEED = new Set<EngineEvent['type']>(['highWatermark.advanced']);
const FEED_SIZE = 300;

export const useConnectionStore = defineStore('connection', () => {
  const status = ref<ConnectionStatus>('connecting');
  /** Newest last. */
  const recent = shallowRef<EngineEvent[]>([]);
  const listeners = new Set<(event: EngineEvent) => void>();
  const reconnectListeners = new Set<() => void>();
  let stop: (() => void) | undefined;

  function dispatch(event: EngineEvent): void {
    if (!NOT_IN_FEED.has(event.type) && !(event.type as string).startsWith('metrics.')) {
      const next = recent.value.length >= FEED_SIZE ? recent.value.slice(1) : recent.value.slice();
      next.push(event);
      recent.value = next;
    }
    for (const l of listeners) l(event);
  }

  function start(): void {
    if (stop) return;
    const c = client();
    const offEvents = c.subscribe(dispatch);
    let wasOpen = false;
    const offStatus = c.onStatus((s) => {
      status.value = s;
      if (s === 'open') {
        if (wasOpen) for (const l of reconnectListeners) l();
        wasOpen = true;
      }
    });
    stop = () => {
      offEvents();
      offStatus();
    };
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

  function seed(events: EngineEvent[]): void {
    recent.value = events.filter((e) => !NOT_IN_FEED.has(e.type)).slice(-FEED_SIZE);
  }

  return { status, recent, start, on, onReconnect, seed, dispatch };
});
