/**
 * The one narrator of engine events: a sentence per event, its tag, its severity (the tag's
 * colour), the group the overview's filter knows it by, and the partition it is about. The
 * overview feed, the topic page's event list and the drills timeline all read it, so an event
 * reads the same wherever it shows. Every event type of app/api/events.ts is covered (the
 * `Record` over `EventName` below fails to compile when one is added without a line here).
 *
 * Wording: a partition is `topic-partition` as Kafka's tools write it, brokers are named by id,
 * and a change's reason is the engine's reason name (`broker-fenced`, `isr-shrink`, …) so a line
 * can be matched with the same event in the API or a log.
 */
import type { EngineEvent, EventMap, EventName, TwinStep } from '../../../app/api/contract.js';

export type Severity = 'default' | 'success' | 'info' | 'warning' | 'error';
export type EventGroup = 'brokers' | 'replication' | 'topics' | 'reassignments' | 'groups' | 'transactions';

export interface Narration {
  /** Short tag: "ISR shrunk", "Unclean election". */
  label: string;
  severity: Severity;
  group: EventGroup;
  /** The partition it is about, when it is about one. */
  partition: number | null;
  /** The sentence, without its time. */
  text: string;
}

const ids = (xs: readonly number[]): string => `[${xs.join(', ')}]`;
const tp = (e: { topic: string; partition: number }): string => `${e.topic}-${e.partition}`;
const who = (id: number | null): string => (id === null || id < 0 ? 'none' : String(id));
const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** Whether a state change's reason adds to its new state ("killed" → killed does not; "registration changed" does). */
function saysMore(reason: string, state: string): boolean {
  const stem = reason.toLowerCase().replace(/ /g, '-').replace(/(ed|ing)$/, '');
  return !state.startsWith(stem);
}

const DOWN = new Set(['killed', 'power-lost', 'storage-failed']);

type Rule<K extends EventName> = {
  group: EventGroup;
  label: (e: EventMap[K]) => string;
  severity: (e: EventMap[K]) => Severity;
  text: (e: EventMap[K]) => string;
};

