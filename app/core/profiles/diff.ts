/**
 * Comparing profiles, and a profile with the live cluster, and planning what applying a profile
 * would change (a dry run: pure data the service executes).
 *
 * Guarantees:
 * - Values are compared in their canonical spelling (`normalizeValue`), so "TRUE" equals "true"
 *   and "+2" equals "2": only real differences are listed.
 * - Changes are ordered: cluster, brokerConfigs, topicDefaults, producer, consumer, then per
 *   topic; keys sorted by code unit within each.
 * - Against the live cluster, a config the live cluster does not set runs with Kafka's default,
 *   so a profile value equal to that default is not a difference. Topics whose names start with
 *   "__" (internal topics) are left alone.
 * - `planApply` never plans what configs cannot do: a read-only broker config is listed under
 *   `restartRequired`, and broker count, racks and replication factors under `manual`.
 */
import { brokerConfigDef, topicConfigDef } from '../configs/catalogue.js';
import type { UpdateMode } from '../configs/catalogue.js';
import { topicConfigValue } from '../configs/resolve.js';
import { definitionFor, effectiveBrokerConfigs, normalizeValue, resolveRacks, settingPath } from './settings.js';
import type { ConfigSection } from './settings.js';
import type { ConfigStrings, LiveCluster, LiveTopic, Profile, ProfileSection } from './types.js';

export type ChangeKind = 'added' | 'removed' | 'changed';

