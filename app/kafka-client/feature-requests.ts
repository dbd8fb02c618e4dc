/**
 * Feature levels and eligible leader replicas of an external cluster, in our generated codecs
 * (kafkajs sends neither request):
 *
 *   DescribeTopicPartitions 0 (KIP-966)  each partition's ELR and last known ELR, paged: the next
 *                                        request carries the answer's next_cursor until it is null
 *   UpdateFeatures 0–1 (KIP-584)         `kafka-features.sh upgrade|downgrade`; Kafka's controller
 *                                        answers all or nothing (a top-level error and no results)
 *
 * A cluster whose brokers do not advertise the API gets `null` back with the reason, so the caller
 * can say the data is unavailable instead of showing nothing.
 */
import { ApiKey, type DescribeTopicPartitionsResponse } from '../protocol/generated/index.js';
import { ZERO_UUID } from '../protocol/runtime/index.js';
import type { KafkaAdminClient } from './admin-client.js';
import { errorName } from './errors.js';

type Client = Pick<KafkaAdminClient, 'send' | 'apiVersions'>;

/** The topic id Kafka sends where it has none (Metadata below v10): the zero uuid. */
export const ZERO_TOPIC_ID: string = ZERO_UUID;

/** One partition's eligible leader replicas and last known ELR. */
export interface PartitionElrData {
  elr: number[];
  lastKnownElr: number[];
}

/** A feature update as the contract takes it. */
export interface FeatureUpdateData {
  feature: string;
  maxVersionLevel: number;
  upgradeType?: 'upgrade' | 'safe-downgrade' | 'unsafe-downgrade' | undefined;
}

const ALL_FAILED = 'The update failed for all features since the following feature had an error: ';
const UPGRADE_TYPE = { upgrade: 1, 'safe-downgrade': 2, 'unsafe-downgrade': 3 } as const;
/** Pages of DescribeTopicPartitions at most (2,000 partitions each by default): a bound, not a limit a real cluster meets. */
const MAX_PAGES = 1000;

async function advertises(client: Client, apiKey: number): Promise<boolean> {
  return (await client.apiVersions()).some((v) => v.apiKey === apiKey);
}

export const ELR_UNAVAILABLE_REASON =
  "This cluster's brokers do not serve DescribeTopicPartitions (API key 75, KIP-966), the only request that reports each partition's eligible leader replicas.";
export const FEATURE_UPDATES_UNAVAILABLE_REASON = "This cluster's brokers do not serve UpdateFeatures (API key 57, KIP-584): its feature levels cannot be changed over the Kafka protocol.";

/** Partitions one DescribeTopicPartitions answer carries at most (`max.request.partition.size.limit`'s default). */
const PAGE_PARTITIONS = 2000;
/** Requests `describeElr` has in flight at once when it asks topic by topic. */
const GROUPS_IN_FLIGHT = 4;

/**
 * ELR per topic and partition of `topics` (all when absent), and each topic's id as the same
 * answer carries it (Metadata carries none below v10), or the reason it cannot be read. Topics
 * Kafka reports with an error are left out.
 *
 * With `partitionCounts` (each topic's partitions, as Metadata just gave them) the topics are
 * asked in groups of about a page each rather than all at once: a broker answers every page of
 * an all-topics request from the topics at or after its cursor, so on a cluster of 100,000
 * partitions each of its 50 pages would cost as much as the whole.
 */
export async function describeElr(
  client: Client,
  topics?: string[],
  partitionCounts?: ReadonlyMap<string, number>,
): Promise<{ elr: Map<string, Map<number, PartitionElrData>>; topicIds: Map<string, string> } | { unavailable: string }> {
  if (!(await advertises(client, ApiKey.DescribeTopicPartitions))) return { unavailable: ELR_UNAVAILABLE_REASON };
  const elr = new Map<string, Map<number, PartitionElrData>>();
  const topicIds = new Map<string, string>();
  const read = async (named: string[]): Promise<void> => {
    let cursor: { topicName: string; partitionIndex: number } | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const r: DescribeTopicPartitionsResponse = await client.send(undefined, ApiKey.DescribeTopicPartitions, [0, 0], { topics: named.map((name) => ({ name })), cursor }, 'Reading eligible leader replicas');
      for (const t of r.topics) {
        if (t.errorCode !== 0 || t.name === null) continue;
        topicIds.set(t.name, t.topicId);
        const parts = elr.get(t.name) ?? new Map<number, PartitionElrData>();
        for (const p of t.partitions) parts.set(p.partitionIndex, { elr: [...(p.eligibleLeaderReplicas ?? [])], lastKnownElr: [...(p.lastKnownElr ?? [])] });
        elr.set(t.name, parts);
      }
      if (!r.nextCursor) break;
      cursor = r.nextCursor;
    }
  };
  if (!partitionCounts || partitionCounts.size === 0) {
    await read(topics ?? []);
    return { elr, topicIds };
  }
  const groups: string[][] = [];
  let size = PAGE_PARTITIONS;
  for (const [name, count] of [...partitionCounts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (size + count > PAGE_PARTITIONS) {
      groups.push([]);
      size = 0;
    }
    groups[groups.length - 1]!.push(name);
    size += count;
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(GROUPS_IN_FLIGHT, groups.length) }, async () => {
      for (let i = next++; i < groups.length; i = next++) await read(groups[i]!);
    }),
  );
  return { elr, topicIds };
}

/**
 * UpdateFeatures, answered per feature as the contract does: Kafka's top-level refusal becomes
 * each feature's error (as Kafka's Admin client reports it), or null when the cluster lacks the API.
 */
export async function updateFeatures(client: Client, updates: FeatureUpdateData[], validateOnly: boolean): Promise<{ feature: string; errorCode: ReturnType<typeof errorName>; message?: string }[] | null> {
  if (!(await advertises(client, ApiKey.UpdateFeatures))) return null;
  const r = await client.send(
    undefined,
    ApiKey.UpdateFeatures,
    [1, 1],
    { timeoutMs: 60_000, validateOnly, featureUpdates: updates.map((u) => ({ feature: u.feature, maxVersionLevel: u.maxVersionLevel, upgradeType: UPGRADE_TYPE[u.upgradeType ?? 'upgrade'] })) },
    'Updating feature levels',
  );
  if (r.errorCode !== 0) {
    // "The update failed for all features since the following feature had an error: Invalid update
    // version 2 for feature F. …": F gets its own reason, the others the whole message.
    const inner = r.errorMessage?.split(ALL_FAILED)[1];
    const culprit = inner ? /^Invalid update version -?\d+ for feature (.+?)\. /.exec(inner)?.[1] : undefined;
    return updates.map((u) => ({ feature: u.feature, errorCode: errorName(r.errorCode), ...(r.errorMessage ? { message: u.feature === culprit ? inner! : r.errorMessage } : {}) }));
  }
  const byName = new Map(r.results.map((x) => [x.feature, x]));
  return updates.map((u) => {
    const x = byName.get(u.feature);
    const code = errorName(x?.errorCode ?? 0);
    return { feature: u.feature, errorCode: code, ...(x?.errorMessage ? { message: x.errorMessage } : {}) };
  });
}
