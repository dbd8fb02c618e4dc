/**
 * Drill steps for consumer groups: a topic for a group to consume, the in-app consumer group
 * (`consumers.*`), waits on what `groups.describe` reports (the group caught up, a new
 * coordinator), and faults on the group's coordinator. The group of a run is named after its
 * topic (`drill-<n>-consumers`); the coordinator and the offsets it had committed are remembered
 * per run, so a later step can check that a new coordinator kept them.
 */
import type { GroupView } from '../../../../app/api/contract.js';
import { acknowledgedRecords, offsetRanges } from './data-loss.js';
import { StepError, value, type DrillContext, type DrillStep } from './runner.js';
import { nextDrillTopicName } from './steps.js';

/** The in-app group of a run. */
export const groupOf = (ctx: DrillContext): string => `${ctx.topic}-consumers`;

/** What a run remembers of its group: the committed offsets when the coordinator was faulted. */
const remembered = new WeakMap<DrillContext, { coordinator: number; offsetsPartition: number; committed: Map<number, number>; generations: number[] }>();

const committedOf = (g: GroupView): Map<number, number> => new Map(g.partitions.filter((p) => p.committedOffset !== null).map((p) => [p.partition, p.committedOffset!]));
const offsetsText = (m: Map<number, number>): string => [...m].sort((a, b) => a[0] - b[0]).map(([p, o]) => `${p}:${o}`).join(' ');

/** The group as `groups.describe` shows it, or null while no coordinator can answer (a failover). */
async function describeOrNull(ctx: DrillContext): Promise<GroupView | null> {
  const r = await ctx.call('groups.describe', { groupId: groupOf(ctx) });
  if (r.ok) return r.value;
  if (r.error.retriable || r.error.code === 'GROUP_ID_NOT_FOUND') return null;
  throw new StepError(r.error.code, r.error.message);
}

/** Create `drill-<n>` with `partitions` partitions, RF 3 and min.insync.replicas 2; the console watches partition 0. */
export function createGroupTopicStep(partitions: number): DrillStep {
  return {
    title: `Create topic drill-<n>: ${partitions} partitions, RF 3, min.insync.replicas 2`,
    kind: 'action',
    async run(ctx) {
      const name = nextDrillTopicName((await value(ctx, 'topics.list', {})).map((t) => t.name));
      const t = await value(ctx, 'topics.create', { name, partitions, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } });
      ctx.topic = t.name;
      ctx.partition = 0;
      ctx.onTopic?.(t.name, 0);
      return { status: 'ok', summary: `Created ${t.name}: leaders ${t.partitions.map((p) => `${p.partition}→${p.leader}`).join(', ')}.` };
    },
  };
}

/** Produce `count` records with acks=all to every partition of the drill topic. */
export function produceToEveryPartitionStep(count: number, why?: string): DrillStep {
  return {
    title: `Produce ${count} records with acks=all to every partition`,
    kind: 'action',
    async run(ctx) {
      const t = await value(ctx, 'topics.describe', { name: ctx.topic });
      const done: string[] = [];
      for (const p of t.partitions) {
        const values = Array.from({ length: count }, (_, i) => `${ctx.topic}/${p.partition}/${Date.now()}/${i}`);
        const r = await value(ctx, 'records.produce', { topic: ctx.topic, partition: p.partition, acks: 'all', records: values.map((v) => ({ value: v })), timeoutMs: 30_000 });
        if (r.errorCode !== 'NONE') throw new StepError(r.errorCode, `${ctx.topic}-${p.partition}: ${r.errorMessage ?? r.errorCode}`);
        const acked = acknowledgedRecords(ctx.topic, 'all', r, values);
        if (p.partition === ctx.partition) {
          ctx.acknowledged.push(...acked);
          ctx.onAcknowledged?.(acked);
        }
        done.push(`${p.partition}: ${offsetRanges(acked.map((a) => a.offset))}`);
      }
      return { status: 'ok', summary: `Acknowledged per partition ${done.join('; ')}.${why ? ` ${why}` : ''}` };
    },
  };
}

/** Start the run's in-app consumer group on the drill topic. */
export function startConsumersStep(members: number): DrillStep {
  return {
    title: `Start a consumer group of ${members} members on the topic (range assignor, auto-commit every 5 s)`,
    kind: 'action',
    async run(ctx) {
      const g = await value(ctx, 'consumers.start', { groupId: groupOf(ctx), topics: [ctx.topic], members, sessionTimeoutMs: 30_000 });
      return { status: 'ok', summary: `Group ${g.groupId}: ${g.members.map((m) => m.clientId).join(', ')} look for their coordinator (FindCoordinator creates __consumer_offsets if needed).` };
    },
  };
}

