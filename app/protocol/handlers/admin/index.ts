/**
 * The admin APIs of a broker's listener (stage 3 of the wire protocol): what kafka-topics.sh,
 * kafka-configs.sh, kafka-reassign-partitions.sh, kafka-leader-election.sh and admin clients send.
 * Each is built for one broker's gateway; the dispatcher advertises exactly the ones it serves.
 */
import type { ApiHandler } from '../../dispatcher.js';
import { alterConfigsHandler, describeConfigsHandler, incrementalAlterConfigsHandler } from './configs.js';
import { describeLogDirsHandler } from './describe-log-dirs.js';
import type { AdminGateway } from './gateway.js';
import { alterPartitionReassignmentsHandler, electLeadersHandler, listPartitionReassignmentsHandler } from './leaders-and-reassignments.js';
import { createPartitionsHandler, createTopicsHandler, deleteTopicsHandler } from './topics.js';

export type { AdminGateway } from './gateway.js';

/** Every admin handler, for one broker. */
export function adminHandlers(gateway: AdminGateway): ApiHandler[] {
  return [
    createTopicsHandler(gateway),
    deleteTopicsHandler(gateway),
    createPartitionsHandler(gateway),
    describeConfigsHandler(gateway),
    alterConfigsHandler(gateway),
    incrementalAlterConfigsHandler(gateway),
    electLeadersHandler(gateway),
    alterPartitionReassignmentsHandler(gateway),
    listPartitionReassignmentsHandler(gateway),
    describeLogDirsHandler(gateway),
  ] as unknown as ApiHandler[];
}
