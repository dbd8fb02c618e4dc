/**
 * A live query: one value read from the engine and kept current while something uses it. Every
 * store that shows engine state owns its reads through one of these instead of wiring events,
 * throttles, polls and reconnects by hand.
 *
 * Invariants:
 * - It runs while it has at least one lease (`acquire()`) and the event stream is not stopped:
 *   then it re-reads after each event `invalidatedBy` accepts (trailing throttle: a burst of
 *   events → one read), at once after the event stream reconnects, and every `pollMs` as a
 *   fallback. When the last lease is released, or the event stream stops, its event and reconnect
 *   listeners, its throttle timer and its poll are all gone; `onEvent` hears events only while
 *   it runs.
 * - One read in flight at a time: reads asked for meanwhile coalesce into one more read after
 *   it, and every caller's promise settles after a read that started after its call.
 * - A read that has not answered within `readTimeoutMs` (on an external cluster by default) stops
 *   being waited for: `error` says so (REQUEST_TIMED_OUT, retriable) and the next poll, event or
 *   refresh reads again. A request lost on the way to a broker would otherwise hold the one read
 *   in flight for as long as the Kafka client retries it, and the page would never read again.
 *   The abandoned read's answer still counts if it comes before any newer read has answered.
 * - A value set locally (`set`, an action's answer) or a `reset` outdates the reads in flight:
 *   their answers are dropped, so an older read never overwrites a newer state.
 * - `same(old, next)` keeps the old value (same reference) so an unchanged list re-renders nothing.
 */
import { computed, ref, shallowRef, type Ref, type ShallowRef } from 'vue';
import type { EngineEvent } from '../../../app/api/contract.js';
import { activeConnection } from '../api/active-connection.js';
import { ClientError } from '../api/client.js';
import { useEventStreamStore } from '../stores/event-stream.js';

export interface LiveQueryOptions<T> {
  /** Shown in `stream.running` while it runs (tests and diagnostics). */
  name: string;
  /** One read from the engine. */
  read: () => Promise<T>;
  /** The value before the first read (and after `reset`). */
  initial: T;
  /** Events after which the value may read differently. */
  invalidatedBy?: (event: EngineEvent) => boolean;
  /** Every event while running, to patch the value between reads (e.g. progress). */
  onEvent?: (event: EngineEvent) => void;
  /** Trailing throttle of event-driven reads, ms (default 250). */
  throttleMs?: number;
  /** Fallback poll while running, ms (none by default: events suffice). */
  pollMs?: number;
  same?: (a: T, b: T) => boolean;
  /** Stop waiting for a read after this long, ms (default: EXTERNAL_READ_TIMEOUT_MS on an external cluster, none on the console's own). */
  readTimeoutMs?: number;
}

export interface LiveQuery<T> {
  readonly data: ShallowRef<T>;
  /** A read has succeeded since the last reset. */
  readonly loaded: Ref<boolean>;
  readonly loading: Ref<boolean>;
  /** Why the last read failed (null once one succeeds). */
  readonly error: ShallowRef<unknown>;
  /** Leased and the event stream not stopped. */
  readonly running: Readonly<Ref<boolean>>;
  /** Read now (coalesced with a read in flight). */
  refresh(): Promise<void>;
  /** Show a value the engine answered an action with; reads in flight are dropped. */
  set(value: T): void;
  /** Forget the value (a new key): back to `initial`, not loaded, reads in flight dropped. */
  reset(): void;
  /** Use it: starts it (with a read) on the first lease; the returned release is idempotent. */
  acquire(): () => void;
}

/** How often a live query re-reads an external cluster, which sends no events. */
const EXTERNAL_POLL_MS = 5_000;
/**
 * How long a live query waits for one read of an external cluster. Kafka's clients wait
 * request.timeout.ms (30 s) for one request and then retry it; a page read is a few requests that
 * a healthy cluster answers in milliseconds. Half of request.timeout.ms: past that, a request was
 * lost or a broker does not answer, and a new read (new requests) is what recovers the page.
 */
export const EXTERNAL_READ_TIMEOUT_MS = 15_000;

/** The error a read that did not answer in time leaves in `error`. */
function readTimedOut(ms: number): ClientError {
  return new ClientError(
    { code: 'REQUEST_TIMED_OUT', message: `The cluster did not answer within ${Math.round(ms / 1000)} s; reading again.`, retriable: true },
    'cluster.describe',
  );
}

