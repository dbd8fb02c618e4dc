/**
 * The Kafka driver's admin methods: the balancer on the real cluster's metadata and log-dir
 * sizes, leader balance and elections with a preview, replication-factor changes and
 * reassignments with Kafka's throttles (kafka-reassign-partitions.sh's rules, shared with the
 * embedded engine), the durability explainer, and profiles.
 *
 * ElectLeaders has no validateOnly: a preview is computed from the metadata by Kafka's rules
 * (preferred: the first replica, when it is alive and in the ISR; unclean: only a partition
 * without a leader, to its first live replica), and the election itself is Kafka's answer.
 */
import type { ElectionResultView, ReassignmentView } from '../../api/contract.js';
import { KafkaError, type KafkaErrorName } from '../../api/errors.js';
import { buildBalanceModel, balancePartitionKey, planBalance } from '../../core/balance/index.js';
import { explainDurability } from '../../core/durability.js';
import { explainEligibleLeaders } from '../../core/durability-elr.js';
import { ELR_FEATURE } from '../../core/engine.js';
import {
  BROKER_THROTTLE_CONFIGS,
  TOPIC_THROTTLE_CONFIGS,
  followerThrottles,
  leaderThrottles,
  mergeThrottledReplicas,
  proposedMoveMap,
  reassigningBrokers,
  validateReassignmentTargets,
  verifyLine,
} from '../../core/engine.js';
import type { MetadataImage } from '../../core/metadata/image.js';
import type { KafkaAdminClient } from '../../kafka-client/admin-client.js';
import { leaderBalanceView, resizeReplicas } from '../embedded-driver/admin-methods.js';
import type { KafkaMethods } from './kafka-methods.js';
import { kafkaProfileMethods, type KafkaProfileOptions } from './profile-methods.js';
import { readSnapshot, type KafkaSnapshot } from './snapshot.js';

type KafkaAdminMethod =
  | 'balance.plan'
  | 'balance.cancel'
  | 'leaders.balance'
  | 'leaders.preview'
  | 'leaders.elect'
  | 'topics.setReplicationFactor'
  | 'topics.durability'
  | 'reassignments.export'
  | 'reassignments.execute'
  | 'reassignments.list'
  | 'reassignments.cancel'
  | 'reassignments.verify'
  | 'profiles.list'
  | 'profiles.get'
  | 'profiles.export'
  | 'profiles.import'
  | 'profiles.diff'
  | 'profiles.apply';

type Partitions = { topic: string; partition: number }[] | undefined;

function leaderCounts(image: MetadataImage): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const b of image.brokers.values()) counts[String(b.id)] = 0;
  for (const { state } of image.allPartitions()) if (state.leader >= 0) counts[String(state.leader)] = (counts[String(state.leader)] ?? 0) + 1;
  return counts;
}

/** What ElectLeaders would answer for each partition (all of them when `partitions` is absent). */
export function previewElection(image: MetadataImage, type: 'preferred' | 'unclean', partitions: Partitions): ElectionResultView[] {
  const chosen = partitions ?? [...image.allPartitions()].map(({ topic, state }) => ({ topic: topic.name, partition: state.partition }));
  return chosen.map(({ topic, partition }) => {
    const state = image.topicsByName.get(topic)?.partitions.get(partition);
    const result = (leader: number, errorCode: KafkaErrorName, message?: string): ElectionResultView => ({ topic, partition, leader, previousLeader: state?.leader ?? -1, errorCode, ...(message ? { message } : {}) });
    if (!state) return result(-1, 'UNKNOWN_TOPIC_OR_PARTITION', `The partition ${topic}-${partition} does not exist.`);
    if (type === 'preferred') {
      const preferred = state.replicas[0]!;
      if (state.leader === preferred) return result(state.leader, 'ELECTION_NOT_NEEDED', 'The preferred replica is already the leader.');
      if (!state.isr.includes(preferred) || !image.isActive(preferred)) return result(state.leader, 'PREFERRED_LEADER_NOT_AVAILABLE', `Failed to elect leader for partition ${topic}-${partition} under strategy PreferredReplicaPartitionLeaderElectionStrategy`);
      return result(preferred, 'NONE');
    }
    if (state.leader >= 0) return result(state.leader, 'ELECTION_NOT_NEEDED', 'The partition has a leader.');
    const live = state.replicas.find((r) => image.isActive(r));
    if (live === undefined) return result(-1, 'ELIGIBLE_LEADERS_NOT_AVAILABLE', `Failed to elect leader for partition ${topic}-${partition} under strategy UncleanLeaderElectionStrategy`);
    return result(live, 'NONE');
  });
}

