/**
 * One readable line per engine event for the recent-events feed, its severity (the tag colour)
 * and the group the feed's filter knows it by. Every event type of app/api/events.ts is covered
 * (`Record<EventName, …>` below fails to compile when one is added without a line here).
 */
import type { EngineEvent, EventMap, EventName } from '../../../../app/api/contract.js';
import type { ChangeReasonView } from '../../../../app/api/events.js';

export type Severity = 'default' | 'success' | 'info' | 'warning' | 'error';
export type EventGroup = 'brokers' | 'replication' | 'topics' | 'reassignments';

const REASON: Record<ChangeReasonView, string> = {
  create: 'topic created',
  'isr-shrink': 'follower fell behind',
  'isr-expand': 'follower caught up',
  'broker-fenced': 'broker fenced',
  'broker-unfenced': 'broker unfenced',
  'controlled-shutdown': 'controlled shutdown',
  'broker-reregistered': 'broker re-registered',
  'preferred-election': 'preferred election',
  'auto-rebalance': 'auto leader rebalance',
  'unclean-election': 'unclean election',
  reassignment: 'reassignment',
  'reassignment-cancel': 'reassignment cancelled',
  'config-change': 'config change',
};

const list = (ids: number[]) => `[${ids.join(', ')}]`;
const tp = (e: { topic: string; partition: number }) => `${e.topic}-${e.partition}`;
const broker = (id: number | null) => (id === null || id < 0 ? 'none' : `broker ${id}`);

/** Whether a state change's reason adds to its new state ("killed" → killed does not; "registration changed" does). */
function saysMore(reason: string, state: string): boolean {
  const stem = reason.toLowerCase().replace(/ /g, '-').replace(/(ed|ing)$/, '');
  return !state.startsWith(stem);
}

type Line<K extends EventName> = (e: EventMap[K] & { atMs: number }) => string;
type Rule<K extends EventName> = { group: EventGroup; text: Line<K>; severity: (e: EventMap[K]) => Severity };

