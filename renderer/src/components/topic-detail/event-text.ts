/** One engine event of a topic in words, for the topic page's event list. */
import type { EngineEvent } from '../../../../app/api/contract.js';
import type { ChangeReasonView } from '../../../../app/api/events.js';

export interface EventLine {
  /** Short label for the tag. */
  label: string;
  /** Colour of the tag. */
  kind: 'default' | 'success' | 'info' | 'warning' | 'error';
  /** Partition it is about, when it is about one. */
  partition: number | null;
  text: string;
}

/** Kafka's reason names read as words: `broker-fenced` → "broker fenced", `isr-shrink` → "ISR shrink". */
const reason = (r: ChangeReasonView): string => r.replace(/-/g, ' ').replace(/^isr /, 'ISR ');

const ids = (xs: readonly number[]): string => `[${xs.join(', ')}]`;

export function describeEvent(e: EngineEvent): EventLine {
  switch (e.type) {
    case 'isr.shrunk':
      return {
        label: 'ISR shrunk',
        kind: 'warning',
        partition: e.partition,
        text: `ISR ${ids(e.previousIsr)} → ${ids(e.isr)}: broker ${e.removed.join(', ')} left (reason: ${reason(e.reason)}; partition epoch ${e.partitionEpoch}).`,
      };
    case 'isr.expanded':
      return {
        label: 'ISR expanded',
        kind: 'success',
        partition: e.partition,
        text: `ISR ${ids(e.previousIsr)} → ${ids(e.isr)}: broker ${e.added.join(', ')} joined (reason: ${reason(e.reason)}; partition epoch ${e.partitionEpoch}).`,
      };
    case 'leader.changed': {
      const from = e.previousLeader === -1 ? 'none' : `broker ${e.previousLeader}`;
      const to = e.leader === -1 ? 'none: the partition is offline' : `broker ${e.leader}`;
      return {
        label: e.unclean ? 'Unclean election' : e.leader === -1 ? 'Leader lost' : 'Leader changed',
        kind: e.leader === -1 || e.unclean ? 'error' : 'info',
        partition: e.partition,
        text: `Leader ${from} → ${to} (leader epoch ${e.leaderEpoch}; reason: ${reason(e.reason)})${e.unclean ? '. Chosen from outside the ISR: records it lacks are lost' : ''}.`,
      };
    }
    case 'replica.truncated':
      return {
        label: 'Truncated',
        kind: 'error',
        partition: e.partition,
        text: `Broker ${e.brokerId} truncated its log from offset ${e.fromOffset} to ${e.toOffset} (${Math.max(0, e.fromOffset - e.toOffset)} offsets removed; ${
          e.reason === 'diverging-epoch' ? 'they diverged from the leader' : e.reason === 'power-loss' ? 'its unflushed tail was lost with the power' : 'out of the leader’s range'
        }, leader epoch ${e.leaderEpoch}).`,
      };
    case 'replica.offline':
      return { label: 'Replica offline', kind: 'error', partition: e.partition, text: `The replica on broker ${e.brokerId} went offline: ${e.errorCode}: ${e.message}` };
    case 'reassignment.changed':
      return {
        label: `Reassignment ${e.status}`,
        kind: e.status === 'cancelled' ? 'warning' : 'info',
        partition: e.partition,
        text: `Replicas ${ids(e.replicas)}${e.addingReplicas.length ? `, adding ${ids(e.addingReplicas)}` : ''}${e.removingReplicas.length ? `, removing ${ids(e.removingReplicas)}` : ''}.`,
      };
    case 'partitions.added':
      return { label: 'Partitions added', kind: 'info', partition: null, text: `The topic grew from ${e.previousCount} to ${e.totalCount} partitions.` };
    case 'config.changed':
      return {
        label: 'Config',
        kind: 'default',
        partition: null,
        text: e.value === null ? `${e.name} override deleted: back to its inherited value.` : `${e.name} set to ${e.value}.`,
      };
    case 'topic.created':
      return { label: 'Created', kind: 'success', partition: null, text: `Topic created with ${e.partitions} partitions, replication factor ${e.replicationFactor}.` };
    case 'topic.deleted':
      return { label: 'Deleted', kind: 'error', partition: null, text: 'Topic deleted.' };
    case 'broker.stateChanged':
      return {
        label: `Broker ${e.brokerId}`,
        kind: e.state === 'running' ? 'success' : e.state === 'killed' || e.state === 'power-lost' || e.state === 'storage-failed' ? 'error' : 'warning',
        partition: null,
        text: `Broker ${e.brokerId} (hosts replicas of this topic): ${e.previous} → ${e.state} (${e.reason}).`,
      };
    default:
      return { label: e.type, kind: 'default', partition: 'partition' in e && typeof e.partition === 'number' ? e.partition : null, text: e.type };
  }
}
