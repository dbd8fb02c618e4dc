/**
 * The request handlers of one broker's listener (Kafka's KafkaApis for the wire), and the
 * dispatcher that serves them. ApiVersions advertises exactly the APIs handled here, so adding a
 * handler (the group APIs, the admin APIs) is adding it to `BROKER_HANDLERS` or passing it in
 * `extra`: nothing else changes.
 */
import { createDispatcher, type Dispatcher, type DispatcherOptions } from '../dispatcher.js';
import { type ApiHandler } from '../api-handler.js';
import { ADMIN_HANDLERS } from './admin/index.js';
import type { BrokerGateway } from './broker-gateway.js';
import { describeTopicPartitionsHandler } from './describe-topic-partitions.js';
import { fetchHandler } from './fetch.js';
import { findCoordinatorHandler } from './find-coordinator.js';
import { deleteGroupsHandler, describeGroupsHandler, listGroupsHandler } from './group-admin.js';
import { heartbeatHandler, joinGroupHandler, leaveGroupHandler, syncGroupHandler } from './group-membership.js';
import { offsetCommitHandler, offsetDeleteHandler, offsetFetchHandler } from './group-offsets.js';
import { initProducerIdHandler } from './init-producer-id.js';
import { listOffsetsHandler } from './list-offsets.js';
import { metadataHandler } from './metadata.js';
import { offsetForLeaderEpochHandler } from './offset-for-leader-epoch.js';
import { produceHandler } from './produce.js';
import { guarded } from './security/index.js';
import { TRANSACTION_HANDLERS } from './transactions.js';
import { updateFeaturesHandler } from './update-features.js';

export type { BrokerGateway, ListenerAddress } from './broker-gateway.js';

/** Every handler a broker serves, each built for one broker's gateway. */
export const BROKER_HANDLERS: readonly ((gateway: BrokerGateway) => ApiHandler)[] = [
  produceHandler,
  fetchHandler,
  listOffsetsHandler,
  metadataHandler,
  initProducerIdHandler,
  offsetForLeaderEpochHandler,
  // The classic group protocol (KIP-848's ConsumerGroupHeartbeat is never advertised).
  findCoordinatorHandler,
  joinGroupHandler,
  syncGroupHandler,
  heartbeatHandler,
  leaveGroupHandler,
  offsetCommitHandler,
  offsetFetchHandler,
  offsetDeleteHandler,
  listGroupsHandler,
  describeGroupsHandler,
  deleteGroupsHandler,
  // Transactions (KIP-98, KIP-447, KIP-664).
  ...TRANSACTION_HANDLERS,
  // The admin APIs (issue 14).
  ...ADMIN_HANDLERS,
  // KIP-584 and KIP-966: feature levels and each partition's eligible leader replicas.
  updateFeaturesHandler,
  describeTopicPartitionsHandler,
] as unknown as readonly ((gateway: BrokerGateway) => ApiHandler)[];

/** The dispatcher of one broker's listener: its handlers, `extra` ones, and ApiVersions. */
export function createBrokerDispatcher(gateway: BrokerGateway, options: DispatcherOptions & { extra?: readonly ApiHandler[] } = {}): Dispatcher {
  const { extra = [], ...dispatcherOptions } = options;
  return createDispatcher([...BROKER_HANDLERS.map((make) => guarded(gateway, make(gateway))), ...extra], {
    features: () => gateway.engine.finalizedFeatures(),
    ...dispatcherOptions,
  });
}