const RULES: { [K in EventName]: Rule<K> } = {
  'broker.stateChanged': {
    group: 'brokers',
    text: (e) => `Broker ${e.brokerId}: ${e.previous} → ${e.state}${saysMore(e.reason, e.state) ? ` (${e.reason})` : ''}`,
    severity: (e) => (e.state === 'running' ? 'success' : e.state === 'killed' || e.state === 'power-lost' || e.state === 'storage-failed' ? 'error' : e.state === 'fenced' ? 'warning' : 'info'),
  },
  'controller.changed': {
    group: 'brokers',
    text: (e) =>
      e.controllerId === null
        ? `No active controller: ${broker(e.previousControllerId)} lost it (${e.reason})`
        : e.previousControllerId === null
          ? `Controller is now on broker ${e.controllerId} (${e.reason})`
          : `Controller moved from broker ${e.previousControllerId} to broker ${e.controllerId} (${e.reason})`,
    severity: (e) => (e.controllerId === null ? 'warning' : 'info'),
  },
  'isr.shrunk': {
    group: 'replication',
    text: (e) => `${tp(e)}: ISR shrank ${list(e.previousIsr)} → ${list(e.isr)}, removed ${list(e.removed)} (${REASON[e.reason]})`,
    severity: () => 'warning',
  },
  'isr.expanded': {
    group: 'replication',
    text: (e) => `${tp(e)}: ISR grew ${list(e.previousIsr)} → ${list(e.isr)}, added ${list(e.added)} (${REASON[e.reason]})`,
    severity: () => 'success',
  },
  'leader.changed': {
    group: 'replication',
    text: (e) =>
      e.leader < 0
        ? `${tp(e)} is offline: no leader (was ${broker(e.previousLeader)}; ${REASON[e.reason]})`
        : `${tp(e)}: leader ${broker(e.previousLeader)} → ${broker(e.leader)}, epoch ${e.leaderEpoch}${e.unclean ? ', UNCLEAN (out-of-sync replica, records may be lost)' : ''} (${REASON[e.reason]})`,
    severity: (e) => (e.leader < 0 || e.unclean ? 'error' : 'info'),
  },
  'highWatermark.advanced': {
    group: 'replication',
    text: (e) => `${tp(e)}: high watermark ${e.previous} → ${e.highWatermark} on leader ${e.brokerId}`,
    severity: () => 'default',
  },
  'replica.truncated': {
    group: 'replication',
    text: (e) =>
      `${tp(e)} on broker ${e.brokerId}: truncated from offset ${e.fromOffset} to ${e.toOffset} (${
        e.reason === 'diverging-epoch' ? `diverged from the leader at epoch ${e.leaderEpoch}` : e.reason === 'power-loss' ? 'unflushed tail lost in a power loss' : 'offset out of range'
      })`,
    severity: () => 'warning',
  },
  'replica.offline': {
    group: 'replication',
    text: (e) => `${tp(e)} on broker ${e.brokerId} went offline: ${e.errorCode} — ${e.message}`,
    severity: () => 'error',
  },
  'broker.storageFailed': {
    group: 'brokers',
    text: (e) => `Broker ${e.brokerId} storage failed and halted: ${e.errorCode} — ${e.message}`,
    severity: () => 'error',
  },
  'topic.created': {
    group: 'topics',
    text: (e) => `Topic ${e.topic} created: ${e.partitions} partition${e.partitions === 1 ? '' : 's'}, replication factor ${e.replicationFactor}`,
    severity: () => 'success',
  },
  'topic.deleted': { group: 'topics', text: (e) => `Topic ${e.topic} deleted`, severity: () => 'info' },
  'partitions.added': { group: 'topics', text: (e) => `Topic ${e.topic} grew from ${e.previousCount} to ${e.totalCount} partitions`, severity: () => 'info' },
  'config.changed': {
    group: 'topics',
    text: (e) => {
      const where = e.resourceType === 'topic' ? `topic ${e.resourceName}` : e.resourceName === '' ? 'cluster-wide broker default' : `broker ${e.resourceName}`;
      return e.value === null ? `${e.name} on ${where} deleted (back to its inherited value)` : `${e.name} = ${e.value} on ${where}`;
    },
    severity: () => 'info',
  },
  'reassignment.progress': {
    group: 'reassignments',
    text: (e) =>
      `${tp(e)} reassignment ${Math.round(e.percent)}%: ${e.addingReplicas.map((r) => `broker ${r.brokerId} at ${r.logEndOffset}/${e.leaderLogEndOffset}${r.inIsr ? ' (in ISR)' : ''}`).join(', ') || 'no replicas being added'}`,
    severity: () => 'default',
  },
  'reassignment.changed': {
    group: 'reassignments',
    text: (e) => {
      const moves = [e.addingReplicas.length ? `adding ${list(e.addingReplicas)}` : '', e.removingReplicas.length ? `removing ${list(e.removingReplicas)}` : ''].filter(Boolean).join(', ');
      return `${tp(e)} reassignment ${e.status}: replicas ${list(e.replicas)}${moves ? `, ${moves}` : ''}`;
    },
    severity: (e) => (e.status === 'completed' ? 'success' : e.status === 'cancelled' ? 'warning' : 'info'),
  },
  'metrics.sampled': {
    group: 'brokers',
    text: (e) => `Throughput: ${e.produceRecordsPerSec} records/s produced, ${e.consumeRecordsPerSec} records/s consumed`,
    severity: () => 'default',
  },
};

function rule(e: EngineEvent): Rule<EventName> {
  return RULES[e.type] as unknown as Rule<EventName>;
}

/** The feed's line for an event (without its time). */
export function describeEvent(e: EngineEvent): string {
  return rule(e).text(e as never);
}

export function eventSeverity(e: EngineEvent): Severity {
  return rule(e).severity(e as never);
}

export function eventGroup(e: EngineEvent): EventGroup {
  return rule(e).group;
}

/** Short label of the event type for its tag: `broker.stateChanged` → `broker`. */
export function eventLabel(e: EngineEvent): string {
  const [noun, verb] = e.type.split('.') as [string, string];
  if (noun === 'broker' && verb === 'storageFailed') return 'storage';
  if (noun === 'highWatermark') return 'HW';
  if (noun === 'isr') return 'ISR';
  return noun;
}

/**
 * The feed after seeding it from `events.recent` (oldest first) while live events may already
 * have arrived: everything fetched, then the live events it does not include (later than its last
 * event, or at that same ms but not among the fetched ones). Oldest first, like the feed.
 */
export function mergeFeed(fetched: EngineEvent[], live: EngineEvent[]): EngineEvent[] {
  const last = fetched.at(-1)?.atMs ?? -Infinity;
  const sameMs = new Set(fetched.filter((e) => e.atMs === last).map((e) => JSON.stringify(e)));
  return [...fetched, ...live.filter((e) => e.atMs > last || (e.atMs === last && !sameMs.has(JSON.stringify(e))))];
}
