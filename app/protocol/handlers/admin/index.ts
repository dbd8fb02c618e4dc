/**
 * The admin APIs of a broker's listener (stage 3 of the wire protocol): what kafka-topics.sh,
 * kafka-configs.sh, kafka-reassign-partitions.sh, kafka-leader-election.sh and admin clients send.
 * Each is built for one broker's gateway; the dispatcher advertises exactly the ones it serves.
 */
import type { ApiHandler } from '../../api-handler.js';
import { createAclsHandler, deleteAclsHandler, describeAclsHandler } from './acls.js';
import { alterClientQuotasHandler, describeClientQuotasHandler } from './client-quotas.js';
import { alterUserScramCredentialsHandler, describeUserScramCredentialsHandler } from './scram-credentials.js';
import { alterConfigsHandler, describeConfigsHandler, incrementalAlterConfigsHandler } from './configs.js';
import { deleteRecordsHandler } from './delete-records.js';
import { describeClusterHandler } from './describe-cluster.js';
import { describeLogDirsHandler } from './describe-log-dirs.js';
import type { AdminGateway } from './gateway.js';
import { alterPartitionReassignmentsHandler, electLeadersHandler, listPartitionReassignmentsHandler } from './leaders-and-reassignments.js';
import { createPartitionsHandler, createTopicsHandler, deleteTopicsHandler } from './topics.js';

export type { AdminGateway } from './gateway.js';

/** Every admin handler, each built for one broker's gateway. */
export const ADMIN_HANDLERS: readonly ((gateway: AdminGateway) => ApiHandler)[] = [
  createTopicsHandler,
  deleteTopicsHandler,
  createPartitionsHandler,
  describeConfigsHandler,
  alterConfigsHandler,
  incrementalAlterConfigsHandler,
  electLeadersHandler,
  alterPartitionReassignmentsHandler,
  listPartitionReassignmentsHandler,
  describeLogDirsHandler,
  describeClusterHandler,
  deleteRecordsHandler,
  // ACLs, SCRAM credentials and client quotas (issue 32).
  describeAclsHandler,
  createAclsHandler,
  deleteAclsHandler,
  describeClientQuotasHandler,
  alterClientQuotasHandler,
  describeUserScramCredentialsHandler,
  alterUserScramCredentialsHandler,
] as unknown as readonly ((gateway: AdminGateway) => ApiHandler)[];

/** Every admin handler, for one broker. */
export function adminHandlers(gateway: AdminGateway): ApiHandler[] {
  return ADMIN_HANDLERS.map((make) => make(gateway));
}
