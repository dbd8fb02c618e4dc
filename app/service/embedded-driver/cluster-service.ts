/**
 * The cluster service: the public contract (`app/api/contract.ts`) implemented over the engine.
 *
 * Guarantees:
 * - It is an `EngineService` (app/api/service.ts), the door the hosts call: `call` checks the call
 *   (`checkCall`: INVALID_REQUEST / INVALID_INPUT with every issue's field path), never throws and
 *   never rejects; a KafkaError becomes its error envelope; anything else is INTERNAL, logged with
 *   its stack through the injected logger and never reported as the caller's fault.
 * - Asynchronous engine operations (produce, consume) resolve when the engine answers. In
 *   real-time mode the real-time clock advances the virtual clock (the service syncs it before each call and wakes
 *   it after, so work the call scheduled runs on time); in manual mode the caller steps the
 *   ManualScheduler, or `fastForwardMs` runs the virtual clock until the answer.
 * - API strings travel to the engine as UTF-8 bytes and back.
 *
 * The methods themselves are in the `*-methods.ts` files beside it, one per area, as the Kafka
 * driver's are in kafka-driver/; this file builds the table and is the door around it.
 */
import { KafkaError, type ErrorView } from '../../api/errors.js';
import { RECENT_EVENTS_CAPACITY, targetsCluster, type ClockView, type ClusterMethodName, type Result } from '../../api/contract.js';
import type { EngineEvent, EventName } from '../../api/events.js';
import { checkCall, type EngineEventListener, type EngineService, type ErrorLogger } from '../../api/service.js';
import type { Engine } from '../../core/engine.js';
import { seededRandom, type Random } from '../../core/random.js';
import { resolveTopicRuntimeConfig } from '../../core/runtime-config.js';
import type { ManualScheduler } from '../../core/time.js';
import { impactMethods } from '../impact-methods.js';
import { adminMethods } from './admin-methods.js';
import { balanceMethods } from './balance-runs.js';
import { clusterMethods } from './cluster-methods.js';
import { compactionMethods } from './compaction-methods.js';
import { consumerMethods } from './consumer-methods.js';
import type { EmbeddedMethods } from './embedded-methods.js';
import { embeddedGroupBackend, groupIdsOver, groupMethodsOver } from './group-methods.js';
import { profileMethods } from './profile-methods.js';
import type { RealtimeClock } from './realtime-clock.js';
import { RecentEvents, UNBUFFERED_EVENTS } from './recent-events.js';
import { recordMethods } from './record-methods.js';
import { recordsDeleteMethod } from './records-delete.js';
import { recordsFillMethod } from './records-fill.js';
import { securityMethods } from './security-methods.js';
import { txnMethods } from './txn-backend.js';
import { clientTxnMethods } from '../client-transactions.js';
import { TrafficHistory } from './traffic-history.js';
import { workbenchMethods } from './workbench-methods.js';

/** Where the service reports its own bugs (INTERNAL errors) and failing event listeners. */
export type ServiceLogger = ErrorLogger;

export interface ClusterServiceOptions {
  engine: Engine;
  /** The scheduler the engine runs on. */
  scheduler: ManualScheduler;
  /** Real-time mode: the clock that advances `scheduler` (started by the caller). */
  clock?: RealtimeClock;
  /** The static broker configuration the engine was created with (server.properties). */
  staticConfigs?: Readonly<Record<string, string>>;
  /** Folder of the built-in profiles (default resources/profiles; a packaged app passes its resources folder). */
  profilesDir?: string;
  /** The id `cluster.describe` reports. */
  clusterId?: string;
  /** Default: console.error. */
  logger?: ServiceLogger;
  /**
   * Manual mode only: an async operation runs the virtual clock forward until it answers, for at
   * most this many virtual ms (fast-forward). Unset: the caller steps the scheduler.
   */
  fastForwardMs?: number;
  /**
   * Events emitted before the service subscribed (e.g. while the engine started), oldest first,
   * so `events.recent` shows them too.
   */
  initialEvents?: readonly EngineEvent[];
  /** Event types `events.recent` does not keep (default: `highWatermark.advanced`, `metrics.sampled`). */
  unbufferedEvents?: readonly EventName[];
  /** Where the producer partitioner picks sticky partitions for records without a key (default: seeded from the wall clock). */
  random?: Random;
}

/** A listener of the engine's event stream. */
export type EventListener = EngineEventListener;

/** The engine service: the door into an engine in this process, and the engine and clock behind it. */
export interface ClusterService extends EngineService {
  readonly engine: Engine;
  readonly scheduler: ManualScheduler;
  readonly clock: RealtimeClock | undefined;
  /**
   * Send an event of the host's own (e.g. `cluster.opening`, which the engine cannot know: it is
   * about wall time and the host's wait) to every subscriber and `events.recent`, as the engine's are.
   */
  publish(event: EngineEvent): void;
}

const defaultLogger: ServiceLogger = {
  error: (message, error) => console.error(message, error),
};

