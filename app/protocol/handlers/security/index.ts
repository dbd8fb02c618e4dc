/**
 * Every handler of a broker behind the checks Kafka's KafkaApis makes for its API: the
 * authorizer's (off unless authorizer.class.name names StandardAuthorizer, and then each API
 * checks what Kafka checks, with Kafka's errors) and the client quotas'. APIs without a guard
 * here need no permission (ApiVersions, the SASL APIs) or check it themselves (the ACL, SCRAM and
 * quota APIs in admin/).
 */
import type { ApiHandler } from '../../api-handler.js';
import { ApiKey } from '../../generated/index.js';
import type { BrokerGateway } from '../broker-gateway.js';
import {
  guardCluster,
  guardConfigs,
  guardCreatePartitions,
  guardCreateTopics,
  guardDeleteTopics,
  guardDescribeCluster,
  guardDescribeLogDirs,
} from './admin-guards.js';
import { deleteRecordsGuard, guardFetch, guardInitProducerId, guardProduce, listOffsetsGuard, offsetForLeaderEpochGuard } from './data-path-guards.js';
import {
  guardDeleteGroups,
  guardDescribeGroups,
  guardFindCoordinator,
  guardGroup,
  guardListGroups,
  guardOffsetCommit,
  guardOffsetDelete,
  guardOffsetFetch,
} from './group-guards.js';
import type { Handle } from './guard-kit.js';
import { guardDescribeTopicPartitions, guardMetadata } from './metadata-guards.js';
import {
  guardAddOffsetsToTxn,
  guardAddPartitionsToTxn,
  guardDescribeProducers,
  guardDescribeTransactions,
  guardEndTxn,
  guardListTransactions,
  guardTransactionalProduce,
  guardTxnOffsetCommit,
} from './txn-guards.js';

type Guard = (gateway: BrokerGateway, inner: ApiHandler) => Handle<never, unknown>;

const GUARDS: Partial<Record<number, Guard>> = {
  [ApiKey.Produce]: ((g, h) => guardTransactionalProduce(g, h, guardProduce(g, h as never) as never)) as Guard,
  [ApiKey.Fetch]: guardFetch as Guard,
  [ApiKey.ListOffsets]: listOffsetsGuard as Guard,
  [ApiKey.Metadata]: guardMetadata as Guard,
  [ApiKey.OffsetForLeaderEpoch]: offsetForLeaderEpochGuard as Guard,
  [ApiKey.InitProducerId]: guardInitProducerId as Guard,
  [ApiKey.DeleteRecords]: deleteRecordsGuard as Guard,
  [ApiKey.DescribeTopicPartitions]: guardDescribeTopicPartitions as Guard,
  [ApiKey.FindCoordinator]: guardFindCoordinator as Guard,
  [ApiKey.JoinGroup]: (g, h) => guardGroup(g, h),
  [ApiKey.SyncGroup]: (g, h) => guardGroup(g, h),
  [ApiKey.Heartbeat]: (g, h) => guardGroup(g, h),
  [ApiKey.LeaveGroup]: (g, h) => guardGroup(g, h),
  [ApiKey.OffsetCommit]: guardOffsetCommit as Guard,
  [ApiKey.OffsetFetch]: guardOffsetFetch as Guard,
  [ApiKey.OffsetDelete]: guardOffsetDelete as Guard,
  [ApiKey.ListGroups]: guardListGroups as Guard,
  [ApiKey.DescribeGroups]: guardDescribeGroups as Guard,
  [ApiKey.DeleteGroups]: guardDeleteGroups as Guard,
  [ApiKey.CreateTopics]: guardCreateTopics as Guard,
  [ApiKey.DeleteTopics]: guardDeleteTopics as Guard,
  [ApiKey.CreatePartitions]: guardCreatePartitions as Guard,
  [ApiKey.DescribeConfigs]: (g, h) => guardConfigs(g, h, 'DESCRIBE_CONFIGS', 'results'),
  [ApiKey.AlterConfigs]: (g, h) => guardConfigs(g, h, 'ALTER_CONFIGS', 'responses'),
  [ApiKey.IncrementalAlterConfigs]: (g, h) => guardConfigs(g, h, 'ALTER_CONFIGS', 'responses'),
  [ApiKey.ElectLeaders]: (g, h) => guardCluster(g, h, 'ALTER'),
  [ApiKey.AlterPartitionReassignments]: (g, h) => guardCluster(g, h, 'ALTER'),
  [ApiKey.ListPartitionReassignments]: (g, h) => guardCluster(g, h, 'DESCRIBE'),
  [ApiKey.UpdateFeatures]: (g, h) => guardCluster(g, h, 'ALTER'),
  [ApiKey.DescribeLogDirs]: guardDescribeLogDirs as Guard,
  [ApiKey.DescribeCluster]: guardDescribeCluster as Guard,
  [ApiKey.AddPartitionsToTxn]: guardAddPartitionsToTxn as Guard,
  [ApiKey.AddOffsetsToTxn]: guardAddOffsetsToTxn as Guard,
  [ApiKey.EndTxn]: guardEndTxn as Guard,
  // KafkaApis.handleWriteTxnMarkersRequest: CLUSTER_ACTION on the cluster, every partition refused otherwise.
  [ApiKey.WriteTxnMarkers]: (g, h) => guardCluster(g, h, 'CLUSTER_ACTION'),
  [ApiKey.TxnOffsetCommit]: guardTxnOffsetCommit as Guard,
  [ApiKey.DescribeProducers]: guardDescribeProducers as Guard,
  [ApiKey.DescribeTransactions]: guardDescribeTransactions as Guard,
  [ApiKey.ListTransactions]: guardListTransactions as Guard,
};

/** The handler with its API's guard in front (the same handler when the API has none). */
export function guarded(gateway: BrokerGateway, handler: ApiHandler): ApiHandler {
  const guard = GUARDS[handler.apiKey];
  if (!guard) return handler;
  const handle = guard(gateway, handler);
  return { ...handler, handle: handle as ApiHandler['handle'] };
}

/** The APIs with a guard (tests check every served API is either guarded or deliberately open). */
export const GUARDED_APIS: readonly number[] = Object.keys(GUARDS).map(Number);