export function kafkaAdminMethods(client: KafkaAdminClient, options: KafkaProfileOptions): Pick<KafkaMethods, KafkaAdminMethod> {
  /** Throttle the moves as the tool does, before they start. */
  async function setThrottle(s: KafkaSnapshot, targets: { topic: string; partition: number; replicas: number[] }[], bytesPerSec: number): Promise<void> {
    const current = (topic: string, partition: number): readonly number[] => s.image.topicsByName.get(topic)?.partitions.get(partition)?.replicas ?? [];
    const moves = proposedMoveMap(s.reassignments, targets, current);
    const leader = leaderThrottles(moves);
    const follower = followerThrottles(moves);
    for (const topic of moves.keys()) {
      const configs = s.topicConfigs.get(topic) ?? new Map<string, string>();
      const set: Record<string, string> = {};
      for (const [name, entries] of [
        ['leader.replication.throttled.replicas', leader.get(topic) ?? []],
        ['follower.replication.throttled.replicas', follower.get(topic) ?? []],
      ] as const) {
        const merged = mergeThrottledReplicas(configs.get(name), entries);
        if (merged !== (configs.get(name) ?? '')) set[name] = merged;
      }
      if (Object.keys(set).length > 0) await client.incrementalAlterConfigs({ type: 'topic', name: topic }, set, false);
    }
    const rate = String(bytesPerSec);
    for (const id of reassigningBrokers(moves)) {
      if (!s.listeners.has(id)) continue;
      await client.incrementalAlterConfigs({ type: 'broker', name: String(id) }, Object.fromEntries(BROKER_THROTTLE_CONFIGS.map((n) => [n, rate])), false);
    }
  }

  /** The tool's clearAllThrottles: both rates on every live broker, both lists on the topics. */
  async function clearThrottles(s: KafkaSnapshot, topics: string[]): Promise<void> {
    for (const id of s.listeners.keys()) {
      const [d] = await client.describeConfigs([{ type: 'broker', name: String(id) }]);
      const set = (d?.entries ?? []).filter((e) => (BROKER_THROTTLE_CONFIGS as readonly string[]).includes(e.name) && e.source === 2).map((e) => e.name);
      if (set.length > 0) await client.incrementalAlterConfigs({ type: 'broker', name: String(id) }, Object.fromEntries(set.map((n) => [n, null])), false);
    }
    for (const topic of new Set(topics)) {
      const overrides = s.image.topicsByName.get(topic)?.configs ?? {};
      const unset = TOPIC_THROTTLE_CONFIGS.filter((n) => n in overrides);
      if (unset.length > 0) await client.incrementalAlterConfigs({ type: 'topic', name: topic }, Object.fromEntries(unset.map((n) => [n, null])), false);
    }
  }

  async function execute(partitions: { topic: string; partition: number; replicas: number[] }[], throttleBytesPerSec: number | undefined) {
    const s = await readSnapshot(client);
    validateReassignmentTargets(partitions, new Set(s.listeners.keys()));
    const missing = partitions.filter((p) => !s.image.topicsByName.get(p.topic)?.partitions.has(p.partition));
    if (missing.length > 0) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Unable to find partition: ${missing.map((t) => `${t.topic}-${t.partition}`).join(', ')}`);
    if (throttleBytesPerSec !== undefined) await setThrottle(s, partitions, throttleBytesPerSec);
    return (await client.alterReassignments(partitions)).map((r) => ({ topic: r.topic, partition: r.partition, errorCode: r.errorCode, ...(r.message ? { message: r.message } : {}) }));
  }

  return {
    ...kafkaProfileMethods(client, options),

    // Plans of an external cluster are computed in one go (no named run a goal at a time), so none is ever running to cancel.
    'balance.cancel': () => ({ cancelled: false }),
    'balance.plan': async ({ excludeBrokers, leadersOnly }) => {
      const s = await readSnapshot(client);
      const live = [...s.listeners.keys()];
      const sizes = new Map<string, number>();
      for (const broker of await client.describeLogDirs(live)) {
        for (const dir of broker.logDirs) for (const r of dir.replicas) if (!r.isFuture) sizes.set(balancePartitionKey(r.topic, r.partition), Math.max(sizes.get(balancePartitionKey(r.topic, r.partition)) ?? 0, r.sizeBytes));
      }
      return planBalance(buildBalanceModel(s.image, sizes), { ...(excludeBrokers ? { excludeBrokers } : {}), ...(leadersOnly !== undefined ? { leadersOnly } : {}) });
    },

    'leaders.balance': async () => {
      const s = await readSnapshot(client);
      const controller = s.controllerId ?? [...s.listeners.keys()][0];
      const [d] = controller === undefined ? [] : await client.describeConfigs([{ type: 'broker', name: String(controller) }]);
      const value = (k: string): string | undefined => d?.entries.find((e) => e.name === k)?.value ?? undefined;
      return leaderBalanceView(
        s.image,
        [...s.image.brokers.keys()].sort((a, b) => a - b),
        { autoLeaderRebalanceEnable: (value('auto.leader.rebalance.enable') ?? 'true') === 'true', leaderImbalanceCheckIntervalSeconds: Number(value('leader.imbalance.check.interval.seconds') ?? 300) },
      );
    },

    'leaders.preview': async ({ type, partitions }) => {
      const s = await readSnapshot(client);
      const before = leaderCounts(s.image);
      const after = { ...before };
      const results = previewElection(s.image, type, partitions);
      for (const r of results) {
        if (r.errorCode !== 'NONE') continue;
        if (r.previousLeader >= 0) after[String(r.previousLeader)] = (after[String(r.previousLeader)] ?? 1) - 1;
        after[String(r.leader)] = (after[String(r.leader)] ?? 0) + 1;
      }
      return { results, leadersBefore: before, leadersAfter: after };
    },

    'leaders.elect': async ({ type, partitions, validateOnly }) => {
      const s = await readSnapshot(client);
      const preview = previewElection(s.image, type, partitions);
      if (validateOnly) return preview;
      const outcome = await client.electLeaders(type, partitions ?? null);
      const after = await readSnapshot(client);
      return outcome.map((o) => ({
        topic: o.topic,
        partition: o.partition,
        leader: after.image.topicsByName.get(o.topic)?.partitions.get(o.partition)?.leader ?? -1,
        previousLeader: s.image.topicsByName.get(o.topic)?.partitions.get(o.partition)?.leader ?? -1,
        errorCode: o.errorCode,
        ...(o.message ? { message: o.message } : {}),
      }));
    },

    'topics.setReplicationFactor': async ({ topic: name, replicationFactor, throttleBytesPerSec, validateOnly }) => {
      const s = await readSnapshot(client);
      const topic = s.image.topicsByName.get(name);
      if (!topic) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `This server does not host this topic: ${name}`);
      if (replicationFactor > s.image.brokers.size) throw new KafkaError('INVALID_REPLICATION_FACTOR', `Replication factor ${replicationFactor} is larger than the ${s.image.brokers.size} registered broker(s).`);
      const load = new Map<number, number>();
      for (const { state } of s.image.allPartitions()) for (const r of state.replicas) load.set(r, (load.get(r) ?? 0) + 1);
      const partitions = [...topic.partitions.values()]
        .sort((a, b) => a.partition - b.partition)
        .map((state) => {
          if (state.addingReplicas.length + state.removingReplicas.length > 0) throw new KafkaError('REASSIGNMENT_IN_PROGRESS', `${name}-${state.partition} is being reassigned; cancel or finish that first.`);
          return { topic: name, partition: state.partition, replicas: resizeReplicas(s.image, state, replicationFactor, load), currentReplicas: [...state.replicas] };
        })
        .filter((p) => p.replicas.join() !== p.currentReplicas.join());
      if (validateOnly || partitions.length === 0) return { topic: name, replicationFactor, partitions };
      const results = await execute(partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: p.replicas })), throttleBytesPerSec);
      return { topic: name, replicationFactor, partitions, results };
    },

    'topics.durability': async ({ name, acks, set }) => {
      const [d] = await client.describeConfigs([{ type: 'topic', name }]);
      if (d!.errorCode !== 'NONE') throw new KafkaError(d!.errorCode, d!.errorMessage ?? `This server does not host this topic: ${name}`);
      const value = (key: string): string | undefined => {
        const e = d!.entries.find((x) => x.name === key);
        if (set && Object.hasOwn(set, key)) return set[key] ?? e?.synonyms.find((syn) => syn.source !== 1)?.value ?? undefined;
        return e?.value ?? undefined;
      };
      const s = await readSnapshot(client, [name]);
      const p0 = s.image.topicsByName.get(name)?.partitions.get(0);
      const rf = p0 ? p0.replicas.length - p0.addingReplicas.length : 0;
      const explained = explainDurability({ replicationFactor: rf, minInsyncReplicas: Number(value('min.insync.replicas') ?? 1), uncleanLeaderElectionEnable: value('unclean.leader.election.enable') === 'true', acks: acks ?? 'all' });
      // A feature the cluster has not finalized is at level 0 (KIP-584); the members come from DescribeTopicPartitions (snapshot.ts).
      const level = (await client.features()).finalized[ELR_FEATURE] ?? 0;
      const elr = explainEligibleLeaders(level, rf, explained.effectiveMinIsr, explained.uncleanLeaderElectionEnable);
      const partitions = [...(s.image.topicsByName.get(name)?.partitions.values() ?? [])]
        .sort((a, b) => a.partition - b.partition)
        .filter((p) => (p.elr ?? []).length > 0 || (p.lastKnownElr ?? []).length > 0)
        .map((p) => ({ partition: p.partition, eligibleLeaderReplicas: [...(p.elr ?? [])], lastKnownElr: [...(p.lastKnownElr ?? [])] }));
      return { ...explained, eligibleLeaderReplicas: { ...elr, explanation: s.elrUnavailable ? `${elr.explanation} ${s.elrUnavailable}` : elr.explanation, partitions } };
    },

    'reassignments.export': async ({ topics }) => {
      const s = await readSnapshot(client);
      const names = topics ?? [...s.image.topicsByName.keys()].sort();
      return {
        version: 1 as const,
        partitions: names.flatMap((name) => {
          const t = s.image.topicsByName.get(name);
          if (!t) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `This server does not host this topic: ${name}`);
          return [...t.partitions.values()].sort((a, b) => a.partition - b.partition).map((p) => ({ topic: name, partition: p.partition, replicas: [...p.replicas], log_dirs: p.replicas.map(() => 'any') }));
        }),
      };
    },
    'reassignments.execute': ({ partitions, throttleBytesPerSec }) => execute(partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: [...p.replicas] })), throttleBytesPerSec),
    'reassignments.list': async () => {
      const s = await readSnapshot(client);
      if (s.reassignments.length === 0) return [];
      // Progress by bytes: the protocol reports replica sizes (DescribeLogDirs), not follower offsets.
      const sizes = new Map<string, number>();
      for (const b of await client.describeLogDirs([...s.listeners.keys()])) {
        for (const dir of b.logDirs) for (const r of dir.replicas) if (!r.isFuture) sizes.set(`${b.brokerId}:${r.topic}:${r.partition}`, r.sizeBytes);
      }
      return s.reassignments.map((r): ReassignmentView => {
        const state = s.image.topicsByName.get(r.topic)?.partitions.get(r.partition);
        const leaderBytes = state ? (sizes.get(`${state.leader}:${r.topic}:${r.partition}`) ?? 0) : 0;
        const adding = r.addingReplicas.map((brokerId) => ({ brokerId, logEndOffset: -1, inIsr: state?.isr.includes(brokerId) ?? false, sizeBytes: sizes.get(`${brokerId}:${r.topic}:${r.partition}`) ?? 0 }));
        const slowest = adding.reduce((m, a) => Math.min(m, a.inIsr ? leaderBytes : a.sizeBytes), leaderBytes);
        const percent = leaderBytes === 0 ? (adding.every((a) => a.inIsr) ? 100 : 0) : Math.max(0, Math.min(100, Math.floor((slowest / leaderBytes) * 100)));
        return { topic: r.topic, partition: r.partition, replicas: [...r.replicas], addingReplicas: [...r.addingReplicas], removingReplicas: [...r.removingReplicas], progress: { leaderLogEndOffset: -1, addingReplicas: adding, percent, basis: 'bytes', leaderSizeBytes: leaderBytes } };
      });
    },
    'reassignments.cancel': async ({ partitions }) => {
      const s = await readSnapshot(client);
      const items = partitions ?? s.reassignments.map(({ topic, partition }) => ({ topic, partition }));
      if (items.length === 0) return [];
      const results = await client.cancelReassignments(items);
      if (results.some((r) => r.errorCode === 'NONE')) await clearThrottles(s, items.map((i) => i.topic));
      return results.map((r) => ({ topic: r.topic, partition: r.partition, errorCode: r.errorCode, ...(r.message ? { message: r.message } : {}) }));
    },
    'reassignments.verify': async ({ partitions }) => {
      const s = await readSnapshot(client);
      const results = partitions.map((t) => {
        const running = s.reassignments.find((r) => r.topic === t.topic && r.partition === t.partition);
        const replicas = running?.replicas ?? [...(s.image.topicsByName.get(t.topic)?.partitions.get(t.partition)?.replicas ?? [])];
        return { topic: t.topic, partition: t.partition, ...verifyLine({ topic: t.topic, partition: t.partition, replicas: [...t.replicas] }, running !== undefined, replicas), replicas };
      });
      if (s.reassignments.length === 0) await clearThrottles(s, partitions.map((t) => t.topic));
      return results;
    },
  };
}
