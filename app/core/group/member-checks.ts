/**
 * What the classic protocol checks of the member behind a request, and the member ids it hands
 * out (Kafka's GroupCoordinator: validateCurrentMember, the group.max.size admission of JoinGroup,
 * the ids of new members).
 *
 * Apart from the state machine (membership.ts): these read a group and change nothing, so
 * JoinGroup, Heartbeat and LeaveGroup share them without sharing the machine's state.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { Random } from '../random.js';
import type { ClassicGroup } from './group.js';

/** A new member's id: the client id or the instance id, then a random UUID drawn from `r`. */
export function generateMemberId(r: Random, prefix: string): string {
  const hex = (n: number): string => Array.from({ length: n }, () => r.nextInt(16).toString(16)).join('');
  const variant = (8 + r.nextInt(4)).toString(16);
  return `${prefix}-${hex(8)}-${hex(4)}-4${hex(3)}-${variant}${hex(3)}-${hex(12)}`;
}

/** Whether JoinGroup may take this member without going past group.max.size. */
export function acceptJoiningMember(group: ClassicGroup, memberId: string, maxSize: number): boolean {
  switch (group.state) {
    case 'Empty':
    case 'Dead':
      return true;
    case 'PreparingRebalance':
      return (group.has(memberId) && group.get(memberId).awaitingJoin !== null) || group.numAwaitingJoin < maxSize;
    default:
      return group.has(memberId) || group.size < maxSize;
  }
}

/** Kafka's validateCurrentMember: the instance id (if any) maps to this member id, which exists. */
export function validateCurrentMember(group: ClassicGroup, memberId: string, groupInstanceId: string | null): KafkaErrorName | null {
  if (groupInstanceId !== null) {
    const current = group.staticMembers.get(groupInstanceId);
    if (current === undefined) return 'UNKNOWN_MEMBER_ID';
    if (current !== memberId) return 'FENCED_INSTANCE_ID';
  }
  return group.has(memberId) ? null : 'UNKNOWN_MEMBER_ID';
}