const RULES: { [K in EventName]: Rule<K> } = {
  'broker.stateChanged': {
    group: 'brokers',
    label: () => 'Broker',
    severity: (e) => (e.state === 'running' ? 'success' : DOWN.has(e.state) ? 'error' : e.state === 'fenced' ? 'warning' : 'info'),
    text: (e) => `Broker ${e.brokerId}: ${e.previous} → ${e.state}${saysMore(e.reason, e.state) ? ` (${e.reason})` : ''}`,
  },
  'controller.changed': {
    group: 'brokers',
    label: () => 'Controller',
    severity: (e) => (e.controllerId === null ? 'warning' : 'info'),
    text: (e) =>
      e.controllerId === null
        ? `No active controller: broker ${who(e.previousControllerId)} lost it (${e.reason})`
        : e.previousControllerId === null
          ? `Controller is now on broker ${e.controllerId} (${e.reason})`
          : `Controller moved from broker ${e.previousControllerId} to broker ${e.controllerId} (${e.reason})`,
  },
  'isr.shrunk': {
    group: 'replication',
    label: () => 'ISR shrunk',
    severity: () => 'warning',
    text: (e) => `${tp(e)}: ISR ${ids(e.previousIsr)} → ${ids(e.isr)}, removed ${e.removed.join(', ')} (${e.reason}), partition epoch ${e.partitionEpoch}`,
  },
  'isr.expanded': {
    group: 'replication',
    label: () => 'ISR expanded',
    severity: () => 'success',
    text: (e) => `${tp(e)}: ISR ${ids(e.previousIsr)} → ${ids(e.isr)}, added ${e.added.join(', ')} (${e.reason}), partition epoch ${e.partitionEpoch}`,
  },
  'leader.changed': {
    group: 'replication',
    label: (e) => (e.unclean ? 'Unclean election' : e.leader < 0 ? 'Leader lost' : 'Leader changed'),
    severity: (e) => (e.leader < 0 || e.unclean ? 'error' : 'info'),
    text: (e) =>
      e.leader < 0
        ? `${tp(e)}: leader ${who(e.previousLeader)} → none, epoch ${e.leaderEpoch} (${e.reason}): the partition is offline`
        : `${tp(e)}: leader ${who(e.previousLeader)} → ${e.leader}, epoch ${e.leaderEpoch} (${e.reason})${e.unclean ? ': chosen from outside the ISR, records it lacks are lost' : ''}`,
  },
  'highWatermark.advanced': {
    group: 'replication',
    label: () => 'HW',
    severity: () => 'default',
    text: (e) => `${tp(e)}: high watermark ${e.previous} → ${e.highWatermark} on leader ${e.brokerId}`,
  },
  'replica.truncated': {
    group: 'replication',
    label: () => 'Truncated',
    severity: () => 'error',
    text: (e) =>
      `${tp(e)}: broker ${e.brokerId} truncated its log from offset ${e.fromOffset} to ${e.toOffset}, removing ${plural(Math.max(0, e.fromOffset - e.toOffset), 'offset')} (${
        e.reason === 'diverging-epoch' ? `diverged from the leader at epoch ${e.leaderEpoch}` : e.reason === 'power-loss' ? 'its unflushed tail was lost with the power' : 'out of the leader’s range'
      })`,
  },
  'replica.offline': {
    group: 'replication',
    label: () => 'Replica offline',
    severity: () => 'error',
    text: (e) => `${tp(e)}: the replica on broker ${e.brokerId} went offline: ${e.errorCode}: ${e.message}`,
  },
  'log.cleaned': {
    group: 'replication',
    label: () => 'Cleaned',
    severity: () => 'default',
    text: (e) =>
      `${tp(e)}: broker ${e.brokerId}'s log cleaner cleaned offsets ${e.firstDirtyOffset}–${e.endOffset - 1}: kept ${plural(e.recordsWritten, 'record')} of ${e.recordsRead} (${e.bytesRead - e.bytesWritten} bytes freed)` +
      `${e.tombstonesRemoved > 0 ? `, removed ${plural(e.tombstonesRemoved, 'tombstone')} past delete.retention.ms` : ''}${e.tombstonesKept > 0 ? `, ${plural(e.tombstonesKept, 'tombstone')} kept for delete.retention.ms` : ''}`,
  },
  'log.uncleanable': {
    group: 'replication',
    label: () => 'Uncleanable',
    severity: () => 'error',
    text: (e) => `${tp(e)}: broker ${e.brokerId}'s log cleaner failed and leaves this log until the broker restarts: ${e.reason}`,
  },
  'broker.storageFailed': {
    group: 'brokers',
    label: () => 'Storage failed',
    severity: () => 'error',
    text: (e) => `Broker ${e.brokerId}: storage failed and the broker halted: ${e.errorCode}: ${e.message}`,
  },
  'topic.created': {
    group: 'topics',
    label: () => 'Topic created',
    severity: () => 'success',
    text: (e) => `Topic ${e.topic} created: ${plural(e.partitions, 'partition')}, replication factor ${e.replicationFactor}`,
  },
  'topic.deleted': { group: 'topics', label: () => 'Topic deleted', severity: () => 'info', text: (e) => `Topic ${e.topic} deleted` },
  'partitions.added': {
    group: 'topics',
    label: () => 'Partitions added',
    severity: () => 'info',
    text: (e) => `Topic ${e.topic} grew from ${e.previousCount} to ${e.totalCount} partitions`,
  },
  'config.changed': {
    group: 'topics',
    label: () => 'Config',
    severity: () => 'info',
    text: (e) => {
      const where = e.resourceType === 'topic' ? `topic ${e.resourceName}` : e.resourceName === '' ? 'the cluster-wide broker default' : `broker ${e.resourceName}`;
      return e.value === null ? `${e.name} on ${where} deleted: back to its inherited value` : `${e.name} = ${e.value} on ${where}`;
    },
  },
  'security.changed': {
    group: 'brokers',
    label: (e) => (e.kind === 'acl' ? 'ACL' : e.kind === 'scram-credential' ? 'User' : 'Quota'),
    severity: () => 'info',
    text: (e) => e.description,
  },
  'feature.updated': {
    group: 'brokers',
    label: () => 'Feature',
    severity: () => 'info',
    text: (e) => `${e.feature} finalized at level ${e.level} (was ${e.previousLevel})`,
  },

  'reassignment.progress': {
    group: 'reassignments',
    label: () => 'Reassignment',
    severity: () => 'default',
    text: (e) =>
      `${tp(e)}: reassignment ${Math.round(e.percent)}%: ${e.addingReplicas.map((r) => `broker ${r.brokerId} at ${r.logEndOffset}/${e.leaderLogEndOffset}${r.inIsr ? ' (in ISR)' : ''}`).join(', ') || 'no replicas being added'}`,
  },
  'reassignment.changed': {
    group: 'reassignments',
    label: (e) => `Reassignment ${e.status}`,
    severity: (e) => (e.status === 'completed' ? 'success' : e.status === 'cancelled' ? 'warning' : 'info'),
    text: (e) => {
      const moves = [e.addingReplicas.length ? `adding ${ids(e.addingReplicas)}` : '', e.removingReplicas.length ? `removing ${ids(e.removingReplicas)}` : ''].filter(Boolean).join(', ');
      return `${tp(e)}: reassignment ${e.status}, replicas ${ids(e.replicas)}${moves ? `, ${moves}` : ''}`;
    },
  },
  'group.stateChanged': {
    group: 'groups',
    label: (e) => (e.state === 'PreparingRebalance' ? 'Rebalance' : e.state === 'Dead' ? 'Group gone' : 'Group'),
    severity: (e) => (e.state === 'Stable' ? 'success' : e.state === 'Dead' ? 'warning' : 'info'),
    text: (e) =>
      `Group ${e.groupId}: ${e.previous} → ${e.state}, generation ${e.generationId}, ${plural(e.members, 'member')}, on coordinator ${e.coordinatorId}${e.reason ? ` (${e.reason})` : ''}`,
  },
  'coordinator.loaded': {
    group: 'groups',
    label: () => 'Coordinator',
    severity: () => 'info',
    text: (e) =>
      `Broker ${e.brokerId} is the group coordinator of __consumer_offsets-${e.offsetsPartition} (leader epoch ${e.leaderEpoch}) and loaded ${e.groups.length === 0 ? 'no groups' : `${plural(e.groups.length, 'group')}: ${e.groups.join(', ')}`}`,
  },
  'transaction.stateChanged': {
    group: 'transactions',
    label: (e) => (e.state === 'CompleteCommit' ? 'Committed' : e.state === 'CompleteAbort' ? 'Aborted' : e.state === 'Dead' ? 'Transactional id expired' : 'Transaction'),
    severity: (e) => (e.state === 'CompleteCommit' ? 'success' : e.state === 'CompleteAbort' || e.state === 'PrepareAbort' ? 'warning' : 'info'),
    text: (e) =>
      `Transactional id ${e.transactionalId}: ${e.previous} → ${e.state}, producer ${e.producerId} epoch ${e.producerEpoch}, ${plural(e.partitions, 'partition')}, on coordinator ${e.coordinatorId}${e.reason ? ` (${e.reason})` : ''}`,
  },
  'txnCoordinator.loaded': {
    group: 'transactions',
    label: () => 'Transaction coordinator',
    severity: () => 'info',
    text: (e) =>
      `Broker ${e.brokerId} is the transaction coordinator of __transaction_state-${e.txnPartition} (coordinator epoch ${e.coordinatorEpoch}) and loaded ${plural(e.transactionalIds.length, 'transactional id')}${e.completing.length > 0 ? `; it finishes ${e.completing.join(', ')}` : ''}`,
  },
  'balance.progress': {
    group: 'reassignments',
    label: () => 'Balance plan',
    severity: () => 'info',
    text: (e) => `Balance plan ${e.planId}: ${e.goalsDone} of ${e.goals} goals optimised (${e.goal}) after ${(e.elapsedMs / 1000).toFixed(1)} s`,
  },
  'twin.progress': {
    group: 'brokers',
    label: () => 'Twin',
    severity: () => 'info',
    text: (e) => `Making ${e.twin} from ${e.source}: ${twinStepText(e.step, e.partitionsFilled, e.partitions)}`,
  },
  'cluster.opening': {
    group: 'brokers',
    label: (e) => (e.done ? 'Opened' : 'Opening'),
    severity: (e) => (e.done ? 'success' : 'info'),
    text: (e) =>
      e.done
        ? `The cluster opened after ${Math.round(e.elapsedMs / 1000)} s: ${e.brokersRunning} of ${plural(e.brokers, 'broker')} running`
        : `Opening the cluster: ${e.brokersRunning} of ${plural(e.brokers, 'broker')} running after ${Math.round(e.elapsedMs / 1000)} s`,
  },
  'metrics.sampled': {
    group: 'brokers',
    label: () => 'Throughput',
    severity: () => 'default',
    text: (e) => `Throughput: ${e.produceRecordsPerSec} records/s produced, ${e.consumeRecordsPerSec} records/s consumed`,
  },
};

/** The group the overview's filter knows the event by. */
export function groupOf(e: EngineEvent): EventGroup {
  return (RULES[e.type] as unknown as Rule<EventName> | undefined)?.group ?? 'brokers';
}

/** The event in words. */
export function narrate(e: EngineEvent): Narration {
  const rule = RULES[e.type] as unknown as Rule<EventName>;
  const x = e as never;
  return { label: rule.label(x), severity: rule.severity(x), group: rule.group, partition: 'partition' in e ? e.partition : null, text: rule.text(x) };
}

/** A twin's step as the console says it (`twin.progress`). */
export function twinStepText(step: TwinStep, filled: number, partitions: number): string {
  switch (step) {
    case 'reading-source':
      return 'reading the source';
    case 'starting-brokers':
      return 'starting the brokers';
    case 'creating-topics':
      return 'creating the topics';
    case 'filling':
      return `filling ${filled} of ${plural(partitions, 'partition')}`;
  }
}