/** Wait until the group is Stable and has committed every partition's log end (lag 0); remembers its coordinator. */
export function waitGroupCaughtUp(title: string, maxClusterMs: number): DrillStep {
  return {
    title,
    kind: 'wait',
    maxClusterMs,
    onTimeout: 'The group did not catch up: see its members on the Groups page.',
    async check(ctx) {
      const g = await describeOrNull(ctx);
      if (!g || g.state !== 'Stable' || g.partitions.length === 0 || g.partitions.some((p) => p.lag !== 0 || p.logEndOffset <= 0)) return null;
      const members = (await value(ctx, 'consumers.list', {})).find((x) => x.groupId === g.groupId)?.members ?? [];
      const before = remembered.get(ctx);
      const generations = [...new Set(members.map((m) => m.generationId))];
      remembered.set(ctx, { coordinator: g.coordinatorId, offsetsPartition: g.offsetsPartition, committed: committedOf(g), generations: before?.generations ?? generations });
      const rebalance = before ? (before.generations.join() === generations.join() ? ' Same generation as before the failover: no rebalance was needed.' : ` Generation ${before.generations.join()} → ${generations.join()}: the members rejoined.`) : '';
      return {
        status: 'ok',
        summary: `Stable with ${g.members.length} members on coordinator ${g.coordinatorId} (leader of __consumer_offsets-${g.offsetsPartition}); committed = log end on every partition (${offsetsText(committedOf(g))}), lag 0.${rebalance}`,
      };
    },
  };
}

/** Kill the broker coordinating the run's group (remembered by the last wait). */
export function killCoordinatorStep(): DrillStep {
  return {
    title: 'Kill the group coordinator’s broker',
    kind: 'action',
    async run(ctx) {
      const r = remembered.get(ctx);
      if (!r) throw new StepError('INVALID_STATE', 'No coordinator remembered: run the earlier steps first.');
      ctx.roles.oldLeader = [r.coordinator];
      await value(ctx, 'brokers.kill', { brokerId: r.coordinator });
      return { status: 'ok', summary: `Killed broker ${r.coordinator}, the leader of __consumer_offsets-${r.offsetsPartition}. Committed offsets then: ${offsetsText(r.committed)}.` };
    },
  };
}

/** Wait until another broker coordinates the group, with every offset committed before the kill. */
export function waitNewCoordinator(maxClusterMs: number): DrillStep {
  return {
    title: 'Wait for a new coordinator: the new leader of the offsets partition loads the group from its log',
    kind: 'wait',
    maxClusterMs,
    onTimeout: 'No broker took the group over: is a replica of its __consumer_offsets partition still in the ISR?',
    async check(ctx) {
      const r = remembered.get(ctx);
      if (!r) throw new StepError('INVALID_STATE', 'No coordinator remembered: run the earlier steps first.');
      const g = await describeOrNull(ctx);
      if (!g || g.coordinatorId === r.coordinator) return null;
      const now = committedOf(g);
      const lost = [...r.committed].filter(([p, o]) => (now.get(p) ?? -1) < o);
      if (lost.length > 0) {
        return { status: 'failed', summary: `Broker ${g.coordinatorId} coordinates the group but lost committed offsets: ${lost.map(([p, o]) => `${p}: ${o} → ${now.get(p) ?? 'none'}`).join(', ')}.` };
      }
      return {
        status: 'ok',
        summary: `Broker ${g.coordinatorId} now leads __consumer_offsets-${g.offsetsPartition} and coordinates the group (${g.state}); every committed offset survived (${offsetsText(now)}).`,
      };
    },
  };
}

/** Stop the run's in-app consumers (they commit and leave). */
export function stopConsumersStep(): DrillStep {
  return {
    title: 'Stop the consumers (they commit and leave the group)',
    kind: 'action',
    async run(ctx) {
      await value(ctx, 'consumers.stop', { groupId: groupOf(ctx) });
      return { status: 'ok', summary: `Group ${groupOf(ctx)} is left Empty with its committed offsets (see the Groups page to reset or delete it).` };
    },
  };
}
