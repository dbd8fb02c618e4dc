/**
 * The embedded driver's cluster, broker, topic, partition, config, election and reassignment
 * methods: each reads the engine's metadata image or asks the engine, and builds the views the
 * Kafka driver's cluster-methods.ts builds from Kafka's answers. Broker faults return the
 * broker as it is right after the fault.
 */
import { KafkaError } from '../../api/errors.js';
import type { ClusterView, ConfigEntryView, TopicView } from '../../api/contract.js';
import { brokerStaticConfigs, describeBrokerConfigs, describeTopicConfigs, type ResolvedConfig } from '../../core/configs/resolve.js';
import type { Engine } from '../../core/engine.js';
import { CLUSTER_DEFAULT } from '../../core/metadata/image.js';
import {
  brokerView,
  clusterHealth,
  configEntryViews,
  findBroker,
  mergeConfigs,
  minIsrResolver,
  plannedPartitionView,
  reassignmentResultView,
  requireTopic,
  topicSummaryView,
  topicView,
} from '../cluster-views.js';
import type { EmbeddedMethods } from './embedded-methods.js';
import type { TrafficHistory } from './traffic-history.js';

export interface ClusterMethodsContext {
  engine: Engine;
  /** The static broker configuration the engine was created with (server.properties). */
  staticConfigs: Readonly<Record<string, string>>;
  /** The id `cluster.describe` reports. */
  clusterId: string;
  /** Committed records per topic, for `topics.stats`' rate. */
  traffic: TrafficHistory;
}

export function clusterMethods({ engine, staticConfigs, clusterId, traffic }: ClusterMethodsContext) {
  const image = engine.metadata;

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

  /** A broker's own static configs: node.id, broker.id and broker.rack are its own server.properties lines (its rack as it registered). */
  function ownStatic(id: number): Record<string, string> {
    const rack = engine.members().find((m) => m.id === id)?.rack ?? image.brokers.get(id)?.rack ?? null;
    return brokerStaticConfigs(staticConfigs, id, rack);
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

  function fault(act: (id: number) => void) {
    return ({ brokerId }: { brokerId: number }) => {
      act(brokerId);
      return findBroker(engine, brokerId);
    };
  }

  function describeCluster(): ClusterView {
    const brokers = engine.listBrokers().map(brokerView);
    return {
      clusterId,
      bootstrapServers: brokers.flatMap((b) => (b.listener ? [`${b.listener.host}:${b.listener.port}`] : [])).join(','),
      autoCreateTopics: engine.clusterConfig().autoCreateTopicsEnable,
      controllerId: engine.controllerId,
      brokers,
      fencedBrokers: [...image.brokers.values()].filter((b) => b.fenced).length,
      ...healthNow(),
    };
  }

  const allTopics = (): TopicView[] => [...image.topicsByName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((t) => topicView(engine, t));

  return {
    'cluster.describe': () => describeCluster(),
    // One step of the engine: the image does not change between the two.
    'cluster.snapshot': () => ({ cluster: describeCluster(), topics: allTopics() }),

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
    'brokers.cutLink': ({ brokerId, peerId, cut }) => {
      findBroker(engine, brokerId);
      findBroker(engine, peerId);
      if (brokerId === peerId) throw new KafkaError('INVALID_REQUEST', `A link joins two brokers: broker ${brokerId} was named twice.`);
      engine.cutLink(brokerId, peerId, cut);
      return { brokerId, peerId, cut };
    },

    'topics.list': () => {
      const minIsr = minIsrResolver(image.clusterConfigs(), staticConfigs);
      return [...image.topicsByName.values()]
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((t) => topicSummaryView(t, minIsr(t)));
    },
    'topics.describe': ({ name }) => topicView(engine, requireTopic(engine, name)),
    'topics.describeMany': ({ names }) => {
      if (names === undefined) return allTopics();
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
  } satisfies Partial<EmbeddedMethods>;
}
