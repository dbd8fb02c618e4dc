/**
 * The step library of the drills: actions (bring every broker back, create the drill topic,
 * produce, fault brokers by role) and waits on the watched partition (a new leader, the ISR
 * without or with a role, brokers down), and the final read-back of every acknowledged record.
 * Steps remember brokers by role ("the old leader") in the run's context, so a later step faults
 * or waits for the same brokers whatever their ids.
 */
import type { BrokerView, PartitionView, TopicView } from '../../../../app/api/contract.js';
import type { Call } from '../../api/client.js';
import { BROKER_ACTION, callBrokerAction, type BrokerAction } from '../broker-actions.js';
import { acknowledgedRecords, checkAcknowledged, offsetRanges, type Acks } from './data-loss.js';
import { StepError, value, type DrillContext, type DrillStep } from './runner.js';

const DOWN_STATES = new Set(['stopped', 'killed', 'power-lost', 'storage-failed']);

async function partitionOf(ctx: DrillContext): Promise<PartitionView> {
  const t = await value(ctx, 'topics.describe', { name: ctx.topic });
  const p = t.partitions.find((x) => x.partition === ctx.partition);
  if (!p) throw new StepError('UNKNOWN_TOPIC_OR_PARTITION', `Partition ${ctx.topic}-${ctx.partition} does not exist.`);
  return p;
}

function role(ctx: DrillContext, name: RoleName): number[] {
  const ids = ctx.roles[name];
  if (!ids || ids.length === 0) throw new StepError('INVALID_STATE', `No broker remembered as "${name}": run the earlier steps first.`);
  return ids;
}

