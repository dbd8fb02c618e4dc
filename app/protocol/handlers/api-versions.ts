/**
 * ApiVersions (key 18): which APIs and versions this broker serves (the table in
 * docs/kafka-compatibility.md#apis-and-versions). The advertised profile has low minimum versions (librdkafka before 2.11 enables features only when
 * the range contains old versions, e.g. Produce 0 for compression), maxima below the flexible
 * versions on the data path, ApiVersions 0-4 (v4 is v3 on the wire). Never advertised: the
 * transaction APIs and KIP-848's ConsumerGroupHeartbeat, so clients stay non-transactional and on
 * classic groups; SASL only on a listener that has it (main/kafka/sasl-gate.ts). DescribeCluster v0 is served (issue 14: the Java AdminClient's
 * describeCluster, with racks); clients that do not send it keep using Metadata. UpdateFeatures
 * 0-1 and DescribeTopicPartitions 0 (KIP-966's ELR per partition) are Kafka 3.9's versions.
 *
 * A v3+ request names the client software; a name or version outside Kafka's pattern gets
 * INVALID_REQUEST (ApiVersionsRequest.isValid).
 *
 * Features (KIP-584), in the v3+ tagged fields as a KRaft broker fills them
 * (ApiVersionsResponse.Builder, KRaftMetadataCache.features):
 *   SupportedFeatures       every feature's supported range; below v4, features whose minimum is
 *                           0 are left out (older clients cannot read a 0 minimum, KAFKA-17492)
 *   FinalizedFeatures       every feature at a level other than 0, min level = max level = it
 *   FinalizedFeaturesEpoch  the metadata offset those levels were read at (-1: unknown)
 */
import type { ApiHandler } from '../api-handler.js';
import { errorCode } from '../error-codes.js';
import { ApiKey } from '../generated/index.js';

/** The versions to advertise, by API key, once a handler for the API exists. */
export const ADVERTISED_VERSIONS: Readonly<Record<number, readonly [number, number]>> = {
  [ApiKey.Produce]: [0, 8],
  [ApiKey.Fetch]: [0, 11],
  [ApiKey.ListOffsets]: [0, 5],
  [ApiKey.Metadata]: [0, 8],
  [ApiKey.OffsetCommit]: [0, 7],
  [ApiKey.OffsetFetch]: [0, 5],
  [ApiKey.FindCoordinator]: [0, 2],
  [ApiKey.JoinGroup]: [0, 5],
  [ApiKey.Heartbeat]: [0, 3],
  [ApiKey.LeaveGroup]: [0, 3],
  [ApiKey.SyncGroup]: [0, 3],
  [ApiKey.DescribeGroups]: [0, 4],
  [ApiKey.ListGroups]: [0, 2],
  [ApiKey.ApiVersions]: [0, 4],
  [ApiKey.CreateTopics]: [0, 4],
  [ApiKey.DeleteTopics]: [0, 3],
  [ApiKey.DeleteRecords]: [0, 1],
  [ApiKey.InitProducerId]: [0, 4],
  [ApiKey.AddPartitionsToTxn]: [0, 3],
  [ApiKey.AddOffsetsToTxn]: [0, 3],
  [ApiKey.EndTxn]: [0, 3],
  [ApiKey.TxnOffsetCommit]: [0, 3],
  [ApiKey.DescribeProducers]: [0, 0],
  [ApiKey.DescribeTransactions]: [0, 0],
  [ApiKey.ListTransactions]: [0, 1],
  // For Admin.abortTransaction (KIP-664); Kafka 3.x serves 0-1.
  [ApiKey.WriteTxnMarkers]: [0, 1],
  [ApiKey.OffsetForLeaderEpoch]: [2, 3],
  [ApiKey.DescribeConfigs]: [0, 3],
  [ApiKey.DescribeLogDirs]: [0, 4],
  [ApiKey.AlterConfigs]: [0, 1],
  [ApiKey.CreatePartitions]: [0, 1],
  [ApiKey.DeleteGroups]: [0, 1],
  [ApiKey.OffsetDelete]: [0, 0],
  [ApiKey.ElectLeaders]: [0, 1],
  [ApiKey.IncrementalAlterConfigs]: [0, 0],
  [ApiKey.AlterPartitionReassignments]: [0, 0],
  [ApiKey.ListPartitionReassignments]: [0, 0],
  [ApiKey.DescribeCluster]: [0, 0],
  [ApiKey.UpdateFeatures]: [0, 1],
  [ApiKey.DescribeTopicPartitions]: [0, 0],
  // ACLs, SCRAM credentials and client quotas (issue 32): Kafka 3.9's versions.
  [ApiKey.DescribeAcls]: [0, 3],
  [ApiKey.CreateAcls]: [0, 3],
  [ApiKey.DeleteAcls]: [0, 3],
  [ApiKey.DescribeClientQuotas]: [0, 1],
  [ApiKey.AlterClientQuotas]: [0, 1],
  [ApiKey.DescribeUserScramCredentials]: [0, 0],
  [ApiKey.AlterUserScramCredentials]: [0, 0],
};

