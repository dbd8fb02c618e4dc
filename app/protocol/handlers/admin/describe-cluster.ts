/**
 * DescribeCluster (60): the cluster id, the controller and the live brokers with their racks, as
 * the Java AdminClient asks for them (KIP-700). Built from the same broker-side Metadata answer
 * as Metadata itself (no topics), so both APIs list the same brokers at the same listeners.
 *
 *   DescribeClusterRequest  => include_cluster_authorized_operations   (flexible from v0)
 *   DescribeClusterResponse => throttle error_code error_message cluster_id controller_id
 *                              [broker_id host port rack] cluster_authorized_operations
 *
 * Only v0 is served: v1 adds KIP-919's endpoint type (controllers), which a broker answers with
 * UNSUPPORTED_ENDPOINT_TYPE unless asked for brokers, and no client we serve sends it.
 * Authorized operations are not computed (Kafka's "not requested", -2147483648).
 */
import type { BrokerAnswer, ClientMetadataResponse } from '../../../core/engine.js';
import type { ApiHandler } from '../../api-handler.js';
import { ApiKey } from '../../generated/index.js';
import { ADVERTISED_VERSIONS } from '../api-versions.js';
import { answered } from '../broker-gateway.js';
import type { AdminGateway } from './gateway.js';

const NOT_REQUESTED = -2147483648;

export function describeClusterHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.DescribeCluster> {
  return {
    apiKey: ApiKey.DescribeCluster,
    advertised: ADVERTISED_VERSIONS[ApiKey.DescribeCluster]!,
    async handle() {
      const answer = await gateway.call<BrokerAnswer<ClientMetadataResponse>>((done) =>
        gateway.engine.metadataRequest(gateway.brokerId, { type: 'metadata', topics: [] }, done),
      );
      const m = await answered(answer);
      const listeners = gateway.engine.listenerAddresses();
      const brokers = m.brokers.flatMap((b) => {
        const at = listeners.get(b.id);
        return at ? [{ brokerId: b.id, host: at.host, port: at.port, rack: b.rack }] : [];
      });
      const listed = new Set(brokers.map((b) => b.brokerId));
      return {
        throttleTimeMs: 0,
        errorCode: 0,
        errorMessage: null,
        clusterId: gateway.clusterId,
        controllerId: listed.has(m.controllerId) ? m.controllerId : (brokers[0]?.brokerId ?? -1),
        brokers,
        clusterAuthorizedOperations: NOT_REQUESTED,
      };
    },
    errorResponse: (_request, code) => ({ throttleTimeMs: 0, errorCode: code, errorMessage: null, clusterId: gateway.clusterId, controllerId: -1, brokers: [], clusterAuthorizedOperations: NOT_REQUESTED }),
  };
}
