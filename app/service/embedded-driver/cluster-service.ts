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
 */
import { KafkaError, type ErrorView } from '../../api/errors.js';
import {
  RECENT_EVENTS_CAPACITY,
  targetsCluster,
  type ClockView,
  type ClusterMethodName,
  type ClusterView,
  type ConfigEntryView,
  type MethodParsedInput,
  type MethodResult,
  type Result,
} from '../../api/contract.js';
import type { EngineEvent, EventName } from '../../api/events.js';
import { checkCall, type EngineEventListener, type EngineService, type ErrorLogger } from '../../api/service.js';
import { brokerStaticConfigs, describeBrokerConfigs, describeTopicConfigs, type ResolvedConfig } from '../../core/configs/resolve.js';
import type { ConsumeResult, Engine, ProduceResult } from '../../core/engine.js';
import { CLUSTER_DEFAULT } from '../../core/metadata/image.js';
import type { ManualScheduler } from '../../core/time.js';
import {
  brokerView,
  configEntryViews,
  consumedRecordView,
  findBroker,
  mergeConfigs,
  minIsrResolver,
  plannedPartitionView,
  produceBatchView,
  requireTopic,
  clusterHealth,
  reassignmentResultView,
  topicSummaryView,
  topicView,
} from '../cluster-views.js';
import { adminMethods } from './admin-methods.js';
import { consumerMethods } from './consumer-methods.js';
import { groupMethods } from './group-methods.js';
import { balanceMethods } from './balance-runs.js';
import { profileMethods } from './profile-methods.js';
import { recordsDeleteMethod } from './records-delete.js';
import { workbenchMethods } from './workbench-methods.js';
import { securityMethods } from './security-methods.js';
import { compactionMethods } from './compaction-methods.js';
import { impactMethods } from '../impact-methods.js';
import { resolveTopicRuntimeConfig } from '../../core/runtime-config.js';
import { RecentEvents, UNBUFFERED_EVENTS } from './recent-events.js';
import type { RealtimeClock } from './realtime-clock.js';
import { ProducerPartitioner } from '../producer-partitioner.js';
import { TrafficHistory } from './traffic-history.js';
import { seededRandom, type Random } from '../../core/random.js';
import type { LogRecord } from '../../core/log/records.js';

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

