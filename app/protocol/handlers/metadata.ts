/**
 * Metadata (key 3) from one broker's own copy of the cluster metadata: the live brokers with the
 * host and port of their listeners, the controller, the cluster id, and per partition its leader,
 * leader epoch, replicas, ISR and offline replicas.
 *
 *   MetadataRequest  => [topic] (v0: empty = all; v1+: null = all, empty = none)
 *                       allow_auto_topic_creation(v4+) include_*_authorized_operations(v8+)
 *   MetadataResponse => throttle_time_ms(v3+) [broker id host port rack(v1+)] cluster_id(v2+)
 *                       controller_id(v1+) [topic error_code name is_internal(v1+) [partition
 *                       error_code index leader leader_epoch(v7+) replicas isr offline(v5+)]]
 *                       authorized_operations(v8+)
 *
 * Rules: a broker is listed only when live and its listener is known (the engine's listener
 * addresses: what Metadata advertises is exactly what `cluster.describe` reports); a leaderless partition has leader -1 and
 * LEADER_NOT_AVAILABLE; a missing topic is created when the request allows it (always below v4,
 * `allow_auto_topic_creation` from v4) and the broker's `auto.create.topics.enable` is true, and is
 * answered LEADER_NOT_AVAILABLE until this broker's metadata has it (or with the controller's
 * refusal, e.g. INVALID_REPLICATION_FACTOR), else UNKNOWN_TOPIC_OR_PARTITION; below v5, where offline replicas cannot be listed, replicas and
 * ISR keep only live brokers and the partition says REPLICA_NOT_AVAILABLE (Kafka's
 * errorUnavailableEndpoints). Authorized operations are not computed (Kafka's "not requested",
 * -2147483648).
 */
import type { BrokerAnswer, ClientMetadataResponse, ClientMetadataTopic } from '../../core/engine.js';
import type { ApiHandler } from '../api-handler.js';
import { errorCode } from '../error-codes.js';
import { ApiKey, type MetadataRequest } from '../generated/index.js';
import { ADVERTISED_VERSIONS } from './api-versions.js';
import { answered, type BrokerGateway } from './broker-gateway.js';

const NOT_REQUESTED = -2147483648;

/** The topic names asked for, or null for every topic. */
function topicsAsked(request: MetadataRequest, version: number): string[] | null {
  if (request.topics === null) return null;
  if (version === 0 && request.topics.length === 0) return null;
  return request.topics.map((t) => t.name ?? '');
}

function topicAnswer(t: ClientMetadataTopic, version: number) {
  return {
    errorCode: errorCode(t.error),
    name: t.name,
    isInternal: t.isInternal,
    topicAuthorizedOperations: NOT_REQUESTED,
    partitions: t.partitions.map((p) => {
      const offline = new Set(p.offlineReplicas);
      const dropOffline = version < 5 && offline.size > 0;
      const error = p.error !== 'NONE' ? errorCode(p.error) : dropOffline ? errorCode('REPLICA_NOT_AVAILABLE') : 0;
      return {
        errorCode: error,
        partitionIndex: p.partition,
        leaderId: p.leader,
        leaderEpoch: p.leaderEpoch,
        replicaNodes: dropOffline ? p.replicas.filter((r) => !offline.has(r)) : p.replicas,
        isrNodes: dropOffline ? p.isr.filter((r) => !offline.has(r)) : p.isr,
        offlineReplicas: p.offlineReplicas,
      };
    }),
  };
}

export function metadataHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.Metadata> {
  return {
    apiKey: ApiKey.Metadata,
    advertised: ADVERTISED_VERSIONS[ApiKey.Metadata]!,
    async handle(request, ctx) {
      // allow_auto_topic_creation is true below v4 (the field's default), the request's from v4.
      const autoCreate = request.allowAutoTopicCreation ? { autoCreate: { clientId: ctx.header.clientId ?? '' } } : {};
      const answer = await gateway.call<BrokerAnswer<ClientMetadataResponse>>((done) =>
        gateway.engine.metadataRequest(gateway.brokerId, { type: 'metadata', topics: topicsAsked(request, ctx.apiVersion), ...autoCreate }, done),
      );
      const m = await answered(answer);
      const listeners = gateway.engine.listenerAddresses();
      const brokers = m.brokers.flatMap((b) => {
        const at = listeners.get(b.id);
        return at ? [{ nodeId: b.id, host: at.host, port: at.port, rack: b.rack }] : [];
      });
      const listed = new Set(brokers.map((b) => b.nodeId));
      return {
        throttleTimeMs: 0,
        brokers,
        clusterId: gateway.clusterId,
        controllerId: listed.has(m.controllerId) ? m.controllerId : (brokers[0]?.nodeId ?? -1),
        topics: m.topics.map((t) => topicAnswer(t, ctx.apiVersion)),
        clusterAuthorizedOperations: NOT_REQUESTED,
      };
    },
    errorResponse: (request, code) => ({
      throttleTimeMs: 0,
      brokers: [],
      clusterId: gateway.clusterId,
      controllerId: -1,
      topics: (request.topics ?? []).map((t) => ({ errorCode: code, name: t.name, isInternal: false, partitions: [], topicAuthorizedOperations: NOT_REQUESTED })),
      clusterAuthorizedOperations: NOT_REQUESTED,
    }),
  };
}