/**
 * API keys a broker of ours never advertises, whatever handlers exist. SaslHandshake and
 * SaslAuthenticate are not here: only a SASL listener has handlers for them (main/kafka/sasl-gate.ts).
 */
export const NEVER_ADVERTISED: ReadonlySet<number> = new Set([
  68, // ConsumerGroupHeartbeat (KIP-848)
  69, // ConsumerGroupDescribe (KIP-848)
]);

/** Kafka's pattern for ClientSoftwareName and ClientSoftwareVersion. */
const SOFTWARE = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/** The cluster's features as ApiVersions reports them: supported ranges and finalized levels. */
export interface FeatureLevels {
  /** The metadata offset the levels were read at. */
  epoch: number;
  features: readonly { name: string; minVersion: number; maxVersion: number; finalizedLevel: number }[];
}

/** The ApiVersions v3+ feature fields for `levels` (none known: empty lists, epoch -1). */
export function featureFields(levels: FeatureLevels | null, apiVersion: number) {
  const features = levels?.features ?? [];
  return {
    supportedFeatures: features.filter((f) => apiVersion >= 4 || f.minVersion !== 0).map((f) => ({ name: f.name, minVersion: f.minVersion, maxVersion: f.maxVersion })),
    finalizedFeaturesEpoch: BigInt(levels?.epoch ?? -1),
    finalizedFeatures: features.filter((f) => f.finalizedLevel !== 0).map((f) => ({ name: f.name, minVersionLevel: f.finalizedLevel, maxVersionLevel: f.finalizedLevel })),
  };
}

/**
 * The ApiVersions handler; `ranges` is evaluated per request (the dispatcher's table), and so is
 * `features` (the cluster's feature levels; absent: none reported).
 */
export function apiVersionsHandler(
  ranges: () => { apiKey: number; minVersion: number; maxVersion: number }[],
  features?: () => FeatureLevels,
): ApiHandler<typeof ApiKey.ApiVersions> {
  const apiKeys = () => ranges().filter((r) => !NEVER_ADVERTISED.has(r.apiKey));
  return {
    apiKey: ApiKey.ApiVersions,
    advertised: ADVERTISED_VERSIONS[ApiKey.ApiVersions]!,
    handle(request, ctx) {
      if (ctx.apiVersion >= 3 && !(SOFTWARE.test(request.clientSoftwareName) && SOFTWARE.test(request.clientSoftwareVersion))) {
        return { errorCode: errorCode('INVALID_REQUEST') };
      }
      return { errorCode: 0, apiKeys: apiKeys(), throttleTimeMs: 0, ...(ctx.apiVersion >= 3 ? featureFields(features?.() ?? null, ctx.apiVersion) : {}) };
    },
    errorResponse(_request, code) {
      // As ApiVersionsRequest.getErrorResponse: only UNSUPPORTED_VERSION lists key 18's range.
      const self = ADVERTISED_VERSIONS[ApiKey.ApiVersions]!;
      const apiKeys = code === errorCode('UNSUPPORTED_VERSION') ? [{ apiKey: ApiKey.ApiVersions, minVersion: self[0], maxVersion: self[1] }] : [];
      return { errorCode: code, apiKeys };
    },
  };
}