type Methods = { [M in ClusterMethodName]: (input: MethodParsedInput<M>) => MethodResult<M> | Promise<MethodResult<M>> };

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
   * Every config with the value and layer it would take without the resource's own setting (a topic's
   * override, a broker's dynamic config, the cluster's dynamic default): the console's default.
   */
  function describedViews(type: 'topic' | 'broker', name: string, set: Readonly<Record<string, string | null>> = {}): ConfigEntryView[] {
    const resolved = describeConfigs(type, name, set);
    const without = type === 'topic' ? describeTopicConfigs({}, image.clusterConfigs(), staticConfigs) : name === CLUSTER_DEFAULT ? describeBrokerConfigs({}, {}, staticConfigs) : describeBrokerConfigs({}, image.clusterConfigs(), ownStatic(Number(name)));
    return configEntryViews(type, resolved, new Map(without.map((c) => [c.name, { value: c.value, source: c.source }])));
  }

  /** A broker's own static configs: the cluster's, plus its ids and its rack as it registered. */
  function ownStatic(id: number): Record<string, string> {
    const rack = engine.members().find((m) => m.id === id)?.rack ?? image.brokers.get(id)?.rack ?? null;
    return brokerStaticConfigs(staticConfigs, id, rack);
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

  function describeConfigs(type: 'topic' | 'broker', name: string, set: Readonly<Record<string, string | null>> = {}): ResolvedConfig[] {
    if (type === 'topic') {
      const topic = requireTopic(engine, name);
      return describeTopicConfigs(mergeConfigs(topic.configs, set), image.clusterConfigs(), staticConfigs);
    }
    if (name === CLUSTER_DEFAULT) return describeBrokerConfigs({}, mergeConfigs(image.clusterConfigs(), set), staticConfigs);
    const id = /^\d+$/.test(name) ? Number(name) : NaN;
    if (!engine.hasBroker(id) && !image.brokers.has(id)) {
      throw new KafkaError('BROKER_NOT_FOUND', `Broker ${JSON.stringify(name)} is not a member of this cluster ('' names the cluster-wide default).`);
    }
    return describeBrokerConfigs(mergeConfigs(image.brokerConfigs.get(name) ?? {}, set), image.clusterConfigs(), ownStatic(id));
  }

  /**
   * Counts and health of every partition, kept until the next metadata record (they are the
   * image's alone): a console polling cluster.describe at 100,000 partitions walked them all on
   * every call, in the engine's one thread.
   */
  let health: { offset: number; totals: ReturnType<typeof clusterHealth> } | null = null;
  function healthNow(): ReturnType<typeof clusterHealth> {
    if (health?.offset !== image.offset) {
      const minIsr = minIsrResolver(image.clusterConfigs(), staticConfigs);
      health = { offset: image.offset, totals: clusterHealth(image.topicsByName.values(), (topic) => minIsr(topic)) };
    }
    return health.totals;
  }

  /** The engine's time, not real time's: a busy engine catches up in steps, and what calls return or emit next is at or after it. */
  function clockView(): ClockView {
    return { nowMs: scheduler.now(), scale: clock ? clock.scale : null, mode: clock ? 'realtime' : 'manual' };
  }

  function fault(act: (id: number) => void) {
    return ({ brokerId }: { brokerId: number }) => {
      act(brokerId);
      return findBroker(engine, brokerId);
    };
  }

  const partitioner = new ProducerPartitioner(options.random ?? seededRandom(Date.now()));

  /**
   * The records of one produce request grouped by partition (first-appearance order): all of them
   * when a partition is named or the topic is unknown (the engine answers that), else each where
   * Kafka's producer partitioner puts it.
   */
  function groupByPartition(topic: string, named: number | undefined, records: LogRecord[]): { partition: number | undefined; indexes: number[] }[] {
    const t = image.topicsByName.get(topic);
    if (named !== undefined || !t) return [{ partition: named, indexes: records.map((_, i) => i) }];
    const partitions = [...t.partitions.values()].sort((a, b) => a.partition - b.partition).map((p) => ({ partition: p.partition, hasLeader: p.leader >= 0 }));
    const groups = new Map<number, number[]>();
    partitioner.assign(topic, partitions, records).forEach((p, i) => {
      const g = groups.get(p);
      if (g) g.push(i);
      else groups.set(p, [i]);
    });
    return [...groups].map(([partition, indexes]) => ({ partition, indexes }));
  }

  const workbench = workbenchMethods(engine, answerLater, { call: (method: string, input: unknown) => call(method, input) } as Pick<EngineService, 'call'>);
  const methods: Methods = {
    ...adminMethods(engine),
    ...groupMethods(engine, answer),
    ...consumerMethods(engine),
    ...recordsDeleteMethod(engine, answer),
    ...workbench.methods,
    ...compactionMethods(engine),
    ...impactMethods(
      () => ({ image, topicConfig: (topic) => resolveTopicRuntimeConfig(topic.configs, image.clusterConfigs(), staticConfigs) }),
      async () => (await methods['groups.list']({})).map((g) => g.groupId),
    ),
    ...balanceMethods(engine, publish),
    ...profileMethods(engine, staticConfigs, options.profilesDir),
    ...securityMethods(engine),
    'cluster.describe': () => {
      const brokers = engine.listBrokers().map(brokerView);
      const view: ClusterView = {
        clusterId,
        bootstrapServers: brokers.flatMap((b) => (b.listener ? [`${b.listener.host}:${b.listener.port}`] : [])).join(','),
        autoCreateTopics: engine.clusterConfig().autoCreateTopicsEnable,
        controllerId: engine.controllerId,
        brokers,
        fencedBrokers: [...image.brokers.values()].filter((b) => b.fenced).length,
        ...healthNow(),
      };
      return view;
    },

    'cluster.features': () => engine.describeFeatures().map((f) => ({ ...f })),
    'cluster.updateFeatures': ({ updates, validateOnly }) =>
      engine.updateFeatures(
        updates.map((u) => ({ feature: u.feature, maxVersionLevel: u.maxVersionLevel, ...(u.upgradeType ? { upgradeType: u.upgradeType } : {}) })),
        validateOnly ?? false,
      ).map((r) => ({ feature: r.feature, errorCode: r.errorCode, ...(r.message !== undefined ? { message: r.message } : {}) })),
    'brokers.list': () => engine.listBrokers().map(brokerView),
    'brokers.add': ({ id, rack }) => findBroker(engine, engine.addBroker({ ...(id !== undefined ? { id } : {}), rack: rack ?? null })),
    'brokers.remove': ({ brokerId }) => {
      engine.removeBroker(brokerId);
      return { brokerId };
    },
    'brokers.stop': fault((id) => engine.stopBroker(id)),
    'brokers.start': fault((id) => engine.startBroker(id)),
    'brokers.kill': fault((id) => engine.killBroker(id)),
    'brokers.powerLoss': fault((id) => engine.powerLossBroker(id)),
    'brokers.isolate': fault((id) => engine.isolateBroker(id)),
    'brokers.heal': fault((id) => engine.healBroker(id)),
    'brokers.stallFollower': ({ brokerId, stalled }) => fault((id) => engine.stallFollower(id, stalled))({ brokerId }),

    'topics.list': () => {
      const minIsr = minIsrResolver(image.clusterConfigs(), staticConfigs);
      return [...image.topicsByName.values()]
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((t) => topicSummaryView(t, minIsr(t)));
    },
    'topics.describe': ({ name }) => topicView(engine, requireTopic(engine, name)),
    'topics.describeMany': ({ names }) => {
      if (names === undefined) return [...image.topicsByName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((t) => topicView(engine, t));
      const unknown = names.filter((n) => !image.topicsByName.has(n));
      if (unknown.length > 0) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Unknown topic${unknown.length === 1 ? '' : 's'}: ${unknown.join(', ')}.`, { names: unknown });
      return names.map((n) => topicView(engine, image.topicsByName.get(n)!));
    },
    'topics.stats': ({ names }) =>
      names.flatMap((name) => {
        const t = image.topicsByName.get(name);
        if (!t) return [];
        let records = 0;
        let sizeBytes = 0;
        for (const p of t.partitions.keys()) {
          const d = engine.describePartition(name, p);
          if (d) records += Math.max(0, d.highWatermark - d.logStartOffset);
          sizeBytes += engine.partitionSizeBytes(name, p);
        }
        return [{ name, records, sizeBytes, recordsPerSec: traffic.committedPerSec(name, 60_000) }];
      }),
    'topics.create': (input) => {
      const created = engine.createTopic({
        name: input.name,
        partitions: input.partitions,
        replicationFactor: input.replicationFactor,
        configs: input.configs,
        assignments: input.assignments,
        validateOnly: input.validateOnly ?? false,
      });
      if (!input.validateOnly) return topicView(engine, requireTopic(engine, input.name));
      return { name: input.name, topicId: created.topicId, configs: { ...(input.configs ?? {}) }, partitions: created.partitions.map(plannedPartitionView) };
    },
    'topics.delete': ({ name }) => {
      const { topicId } = requireTopic(engine, name);
      engine.deleteTopic(name);
      return { name, topicId };
    },

    'partitions.add': ({ topic, totalCount, assignments, validateOnly }) => {
      const added = engine.createPartitions(topic, totalCount, assignments, validateOnly ?? false);
      return topicView(engine, requireTopic(engine, topic), validateOnly ? added : []);
    },

    'configs.describe': ({ resource }) => describedViews(resource.type, resource.name),
    'configs.alter': ({ resource, set, validateOnly }) => {
      // Resolve the resource first so an unknown one reads the same as in configs.describe.
      describeConfigs(resource.type, resource.name);
      engine.alterConfigs(resource.type, resource.name, set, validateOnly ?? false);
      return describedViews(resource.type, resource.name, validateOnly ? set : {});
    },

    'leaders.elect': ({ type, partitions, validateOnly }) => {
      // Read before the election changes them.
      const before = new Map([...image.allPartitions()].map(({ topic, state }) => [`${topic.name}/${state.partition}`, state.leader]));
      return engine.electLeaders(type, partitions, validateOnly ?? false).map((r) => ({
        topic: r.topic,
        partition: r.partition,
        leader: r.leader,
        previousLeader: before.get(`${r.topic}/${r.partition}`) ?? -1,
        errorCode: r.errorCode,
        ...(r.message !== undefined ? { message: r.message } : {}),
      }));
    },

    'reassignments.execute': ({ partitions, throttleBytesPerSec }) =>
      engine
        .executeReassignment({
          partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: [...p.replicas] })),
          ...(throttleBytesPerSec !== undefined ? { throttleBytesPerSec } : {}),
        })
        .map(reassignmentResultView),
    'reassignments.list': () =>
      engine.listReassignments().map((r) => ({
        topic: r.topic,
        partition: r.partition,
        replicas: [...r.replicas],
        addingReplicas: [...r.addingReplicas],
        removingReplicas: [...r.removingReplicas],
        progress: { ...r.progress, addingReplicas: r.progress.addingReplicas.map((a) => ({ ...a })) },
      })),
    'reassignments.cancel': ({ partitions }) => engine.cancelReassignment(partitions).map(reassignmentResultView),
    'reassignments.verify': ({ partitions }) =>
      engine
        .verifyReassignment(partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: [...p.replicas] })))
        .map((r) => ({ topic: r.topic, partition: r.partition, status: r.status, replicas: [...r.replicas], message: r.message })),

    'records.produce': async (input) => {
      const converted = workbench.producedRecords(input, scheduler.now());
      const records = Array.isArray(converted) ? converted : await converted;
      const groups = groupByPartition(input.topic, input.partition, records);
      const batches = await Promise.all(
        groups.map(async ({ partition, indexes }) => {
          const result = await answerLater<ProduceResult>((done) =>
            engine.produce(
              {
                topic: input.topic,
                ...(partition !== undefined ? { partition } : {}),
                acks: input.acks,
                records: indexes.map((i) => records[i]!),
                ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
              },
              done,
            ),
          );
          return { ...produceBatchView(result), records: indexes };
        }),
      );
      const headline = batches.find((b) => b.errorCode !== 'NONE') ?? batches[0]!;
      const { records: _indexes, ...fields } = headline;
      return { ...fields, batches };
    },
    'records.consume': async (input) => {
      const result = await answer<ConsumeResult>((done) =>
        engine.consume({ topic: input.topic, partition: input.partition, offset: input.offset, ...(input.maxRecords !== undefined ? { maxRecords: input.maxRecords } : {}) }, done),
      );
      if (result.errorCode !== 'NONE') throw consumeError(input, result);
      return { records: result.records.map(consumedRecordView), nextOffset: result.nextOffset, highWatermark: result.highWatermark, logStartOffset: result.logStartOffset };
    },

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

function consumeError(input: { topic: string; partition: number; offset: number }, r: ConsumeResult): KafkaError {
  const tp = `${input.topic}-${input.partition}`;
  const details = { highWatermark: r.highWatermark, logStartOffset: r.logStartOffset };
  switch (r.errorCode) {
    case 'OFFSET_OUT_OF_RANGE':
      return new KafkaError(r.errorCode, `Offset ${input.offset} is out of range for ${tp} (log start ${r.logStartOffset}, high watermark ${r.highWatermark}).`, details);
    case 'UNKNOWN_TOPIC_OR_PARTITION':
      return new KafkaError(r.errorCode, `This server does not host this topic-partition: ${tp}`);
    case 'LEADER_NOT_AVAILABLE':
      return new KafkaError(r.errorCode, `Partition ${tp} has no leader (offline).`);
    default:
      return new KafkaError(r.errorCode, `Fetching ${tp} at offset ${input.offset} failed with ${r.errorCode}.`, details);
  }
}