export function useLiveQuery<T>(options: LiveQueryOptions<T>): LiveQuery<T> {
  const stream = useEventStreamStore();
  const data = shallowRef(options.initial) as ShallowRef<T>;
  const loaded = ref(false);
  const loading = ref(false);
  const error = shallowRef<unknown>(null);
  const leased = ref(0);
  const suspended = ref(false);
  const running = computed(() => leased.value > 0 && !suspended.value);

  let generation = 0;
  let inflight: Promise<void> | null = null;
  let again = false;
  let throttle: ReturnType<typeof setTimeout> | null = null;
  let poll: ReturnType<typeof setInterval> | null = null;
  let listeners: (() => void) | null = null;
  let detach: (() => void) | null = null;

  /** Reads started, and the newest of them whose answer is shown: an abandoned read's late answer counts only if none newer has. */
  let started = 0;
  let shown = 0;

  /** One read, waited for at most `timeoutMs` (past that it keeps running, unwaited, and `error` says it did not answer). */
  async function readOnce(gen: number, timeoutMs: number | undefined): Promise<void> {
    const seq = ++started;
    const settled = options.read().then(
      (next) => {
        if (gen !== generation || seq < shown) return;
        shown = seq;
        if (!(loaded.value && options.same?.(data.value, next))) data.value = next;
        loaded.value = true;
        error.value = null;
      },
      (e: unknown) => {
        if (gen === generation && seq === started) error.value = e;
      },
    );
    if (!timeoutMs) return settled;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
    try {
      if ((await Promise.race([settled, late])) === 'late' && gen === generation && seq === started) error.value = readTimedOut(timeoutMs);
    } finally {
      clearTimeout(timer);
    }
  }

  async function readLoop(): Promise<void> {
    const timeoutMs = options.readTimeoutMs ?? (activeConnection()?.kind === 'external' ? EXTERNAL_READ_TIMEOUT_MS : undefined);
    do {
      again = false;
      loading.value = true;
      await readOnce(generation, timeoutMs);
    } while (again);
    loading.value = false;
  }

  function refresh(): Promise<void> {
    if (inflight) {
      again = true;
      return inflight;
    }
    inflight = readLoop().finally(() => (inflight = null));
    return inflight;
  }

  function set(value: T): void {
    generation++;
    data.value = value;
    loaded.value = true;
    error.value = null;
  }

  function reset(): void {
    generation++;
    data.value = options.initial;
    loaded.value = false;
    error.value = null;
  }

  function soon(): void {
    if (throttle !== null) return;
    throttle = setTimeout(() => {
      throttle = null;
      void refresh();
    }, options.throttleMs ?? 250);
  }

  function listen(): void {
    if (listeners) return;
    const offEvent = stream.on((event) => {
      options.onEvent?.(event);
      if (options.invalidatedBy?.(event)) soon();
    });
    const offReconnect = stream.onReconnect(() => void refresh());
    // An external Kafka cluster pushes no events: re-read it every few seconds instead.
    const pollMs = options.pollMs ?? (activeConnection()?.kind === 'external' ? EXTERNAL_POLL_MS : undefined);
    if (pollMs) poll = setInterval(() => void refresh(), pollMs);
    listeners = () => {
      offEvent();
      offReconnect();
    };
    stream.setRunning(options.name, true);
    void refresh();
  }

  function unlisten(): void {
    if (!listeners) return;
    listeners();
    listeners = null;
    if (throttle !== null) clearTimeout(throttle);
    if (poll !== null) clearInterval(poll);
    throttle = poll = null;
    stream.setRunning(options.name, false);
  }

  const suspendable = {
    name: options.name,
    suspend(): void {
      suspended.value = true;
      unlisten();
    },
    resume(): void {
      suspended.value = false;
      if (leased.value > 0) listen();
    },
  };

  function acquire(): () => void {
    let held = true;
    leased.value++;
    if (leased.value === 1) {
      suspended.value = false;
      detach = stream.attach(suspendable);
      if (!suspended.value) listen();
    }
    return () => {
      if (!held) return;
      held = false;
      leased.value--;
      if (leased.value > 0) return;
      unlisten();
      detach?.();
      detach = null;
    };
  }

  return { data, loaded, loading, error, running, refresh, set, reset, acquire };
}

/**
 * What a page store holds while its page shows: leases on live queries, taken by `start()`
 * (idempotent) and all released by `stop()`.
 */
export function useLeases(take: () => (() => void)[]): { start(): void; stop(): void; readonly started: Readonly<Ref<boolean>> } {
  let releases: (() => void)[] | null = null;
  const started = ref(false);
  return {
    started,
    start() {
      if (releases) return;
      releases = take();
      started.value = true;
    },
    stop() {
      const held = releases;
      releases = null;
      started.value = false;
      for (const release of held ?? []) release();
    },
  };
}
