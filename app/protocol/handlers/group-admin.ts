/**
 * The group admin APIs on the wire: ListGroups (16), DescribeGroups (15), DeleteGroups (42). A
 * broker lists and describes only the groups it coordinates; admin clients ask every broker
 * (ListGroups) or each group's coordinator (DescribeGroups, DeleteGroups).
 *
 *   ListGroups     => states_filter(v4+) types_filter(v5+)
 *                  <= throttle_time_ms(v1+) error_code [group_id protocol_type group_state(v4+) group_type(v5+)]
 *   DescribeGroups => [group_id] include_authorized_operations(v3+)
 *                  <= throttle_time_ms(v1+) [error_code group_id group_state protocol_type protocol_data
 *                     [member_id group_instance_id(v4+) client_id client_host metadata assignment]
 *                     authorized_operations(v3+)]
 *   DeleteGroups   => [group_id]
 *                  <= throttle_time_ms [group_id error_code]
 *
 * Rules (Kafka's): a group unknown to its coordinator is described as Dead with no error; member
 * metadata and assignments are shown only for a Stable group; authorized operations are not
 * computed (Integer.MIN_VALUE, "not requested"); only the classic group type exists, so a types
 * filter naming anything else lists nothing.
 */
import type { ApiHandler } from '../api-handler.js';
import { errorCode } from '../error-codes.js';
import { ApiKey } from '../generated/index.js';
import { ADVERTISED_VERSIONS } from './api-versions.js';
import type { BrokerGateway } from './broker-gateway.js';
import { askCoordinator, AUTHORIZED_OPERATIONS_OMITTED } from './group-call.js';

/** ListGroups v4 reports each group's state; v5 its type. */
const STATE_FROM = 4;
const TYPE_FROM = 5;
const CLASSIC = 'classic';

export function listGroupsHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.ListGroups> {
  return {
    apiKey: ApiKey.ListGroups,
    advertised: ADVERTISED_VERSIONS[ApiKey.ListGroups]!,
    async handle(request, ctx) {
      const types = new Set(request.typesFilter.map((t) => t.toLowerCase()));
      const r = await askCoordinator(gateway, { api: 'listGroups', statesFilter: request.statesFilter });
      const groups = types.size > 0 && !types.has(CLASSIC) ? [] : r.groups;
      return {
        throttleTimeMs: 0,
        errorCode: errorCode(r.errorCode),
        groups: groups.map((g) => ({
          groupId: g.groupId,
          protocolType: g.protocolType,
          groupState: ctx.apiVersion >= STATE_FROM ? g.state : '',
          groupType: ctx.apiVersion >= TYPE_FROM ? CLASSIC : '',
        })),
      };
    },
    errorResponse: (_request, code) => ({ throttleTimeMs: 0, errorCode: code, groups: [] }),
  };
}

export function describeGroupsHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.DescribeGroups> {
  return {
    apiKey: ApiKey.DescribeGroups,
    advertised: ADVERTISED_VERSIONS[ApiKey.DescribeGroups]!,
    async handle(request) {
      const r = await askCoordinator(gateway, { api: 'describeGroups', groups: request.groups });
      return {
        throttleTimeMs: 0,
        groups: r.groups.map((g) => ({
          errorCode: errorCode(g.errorCode),
          groupId: g.groupId,
          groupState: g.state,
          protocolType: g.protocolType,
          protocolData: g.protocol,
          members: g.members.map((m) => ({
            memberId: m.memberId,
            groupInstanceId: m.groupInstanceId,
            clientId: m.clientId,
            clientHost: m.clientHost,
            memberMetadata: m.metadata,
            memberAssignment: m.assignment,
          })),
          authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
        })),
      };
    },
    errorResponse: (request, code) => ({
      throttleTimeMs: 0,
      groups: request.groups.map((groupId) => ({ errorCode: code, groupId, groupState: '', protocolType: '', protocolData: '', members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED })),
    }),
  };
}

export function deleteGroupsHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.DeleteGroups> {
  return {
    apiKey: ApiKey.DeleteGroups,
    advertised: ADVERTISED_VERSIONS[ApiKey.DeleteGroups]!,
    async handle(request) {
      const r = await askCoordinator(gateway, { api: 'deleteGroups', groups: request.groupsNames });
      return { throttleTimeMs: 0, results: r.results.map((g) => ({ groupId: g.groupId, errorCode: errorCode(g.errorCode) })) };
    },
    errorResponse: (request, code) => ({ throttleTimeMs: 0, results: request.groupsNames.map((groupId) => ({ groupId, errorCode: code })) }),
  };
}
