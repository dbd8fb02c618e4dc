/**
 * ElectLeaders (43), AlterPartitionReassignments (45) and ListPartitionReassignments (46), over
 * the controller's operations (KIP-183/460 elections, KIP-455 reassignments).
 *
 *   ElectLeaders     => election_type(v1+: 0 preferred, 1 unclean) [topic [partition]] | null (all)
 *                       timeout_ms
 *   Resp             => throttle error_code(v1+) [topic [partition error_code error_message]]
 *   AlterPartitionReassignments => timeout [name [partition replicas|null]]   (null cancels)
 *   ListPartitionReassignments  => timeout [name [partition]] | null (every ongoing one)
 *
 * Per partition outcomes keep the controller's codes (ELECTION_NOT_NEEDED,
 * PREFERRED_LEADER_NOT_AVAILABLE, NO_REASSIGNMENT_IN_PROGRESS, INVALID_REPLICA_ASSIGNMENT, …).
 * The API sets no throttles and clears none: that is kafka-reassign-partitions.sh's business.
 */
import type { ApiHandler } from '../../api-handler.js';
import { ApiKey } from '../../generated/index.js';
import { errorCode } from '../../error-codes.js';
import { ADVERTISED_VERSIONS } from '../api-versions.js';
import { type AdminGateway, outcome, run } from './gateway.js';

function byTopic<T extends { topic: string }>(items: readonly T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const i of items) m.set(i.topic, [...(m.get(i.topic) ?? []), i]);
  return m;
}

export function electLeadersHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.ElectLeaders> {
  return {
    apiKey: ApiKey.ElectLeaders,
    advertised: ADVERTISED_VERSIONS[ApiKey.ElectLeaders]!,
    async handle(request) {
      const type = request.electionType === 1 ? 'unclean' : 'preferred';
      const partitions = request.topicPartitions === null ? undefined : request.topicPartitions.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })));
      const r = await outcome(() => run(gateway, () => gateway.engine.electLeaders(type, partitions)));
      if (!r.value) return { throttleTimeMs: 0, errorCode: r.errorCode, replicaElectionResults: [] };
      return {
        throttleTimeMs: 0,
        errorCode: 0,
        replicaElectionResults: [...byTopic(r.value)].map(([topic, results]) => ({
          topic,
          partitionResult: results.map((p) => ({ partitionId: p.partition, errorCode: errorCode(p.errorCode), errorMessage: p.errorCode === 'NONE' ? null : (p.message ?? null) })),
        })),
      };
    },
    errorResponse: (request, code) => ({
      throttleTimeMs: 0,
      errorCode: code,
      replicaElectionResults: (request.topicPartitions ?? []).map((t) => ({ topic: t.topic, partitionResult: t.partitions.map((p) => ({ partitionId: p, errorCode: code, errorMessage: null })) })),
    }),
  };
}

export function alterPartitionReassignmentsHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.AlterPartitionReassignments> {
  return {
    apiKey: ApiKey.AlterPartitionReassignments,
    advertised: ADVERTISED_VERSIONS[ApiKey.AlterPartitionReassignments]!,
    async handle(request) {
      const items = request.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, replicas: p.replicas === null ? null : [...p.replicas] })));
      const r = await outcome(() => run(gateway, () => gateway.engine.alterPartitionReassignments(items)));
      if (!r.value) return { throttleTimeMs: 0, errorCode: r.errorCode, errorMessage: r.errorMessage, responses: [] };
      return {
        throttleTimeMs: 0,
        errorCode: 0,
        errorMessage: null,
        responses: [...byTopic(r.value)].map(([name, results]) => ({
          name,
          partitions: results.map((p) => ({ partitionIndex: p.partition, errorCode: errorCode(p.errorCode), errorMessage: p.errorCode === 'NONE' ? null : (p.message ?? null) })),
        })),
      };
    },
    errorResponse: (request, code) => ({
      throttleTimeMs: 0,
      errorCode: code,
      errorMessage: null,
      responses: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code, errorMessage: null })) })),
    }),
  };
}

export function listPartitionReassignmentsHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.ListPartitionReassignments> {
  return {
    apiKey: ApiKey.ListPartitionReassignments,
    advertised: ADVERTISED_VERSIONS[ApiKey.ListPartitionReassignments]!,
    async handle(request) {
      const asked = request.topics === null ? null : new Set(request.topics.flatMap((t) => t.partitionIndexes.map((p) => `${t.name}\u0000${p}`)));
      const ongoing = await run(gateway, () => gateway.engine.listReassignments());
      const chosen = ongoing.filter((r) => asked === null || asked.has(`${r.topic}\u0000${r.partition}`));
      return {
        throttleTimeMs: 0,
        errorCode: 0,
        errorMessage: null,
        topics: [...byTopic(chosen)].map(([name, rs]) => ({
          name,
          partitions: rs.map((r) => ({ partitionIndex: r.partition, replicas: [...r.replicas], addingReplicas: [...r.addingReplicas], removingReplicas: [...r.removingReplicas] })),
        })),
      };
    },
    errorResponse: (_request, code) => ({ throttleTimeMs: 0, errorCode: code, errorMessage: null, topics: [] }),
  };
}