const list = (ids: number[]) => (ids.length === 0 ? 'none' : ids.join(', '));
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The next free `drill-<n>` name among the topics. */
export function nextDrillTopicName(existing: string[]): string {
  let max = 0;
  for (const name of existing) {
    const m = /^drill-(\d+)$/.exec(name);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return `drill-${max + 1}`;
}

/** Create `drill-<n>` (1 partition, RF 3) with the given topic configs. */
export async function createDrillTopic(call: Call, configs: Record<string, string>): Promise<TopicView> {
  const topics = await call('topics.list', {});
  if (!topics.ok) throw new StepError(topics.error.code, topics.error.message);
  const name = nextDrillTopicName(topics.value.map((t) => t.name));
  const created = await call('topics.create', { name, partitions: 1, replicationFactor: 3, configs });
  if (!created.ok) throw new StepError(created.error.code, created.error.message);
  return created.value;
}


/** Start stopped brokers, heal isolated ones, resume stalled fetchers. */
export function restoreEveryBroker(): DrillStep {
  return {
    title: 'Bring every broker back (start, heal, resume fetchers)',
    kind: 'action',
    async run(ctx) {
      const brokers = await value(ctx, 'brokers.list', {});
      const done: string[] = [];
      for (const b of brokers) {
        if (DOWN_STATES.has(b.state)) {
          await value(ctx, 'brokers.start', { brokerId: b.id });
          done.push(`started ${b.id}`);
        }
        if (b.isolated) {
          await value(ctx, 'brokers.heal', { brokerId: b.id });
          done.push(`healed ${b.id}`);
        }
        if (b.fetcherStalled) {
          await value(ctx, 'brokers.stallFollower', { brokerId: b.id, stalled: false });
          done.push(`resumed ${b.id}'s fetchers`);
        }
      }
      return { status: 'ok', summary: done.length ? `${done.join('; ')}.` : 'Every broker already runs with its links and fetchers up.' };
    },
  };
}

export function waitEveryBrokerRunning(): DrillStep {
  return {
    title: 'Wait until every broker is running',
    kind: 'wait',
    maxClusterMs: 60_000,
    onTimeout: 'A broker did not register with the controller.',
    async check(ctx) {
      const brokers: BrokerView[] = await value(ctx, 'brokers.list', {});
      if (brokers.every((b) => b.state === 'running')) return { status: 'ok', summary: `Brokers ${list(brokers.map((b) => b.id))} are running.` };
      return null;
    },
  };
}

export function createTopicStep(configs: Record<string, string>, describe: string): DrillStep {
  return {
    title: `Create topic drill-<n>: RF 3, ${describe}`,
    kind: 'action',
    async run(ctx) {
      const t = await createDrillTopic(ctx.call, configs);
      ctx.topic = t.name;
      ctx.partition = 0;
      ctx.onTopic?.(t.name, 0);
      const p = t.partitions[0]!;
      return { status: 'ok', summary: `Created ${t.name}: replicas [${p.replicas.join(', ')}], leader ${p.leader}, ISR [${p.isr.join(', ')}].` };
    },
  };
}

/** Roles the steps remember brokers by. */
export type RoleName = 'oldLeader' | 'followers' | 'replicas';

/** Remember the current leader and followers of the partition by role. */
async function rememberRoles(ctx: DrillContext): Promise<PartitionView> {
  const p = await partitionOf(ctx);
  if (p.leader < 0) throw new StepError('LEADER_NOT_AVAILABLE', `${ctx.topic}-${ctx.partition} has no leader.`);
  ctx.roles.oldLeader = [p.leader];
  ctx.roles.followers = p.replicas.filter((r) => r !== p.leader);
  ctx.roles.replicas = [...p.replicas];
  return p;
}

let produced = 0;

export function produceStep(opts: { count: number; acks: Acks; expect?: string; why?: string; timeoutMs?: number }): DrillStep {
  const expect = opts.expect ?? 'NONE';
  return {
    title: `Produce ${plural(opts.count, 'record')} with acks=${opts.acks}${expect !== 'NONE' ? ` (expect ${expect})` : ''}`,
    kind: 'action',
    async run(ctx) {
      const before = await partitionOf(ctx);
      const batch = ++produced;
      const values = Array.from({ length: opts.count }, (_, i) => `${ctx.topic}/epoch-${before.leaderEpoch}/batch-${batch}/${i}`);
      const r = await value(ctx, 'records.produce', {
        topic: ctx.topic,
        partition: ctx.partition,
        acks: opts.acks,
        records: values.map((v) => ({ value: v })),
        timeoutMs: opts.timeoutMs ?? 30_000,
      });
      if (r.errorCode === 'NONE') {
        if (opts.acks === 0) {
          return { status: expect === 'NONE' ? 'ok' : 'failed', summary: 'Sent with acks=0: the producer does not learn the offsets (or any error).' };
        }
        const acked = acknowledgedRecords(ctx.topic, opts.acks, r, values);
        ctx.acknowledged.push(...acked);
        ctx.onAcknowledged?.(acked);
        const after = await partitionOf(ctx);
        const visible = after.highWatermark > acked[acked.length - 1]!.offset;
        const summary = `Acknowledged offsets ${offsetRanges(acked.map((a) => a.offset))} (leader ${after.leader}, ISR [${after.isr.join(', ')}]); HW ${after.highWatermark}${visible ? '' : ': not yet visible to consumers'}.`;
        if (expect !== 'NONE') return { status: 'failed', summary: `Expected ${expect} but the write succeeded. ${summary}` };
        return { status: 'ok', summary: opts.why ? `${summary} ${opts.why}` : summary };
      }
      const summary = `${r.errorCode}: ${r.errorMessage ?? ''}`.trim();
      if (r.errorCode === expect) return { status: 'ok', expectedError: r.errorCode, summary: `${summary}${opts.why ? ` — as expected: ${opts.why}` : ' — as expected.'}` };
      return { status: 'failed', summary };
    },
  };
}


/** Fault the brokers of a role; `leader` / `followers` / `replicas` are read from the partition now. */
export function faultStep(kind: BrokerAction, target: 'leader' | 'followers' | 'replicas' | 'oldLeader', title?: string): DrillStep {
  const targetText = { leader: 'the leader', followers: 'both followers', replicas: 'every replica’s broker', oldLeader: 'the old leader' }[target];
  return {
    title: title ?? `${BROKER_ACTION[kind].label}: ${targetText}`,
    kind: 'action',
    async run(ctx) {
      let ids: number[];
      if (target === 'oldLeader') ids = role(ctx, 'oldLeader');
      else {
        const p = await rememberRoles(ctx);
        ids = target === 'leader' ? [p.leader] : target === 'followers' ? p.replicas.filter((r) => r !== p.leader) : p.replicas;
      }
      for (const id of ids) {
        const r = await callBrokerAction(ctx.call, kind, id);
        if (!r.ok) throw new StepError(r.error.code, r.error.message);
      }
      return { status: 'ok', summary: `${BROKER_ACTION[kind].label} on broker${ids.length > 1 ? 's' : ''} ${list(ids)}.` };
    },
  };
}

/** Fault the remembered followers (after a step remembered them). */
export function faultRememberedStep(kind: BrokerAction, roleName: RoleName, title: string): DrillStep {
  return {
    title,
    kind: 'action',
    async run(ctx) {
      const ids = role(ctx, roleName);
      for (const id of ids) {
        const r = await callBrokerAction(ctx.call, kind, id);
        if (!r.ok) throw new StepError(r.error.code, r.error.message);
      }
      return { status: 'ok', summary: `${BROKER_ACTION[kind].label} on broker${ids.length > 1 ? 's' : ''} ${list(ids)}.` };
    },
  };
}

/** Wait for a partition condition; `holds` returns the summary when it holds. */
export function waitPartition(title: string, maxClusterMs: number, holds: (p: PartitionView, ctx: DrillContext) => string | null, onTimeout?: string): DrillStep {
  return {
    title,
    kind: 'wait',
    maxClusterMs,
    ...(onTimeout ? { onTimeout } : {}),
    async check(ctx) {
      const p = await partitionOf(ctx);
      const s = holds(p, ctx);
      return s === null ? null : { status: 'ok', summary: s };
    },
  };
}

export function waitNewLeader(maxClusterMs = 30_000): DrillStep {
  return waitPartition(
    'Wait for the controller to elect a new leader',
    maxClusterMs,
    (p, ctx) => {
      const old = role(ctx, 'oldLeader')[0];
      if (p.leader < 0 || p.leader === old) return null;
      return `Broker ${p.leader} leads in epoch ${p.leaderEpoch}; ISR [${p.isr.join(', ')}]${p.leaderRecoveryState === 'RECOVERING' ? ' (RECOVERING: elected outside the ISR — unclean)' : ''}.`;
    },
    'The old leader is not fenced yet (broker.session.timeout.ms), or no replica is eligible.',
  );
}

export function waitIsrWithout(roleName: 'oldLeader' | 'followers', maxClusterMs: number): DrillStep {
  return waitPartition(
    roleName === 'oldLeader' ? 'Wait for the ISR to shrink without the old leader' : 'Wait for the ISR to shrink to the leader alone',
    maxClusterMs,
    (p, ctx) => {
      const gone = role(ctx, roleName);
      if (gone.some((b) => p.isr.includes(b))) return null;
      return `ISR [${p.isr.join(', ')}] (removed ${list(gone)}), leader ${p.leader}, HW ${p.highWatermark}.`;
    },
    roleName === 'followers' ? 'A follower is removed replica.lag.time.max.ms (30 s) after it last caught up.' : undefined,
  );
}

export function waitIsrWith(roleName: RoleName, maxClusterMs: number, title: string): DrillStep {
  return waitPartition(title, maxClusterMs, (p, ctx) => {
    const back = role(ctx, roleName);
    if (!back.every((b) => p.isr.includes(b)) || p.leader < 0) return null;
    const leo = p.replicaStates.find((r) => r.brokerId === p.leader)?.logEndOffset ?? p.highWatermark;
    return `ISR [${p.isr.join(', ')}], leader ${p.leader} in epoch ${p.leaderEpoch}, HW ${p.highWatermark}, leader LEO ${leo}.`;
  });
}

/** Start the brokers of a role (restart). */
export function startRoleStep(roleName: RoleName, title: string): DrillStep {
  return faultRememberedStep('start', roleName, title);
}

/** Wait until the brokers of a role are down (a controlled shutdown takes a moment). */
export function waitRoleDown(roleName: RoleName, title: string): DrillStep {
  return {
    title,
    kind: 'wait',
    maxClusterMs: 60_000,
    onTimeout: 'A broker did not finish its controlled shutdown.',
    async check(ctx) {
      const ids = role(ctx, roleName);
      const brokers = await value(ctx, 'brokers.list', {});
      const states = ids.map((id) => brokers.find((b) => b.id === id)?.state ?? 'stopped');
      return states.every((s) => DOWN_STATES.has(s)) ? { status: 'ok', summary: ids.map((id, i) => `broker ${id} ${states[i]}`).join(', ') + '.' } : null;
    },
  };
}

/** Read the partition up to the HW and check every acknowledged record of this run, value by value. */
export function verifyAcknowledgedStep(expectLoss: boolean): DrillStep {
  return {
    title: 'Read the partition back and check every acknowledged record',
    kind: 'action',
    async run(ctx) {
      const check = await checkAcknowledged(ctx.call, ctx.topic, ctx.partition, ctx.acknowledged);
      const n = ctx.acknowledged.length;
      if (check.lost.length === 0) {
        const s = `All ${plural(n, 'acknowledged record')} are present (HW ${check.highWatermark}).`;
        return expectLoss ? { status: 'failed', summary: `${s} This run did not reproduce the loss.` } : { status: 'ok', summary: s };
      }
      const s = `${check.lost.length} of ${plural(n, 'acknowledged record')} are gone: offsets ${offsetRanges(check.lost.map((r) => r.offset))} (HW now ${check.highWatermark}).`;
      return expectLoss ? { status: 'ok', summary: `${s} Kafka acknowledged them, then lost them.` } : { status: 'failed', summary: s };
    },
  };
}