/** Create the service over a running engine. */
export function createClusterService(options: ClusterServiceOptions): ClusterService {
  const { engine, scheduler, clock } = options;
  const staticConfigs = options.staticConfigs ?? options.engine.staticConfigs;
  const clusterId = options.clusterId ?? 'replica-studio-local';
  const logger = options.logger ?? defaultLogger;
  const image = engine.metadata;
  const recentEvents = new RecentEvents(RECENT_EVENTS_CAPACITY, options.unbufferedEvents ?? UNBUFFERED_EVENTS);
  for (const e of options.initialEvents ?? []) recentEvents.push(e);
  const traffic = new TrafficHistory();
  engine.subscribe((e) => {
    recentEvents.push(e);
    traffic.onEvent(e);
  });
  const hostListeners = new Set<(event: EngineEvent) => void>();
  /** An event of the service's or the host's own, delivered as the engine's are. */
  function publish(event: EngineEvent): void {
    recentEvents.push(event);
    for (const listener of [...hostListeners]) listener(event);
  }

  /** Start an async engine operation and resolve with its answer. */
  function answer<T>(start: (done: (value: T) => void) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      start((value) => {
        settled = true;
        resolve(value);
      });
      if (settled || clock || options.fastForwardMs === undefined) return;
      const limit = scheduler.now() + options.fastForwardMs;
      scheduler.flush();
      while (!settled) {
        const due = scheduler.nextDueTime();
        if (due === undefined || due > limit) break;
        scheduler.advanceTo(due);
      }
      if (!settled) reject(new KafkaError('REQUEST_TIMED_OUT', `No answer within ${options.fastForwardMs} ms of virtual time.`));
    });
  }

  /**
   * `answer` for engine requests a method starts after it has awaited something (a read loop, a
   * schema lookup): the clock catches up first and its timer is re-armed for the new work, as
   * `call` does around a method's synchronous part; otherwise the request waits for the clock's
   * next tick.
   */
  function answerLater<T>(start: (done: (value: T) => void) => void): Promise<T> {
    clock?.sync();
    const pending = answer(start);
    clock?.wake();
    return pending;
  }

  /** The engine's time, not real time's: a busy engine catches up in steps, and what calls return or emit next is at or after it. */
  function clockView(): ClockView {
    return { nowMs: scheduler.now(), scale: clock ? clock.scale : null, mode: clock ? 'realtime' : 'manual' };
  }

  const groupBackend = embeddedGroupBackend(engine, answerLater);
  const workbench = workbenchMethods(engine, answerLater, { call: (method: string, input: unknown) => call(method, input) } as Pick<EngineService, 'call'>);
  const methods: EmbeddedMethods = {
    ...adminMethods(engine),
    ...groupMethodsOver(groupBackend),
    ...consumerMethods(engine),
    ...recordsDeleteMethod(engine, answer),
    ...recordsFillMethod(engine, answerLater),
    ...workbench.methods,
    ...compactionMethods(engine),
    ...impactMethods(
      () => ({ image, topicConfig: (topic) => resolveTopicRuntimeConfig(topic.configs, image.clusterConfigs(), staticConfigs), sizes: () => (topic, partition) => engine.partitionSizeBytes(topic, partition) }),
      () => groupIdsOver(groupBackend),
    ),
    ...balanceMethods(engine, publish),
    ...profileMethods(engine, staticConfigs, options.profilesDir),
    ...securityMethods(engine),
    ...txnMethods(engine, answerLater),
    ...clientTxnMethods(() => ({ bootstrapServers: [...engine.listenerAddresses().values()].map((a) => `${a.host}:${a.port}`), security: 'PLAINTEXT' })),
    ...clusterMethods({ engine, staticConfigs, clusterId, traffic }),
    ...recordMethods({ engine, scheduler, answer, answerLater, producedRecords: workbench.producedRecords, random: options.random ?? seededRandom(Date.now()) }),
    'metrics.get': ({ historyMs }) => ({ ...structuredClone(engine.latestMetrics()), ...(historyMs !== undefined ? { history: traffic.metrics(historyMs) } : {}) }),
    'events.recent': ({ limit, types }) => structuredClone(recentEvents.recent(limit ?? 500, types)),

    'clock.get': () => clockView(),
    'clock.setScale': ({ scale }) => {
      if (!clock) throw new KafkaError('INVALID_STATE', 'The clock is driven by hand (manual mode): there is no real-time scale to set.');
      clock.setScale(scale);
      return clockView();
    },
  };

  function internal(method: string, error: unknown): ErrorView {
    logger.error(`Internal error in ${method}`, error);
    const message = error instanceof Error ? error.message : String(error);
    return { code: 'INTERNAL', message: `Internal error in ${method}: ${message}`, retriable: false };
  }

  function failure(method: string, error: unknown): { ok: false; error: ErrorView } {
    if (error instanceof KafkaError && error.code !== 'INTERNAL') return { ok: false, error: error.toView() };
    return { ok: false, error: internal(method, error) };
  }

  async function call(method: string, rawInput: unknown): Promise<Result<unknown>> {
    const checked = checkCall(method, rawInput);
    if (!checked.ok) return checked;
    if (checked.connection !== undefined) return { ok: false, error: notRouted(checked.connection) };
    if (!targetsCluster(checked.method)) return { ok: false, error: { code: 'INVALID_REQUEST', message: `${checked.method} is answered by the host's connection list; this service runs one cluster.`, retriable: false } };
    try {
      clock?.sync();
      const run = methods[checked.method as ClusterMethodName] as (input: unknown) => unknown;
      const pending = run(checked.input);
      clock?.wake();
      return { ok: true, value: await pending };
    } catch (error) {
      return failure(method, error);
    } finally {
      clock?.wake();
    }
  }

  return {
    call: call as ClusterService['call'],
    subscribe(listener) {
      const guarded = (event: EngineEvent): void => {
        try {
          listener(event);
        } catch (error) {
          logger.error(`An event listener failed on ${event.type}`, error);
        }
      };
      const unsubscribe = engine.subscribe(guarded);
      hostListeners.add(guarded);
      return () => {
        unsubscribe();
        hostListeners.delete(guarded);
      };
    },
    publish,
    engine,
    scheduler,
    clock,
  };
}

/** A call that names a connection reached a service that runs one cluster: the host did not route it. */
function notRouted(connection: string): ErrorView {
  return { code: 'CONNECTION_NOT_FOUND', message: `This service runs one cluster and knows no connection ${JSON.stringify(connection)}; connections are routed by the host.`, retriable: false };
}

