/**
 * Consumer-group steps in Kafka's bytes on a {@link WireSim}: requests started without waiting
 * (several members' JoinGroups are parked on the coordinator at once, each on a connection of its
 * own), the virtual clock run until they settle, and a group brought to Stable the way a Java or
 * kafkajs consumer does it (FindCoordinator, JoinGroup v5 with MEMBER_ID_REQUIRED, the leader's
 * SyncGroup with the assignment, the followers' empty SyncGroup).
 */
import { groupRecordCodec } from '../group-records.js';
import { ApiKey, type ApiKeyNumber, type ApiMessages } from '../generated/index.js';
import type { Init } from '../runtime/index.js';
import { readResponse, requestFrame } from './frames.js';
import type { WireSim } from './wire-sim.js';

/** Start one request on broker `brokerId`'s dispatcher; resolves with the decoded response. */
export async function send<K extends ApiKeyNumber>(w: WireSim, brokerId: number, apiKey: K, version: number, body: Init<ApiMessages[K]['request']>, clientId = 'test'): Promise<ApiMessages[K]['response']> {
  const outcome = await w.dispatcher(brokerId).dispatch(requestFrame(apiKey, version, body, { clientId }).subarray(4));
  if (outcome.kind !== 'respond') throw new Error(`expected a response, got ${JSON.stringify(outcome)}`);
  return readResponse(apiKey, version, outcome.parts).body;
}

/** Run the virtual clock until `p` settles (at most `maxMs`). */
export async function settle<T>(w: WireSim, p: Promise<T>, maxMs = 60_000): Promise<T> {
  const r = await w.drive(p, maxMs);
  if (r === 'pending') throw new Error(`no answer within ${maxMs} ms of virtual time`);
  return r;
}

/**
 * FindCoordinator v2 through `via` until a coordinator is named (other than `not`: a killed
 * coordinator stays named until the controller fences its broker and moves the leadership).
 */
export async function coordinatorOf(w: WireSim, groupId: string, via = 1, not = -1): Promise<{ nodeId: number; host: string; port: number }> {
  for (let i = 0; i < 600; i++) {
    const r = await settle(w, send(w, via, ApiKey.FindCoordinator, 2, { key: groupId, keyType: 0 }));
    if (r.errorCode === 0 && r.nodeId !== not) return r;
    w.sim.advance(100);
  }
  throw new Error(`no coordinator for ${groupId}`);
}

export const subscription = (topics: string[]): Uint8Array => groupRecordCodec.encodeSubscription(topics);
export const assignment = (topic: string, partitions: number[]): Uint8Array => groupRecordCodec.encodeAssignment([{ topic, partitions }]);

export interface StableMember {
  clientId: string;
  memberId: string;
  generationId: number;
  leader: boolean;
  partitions: number[];
}

/**
 * `clientIds.length` members join `groupId` together on `coordinator` (JoinGroup v5, SyncGroup v3)
 * and the leader deals the topic's `partitionCount` partitions round robin.
 */
export async function stableGroup(w: WireSim, coordinator: number, groupId: string, topic: string, partitionCount: number, clientIds: string[]): Promise<StableMember[]> {
  const join = (clientId: string, memberId: string) =>
    send(w, coordinator, ApiKey.JoinGroup, 5, { groupId, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 30_000, memberId, groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'roundrobin', metadata: subscription([topic]) }] }, clientId);
  const ids = await settle(w, Promise.all(clientIds.map((c) => join(c, ''))));
  if (ids.some((r) => r.errorCode !== 79)) throw new Error(`expected MEMBER_ID_REQUIRED, got ${ids.map((r) => r.errorCode).join()}`);
  const joined = await settle(w, Promise.all(clientIds.map((c, i) => join(c, ids[i]!.memberId))));
  const leader = joined.find((r) => r.leader === r.memberId)!;
  const dealt = new Map<string, number[]>(leader.members.map((m) => [m.memberId, []]));
  const order = [...dealt.keys()].sort();
  for (let p = 0; p < partitionCount; p++) dealt.get(order[p % order.length]!)!.push(p);
  const synced = await settle(
    w,
    Promise.all(
      joined.map((r, i) =>
        send(w, coordinator, ApiKey.SyncGroup, 3, {
          groupId,
          generationId: r.generationId,
          memberId: r.memberId,
          groupInstanceId: null,
          assignments: r === leader ? [...dealt].map(([memberId, ps]) => ({ memberId, assignment: assignment(topic, ps) })) : [],
        }, clientIds[i]),
      ),
    ),
  );
  return joined.map((r, i) => {
    if (synced[i]!.errorCode !== 0) throw new Error(`SyncGroup answered ${synced[i]!.errorCode}`);
    const got = groupRecordCodec.assignedPartitions(synced[i]!.assignment) ?? [];
    return { clientId: clientIds[i]!, memberId: r.memberId, generationId: r.generationId, leader: r === leader, partitions: got.flatMap((t) => t.partitions) };
  });
}
