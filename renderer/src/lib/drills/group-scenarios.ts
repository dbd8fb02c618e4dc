/**
 * The consumer-group drill: the coordinator's broker dies while a group consumes. Kept beside
 * the replication drills (scenarios.ts lists it with them).
 */
import type { DrillScenario } from './runner.js';
import {
  createGroupTopicStep,
  killCoordinatorStep,
  produceToEveryPartitionStep,
  startConsumersStep,
  stopConsumersStep,
  waitGroupCaughtUp,
  waitNewCoordinator,
} from './group-steps.js';
import { restoreEveryBroker, startRoleStep, verifyAcknowledgedStep, waitEveryBrokerRunning, waitIsrWith } from './steps.js';

export const COORDINATOR_FAILOVER: DrillScenario = {
  id: 'coordinator-failover',
  name: 'The coordinator’s broker dies while a group consumes',
  explanation:
    'A consumer group’s coordinator is the leader of one partition of __consumer_offsets (the one its group id hashes to); the group’s generation, assignment and committed offsets are records in that partition, replicated like any other (an offset commit is acknowledged once every ISR member has it). Three consumers share a 3-partition topic and commit as they read. Then the coordinator’s broker is killed. Its members’ heartbeats and commits fail; after broker.session.timeout.ms the controller fences the broker and elects a new leader for the offsets partition from its ISR, which reads the partition’s log and rebuilds the group. The members find it with FindCoordinator and carry on with the same generation: no rebalance, and every committed offset is still there, so nothing is read twice or skipped.',
  watch:
    'On the Groups page the coordinator column changes; the events show broker.stateChanged (killed), leader.changed on __consumer_offsets, coordinator.loaded naming the group, and no group.stateChanged to PreparingRebalance. The lag drops back to 0 after the new records.',
  steps: [
    restoreEveryBroker(),
    waitEveryBrokerRunning(),
    createGroupTopicStep(3),
    produceToEveryPartitionStep(5),
    startConsumersStep(3),
    waitGroupCaughtUp('Wait for the group to form and commit everything it read', 90_000),
    killCoordinatorStep(),
    waitNewCoordinator(90_000),
    produceToEveryPartitionStep(5, 'The group keeps consuming under its new coordinator.'),
    waitGroupCaughtUp('Wait for the group to read and commit the new records', 90_000),
    startRoleStep('oldLeader', 'Restart the old coordinator’s broker'),
    waitIsrWith('oldLeader', 90_000, 'Wait for it to rejoin the ISR of partition 0'),
    stopConsumersStep(),
    verifyAcknowledgedStep(false),
  ],
};