/** One differing setting. `from` is the first profile's (or the live) value, `to` the second profile's. */
export interface SettingChange {
  section: ProfileSection;
  /** A config key, or a field: `brokers`, `racks`, `partitions`, `replicationFactor`. */
  key: string;
  /** As in validation messages: `brokerConfigs["min.insync.replicas"]`, `producer.acks`. */
  path: string;
  kind: ChangeKind;
  from: string | null;
  to: string | null;
  /** Set when the change concerns one existing topic of the live cluster. */
  topic?: string;
  /** What Kafka allows for this change, when it is not simply applied: e.g. a partition count cannot shrink. */
  note?: string;
  /** Kafka cannot make this change at all (fewer partitions than a topic has). */
  impossible?: boolean;
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const own = (map: ConfigStrings, key: string): string | undefined => (Object.hasOwn(map, key) ? map[key] : undefined);

/** Each broker's rack, by node id: "1: rack-a, 2: rack-b, 3: no rack"; null when no broker has one. */
function racksText(racks: (string | null)[]): string | null {
  return racks.every((r) => r === null) ? null : racks.map((r, i) => `${i + 1}: ${r ?? 'no rack'}`).join(', ');
}

function fieldChange(section: ProfileSection, key: string, from: string | null, to: string | null, topic?: string): SettingChange[] {
  if (from === to) return [];
  const kind: ChangeKind = from === null ? 'added' : to === null ? 'removed' : 'changed';
  const path = settingPath(section, key);
  return [{ section, key, path, kind, from, to, ...(topic !== undefined ? { topic } : {}) }];
}

function mapChanges(configSection: ConfigSection, section: ProfileSection, from: ConfigStrings, to: ConfigStrings): SettingChange[] {
  const keys = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort(byCodeUnit);
  const changes: SettingChange[] = [];
  for (const key of keys) {
    const a = own(from, key);
    const b = own(to, key);
    const def = definitionFor(configSection, key);
    if (a !== undefined && b !== undefined && normalizeValue(def, a) === normalizeValue(def, b)) continue;
    const kind: ChangeKind = a === undefined ? 'added' : b === undefined ? 'removed' : 'changed';
    changes.push({ section, key, path: settingPath(configSection, key), kind, from: a ?? null, to: b ?? null });
  }
  return changes;
}

/**
 * Feature levels that differ. Between profiles a feature one does not list is absent; against the
 * live cluster every feature has a level (0 when never set), and only the profile's count.
 */
function featureChanges(from: Record<string, number>, to: Record<string, number>, live: boolean): SettingChange[] {
  const names = [...new Set([...(live ? [] : Object.keys(from)), ...Object.keys(to)])].sort(byCodeUnit);
  const level = (map: Record<string, number>, name: string): string | null => (Object.hasOwn(map, name) ? String(map[name]) : live ? '0' : null);
  return names.flatMap((n) => fieldChange('features', n, level(from, n), level(to, n)));
}

/** Every setting that differs between two profiles (name, description and notes are not settings). */
export function diffProfiles(from: Profile, to: Profile): SettingChange[] {
  return [
    ...fieldChange('cluster', 'brokers', String(from.cluster.brokers), String(to.cluster.brokers)),
    ...fieldChange('cluster', 'racks', racksText(resolveRacks(from.cluster)), racksText(resolveRacks(to.cluster))),
    ...mapChanges('brokerConfigs', 'brokerConfigs', from.brokerConfigs, to.brokerConfigs),
    ...featureChanges(from.features, to.features, false),
    ...fieldChange('topicDefaults', 'partitions', String(from.topicDefaults.partitions), String(to.topicDefaults.partitions)),
    ...fieldChange('topicDefaults', 'replicationFactor', String(from.topicDefaults.replicationFactor), String(to.topicDefaults.replicationFactor)),
    ...mapChanges('topicDefaults.configs', 'topicDefaults', from.topicDefaults.configs, to.topicDefaults.configs),
    ...mapChanges('producer', 'producer', from.producer, to.producer),
    ...mapChanges('consumer', 'consumer', from.consumer, to.consumer),
  ];
}

/** The live value of a broker config: set, or Kafka's default (null where Kafka has none). */
function liveBrokerValue(live: LiveCluster, key: string): { value: string | null; set: boolean } {
  const set = own(live.clusterConfigs, key);
  return set !== undefined ? { value: set, set: true } : { value: brokerConfigDef(key)?.default ?? null, set: false };
}

/** Broker configs where live and profile differ; `to` is the profile's value, null = the profile leaves it unset. */
function brokerConfigChanges(profile: Profile, live: LiveCluster): SettingChange[] {
  const wanted = effectiveBrokerConfigs(profile);
  const keys = [...new Set([...Object.keys(wanted), ...Object.keys(live.clusterConfigs)])].sort(byCodeUnit);
  const changes: SettingChange[] = [];
  for (const key of keys) {
    const def = brokerConfigDef(key);
    const to = own(wanted, key);
    const { value: from, set } = liveBrokerValue(live, key);
    const path = settingPath('brokerConfigs', key);
    if (to === undefined) {
      changes.push({ section: 'brokerConfigs', key, path, kind: 'removed', from, to: null });
    } else if (from === null || normalizeValue(def, from) !== normalizeValue(def, to)) {
      changes.push({ section: 'brokerConfigs', key, path, kind: set ? 'changed' : 'added', from, to });
    }
  }
  return changes;
}

const isInternal = (topic: LiveTopic): boolean => topic.name.startsWith('__');

/** Topic configs of one existing topic that differ from the profile's topic defaults, given the cluster's broker configs. */
function topicConfigChanges(profile: Profile, topic: LiveTopic, clusterConfigs: ConfigStrings): SettingChange[] {
  const changes: SettingChange[] = [];
  for (const key of Object.keys(profile.topicDefaults.configs).sort(byCodeUnit)) {
    const to = profile.topicDefaults.configs[key]!;
    const from = topicConfigValue(key, topic.configs, {}, clusterConfigs);
    const def = topicConfigDef(key);
    if (normalizeValue(def, from) === normalizeValue(def, to)) continue;
    const kind: ChangeKind = Object.hasOwn(topic.configs, key) ? 'changed' : 'added';
    changes.push({ section: 'topicDefaults', key, path: settingPath('topicDefaults.configs', key), kind, from, to, topic: topic.name });
  }
  return changes;
}

/**
 * An existing topic's partition count against the profile's default: Kafka's CreatePartitions
 * only adds partitions (KIP-195), so fewer is impossible, and more moves keys to other partitions.
 */
function partitionNote(c: SettingChange, now: number, profile: number): SettingChange {
  if (profile < now) {
    return { ...c, impossible: true, note: `Kafka cannot remove partitions (CreatePartitions only adds them): ${c.topic} keeps ${now}; the profile's ${profile} applies to new topics.` };
  }
  return { ...c, note: `Adding partitions to ${c.topic} changes which partition each key hashes to; applying the profile does not do it (partitions.add does).` };
}

/**
 * Where the live cluster differs from the profile: broker count and racks, broker configs (live
 * value or Kafka's default → profile value; keys the live cluster sets and the profile does not
 * are `removed`), and for each existing topic its replication factor, partition count and the
 * effective value of each of the profile's topic configs.
 */
export function diffProfileLive(profile: Profile, live: LiveCluster): SettingChange[] {
  const changes = [
    ...fieldChange('cluster', 'brokers', String(live.brokerCount), String(profile.cluster.brokers)),
    ...fieldChange('cluster', 'racks', racksText(live.racks), racksText(resolveRacks(profile.cluster))),
    ...brokerConfigChanges(profile, live),
    ...featureChanges(live.features, profile.features, true),
  ];
  for (const topic of [...live.topics].sort((a, b) => byCodeUnit(a.name, b.name))) {
    if (isInternal(topic)) continue;
    changes.push(
      ...fieldChange('topicDefaults', 'replicationFactor', String(topic.replicationFactor), String(profile.topicDefaults.replicationFactor), topic.name),
      ...fieldChange('topicDefaults', 'partitions', String(topic.partitions), String(profile.topicDefaults.partitions), topic.name).map((c) => partitionNote(c, topic.partitions, profile.topicDefaults.partitions)),
      ...topicConfigChanges(profile, topic, live.clusterConfigs),
    );
  }
  return changes;
}

// ---- planning -------------------------------------------------------------------------------

export interface PlannedChange {
  key: string;
  /** The live value (or Kafka's default; null where Kafka has none). */
  from: string | null;
  /** The value to set; null = delete the override, back to Kafka's default. */
  to: string | null;
  updateMode?: UpdateMode;
}

/** A `configs.alter` input plus the changes it makes. */
export interface PlannedAlter<T extends 'broker' | 'topic'> {
  resource: { type: T; name: string };
  set: Record<string, string | null>;
  changes: PlannedChange[];
}

/** One UpdateFeatures entry of a plan (`kafka-features.sh upgrade|downgrade`). */
export interface PlannedFeature {
  feature: string;
  maxVersionLevel: number;
  upgradeType: 'upgrade' | 'safe-downgrade';
  /** The level the cluster runs at now. */
  from: number;
}

export interface ApplyPlan {
  profile: string;
  /** Dynamic broker configs for the cluster-wide default entity (name ''), or null if none differ. */
  clusterConfigs: PlannedAlter<'broker'> | null;
  /** Feature levels to finalize before the configs (enabling ELR pins the cluster-level min.insync.replicas). */
  features: PlannedFeature[];
  /** Read-only broker configs that differ: set them in every broker's server.properties and restart. */
  restartRequired: PlannedChange[];
  /** Per existing topic, the topic configs to set (only with `includeExistingTopics`). */
  topics: PlannedAlter<'topic'>[];
  /** Differences configs cannot fix: broker count, racks, replication factors. One sentence each. */
  manual: string[];
  /** Nothing to alter, restart or do by hand. */
  upToDate: boolean;
}

export interface PlanOptions {
  /** Also set the profile's topic configs on existing topics where their effective value differs. */
  includeExistingTopics?: boolean;
  /** Delete cluster-wide broker configs the live cluster sets and the profile does not. */
  removeUnlisted?: boolean;
}

function shapeNotes(profile: Profile, live: LiveCluster): string[] {
  const manual: string[] = [];
  const want = profile.cluster.brokers;
  if (live.brokerCount !== want) {
    manual.push(
      live.brokerCount < want
        ? `The profile has ${want} brokers and the cluster ${live.brokerCount}: add ${want - live.brokerCount} (configs cannot change the broker count).`
        : `The profile has ${want} brokers and the cluster ${live.brokerCount}: the extra brokers are left as they are.`,
    );
  }
  const racks = resolveRacks(profile.cluster);
  const moves: string[] = [];
  racks.forEach((rack, i) => {
    if (i >= live.brokerCount) return;
    const now = live.racks[i] ?? null;
    if (now !== rack) moves.push(`broker ${i + 1}: ${now ?? 'no rack'} → ${rack ?? 'no rack'}`);
  });
  if (moves.length > 0) {
    manual.push(`broker.rack is read-only, so these brokers need it set in server.properties and a restart: ${moves.join('; ')}.`);
  }
  return manual;
}

/** A dry-run plan for applying `profile` to the live cluster. */
export function planApply(profile: Profile, live: LiveCluster, options: PlanOptions = {}): ApplyPlan {
  const dynamic: PlannedChange[] = [];
  const restartRequired: PlannedChange[] = [];
  for (const change of brokerConfigChanges(profile, live)) {
    if (change.kind === 'removed' && (options.removeUnlisted !== true || !Object.hasOwn(live.clusterConfigs, change.key))) continue;
    const updateMode = brokerConfigDef(change.key)?.updateMode ?? 'read-only';
    const planned: PlannedChange = { key: change.key, from: change.from, to: change.to, updateMode };
    (updateMode === 'read-only' ? restartRequired : dynamic).push(planned);
  }
  const clusterConfigs: PlannedAlter<'broker'> | null =
    dynamic.length === 0
      ? null
      : {
          resource: { type: 'broker', name: '' },
          set: Object.fromEntries(dynamic.map((c) => [c.key, c.to === null ? null : c.to.trim()])),
          changes: dynamic,
        };

  // Topic values are judged against the cluster configs as they will be after the dynamic changes.
  const after: ConfigStrings = { ...live.clusterConfigs };
  for (const c of dynamic) {
    if (c.to === null) delete after[c.key];
    else after[c.key] = c.to;
  }
  const topics: PlannedAlter<'topic'>[] = [];
  const manual = shapeNotes(profile, live);
  for (const topic of [...live.topics].sort((a, b) => byCodeUnit(a.name, b.name))) {
    if (isInternal(topic)) continue;
    if (topic.replicationFactor < profile.topicDefaults.replicationFactor) {
      manual.push(
        `Topic ${topic.name} has replication factor ${topic.replicationFactor}, the profile ${profile.topicDefaults.replicationFactor}: ` +
          'raise it with a reassignment (configs cannot change it).',
      );
    }
    if (options.includeExistingTopics !== true) continue;
    const changes = topicConfigChanges(profile, topic, after).map(({ key, from, to }) => ({ key, from, to }));
    if (changes.length > 0) {
      topics.push({
        resource: { type: 'topic', name: topic.name },
        set: Object.fromEntries(changes.map((c) => [c.key, c.to === null ? null : c.to.trim()])),
        changes,
      });
    }
  }
  const features: PlannedFeature[] = Object.keys(profile.features)
    .sort(byCodeUnit)
    .filter((n) => (live.features[n] ?? 0) !== profile.features[n])
    .map((n) => {
      const from = live.features[n] ?? 0;
      const to = profile.features[n]!;
      return { feature: n, maxVersionLevel: to, upgradeType: to < from ? 'safe-downgrade' : 'upgrade', from };
    });
  return {
    profile: profile.name,
    clusterConfigs,
    features,
    restartRequired,
    topics,
    manual,
    upToDate: clusterConfigs === null && features.length === 0 && restartRequired.length === 0 && topics.length === 0 && manual.length === 0,
  };
}
