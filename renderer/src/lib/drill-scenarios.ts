/**
 * Scripted drills: each scenario is a named list of steps — contract calls and waits measured in
 * cluster time — with a paragraph on what Kafka does and what to watch. The steps work on one
 * partition of a topic the scenario creates (`drill-<n>`), remember the brokers they fault by role
 * ("the old leader"), and keep the records the cluster acknowledged so the last step can check,
 * value by value, which acknowledged records survived.
 *
 * Invariant: every wait is bounded twice — by cluster time (`maxClusterMs`, read from `clock.get`,
 * so a 60× clock finishes 60× sooner) and by real time (the same budget at 1× plus slack), so no
 * step can hang the console. Pure TypeScript over the contract: no Vue, no DOM, testable in Node.
 */
import type { BrokerView, MethodInput, MethodName, MethodResult, PartitionView, Result, TopicView } from '../../../app/api/contract.js';

export type Call = <M extends MethodName>(method: M, input: MethodInput<M>) => Promise<Result<MethodResult<M>>>;
export type Acks = 0 | 1 | 'all';

/** One record the cluster acknowledged (acks 1 or all, errorCode NONE). */
export interface AcknowledgedRecord {
  topic: string;
  partition: number;
  offset: number;
  value: string | null;
  acks: Acks;
  /** The partition's leader epoch right after the acknowledgement (records of a later epoch were not on a replica truncated in it). */
  leaderEpoch?: number;
  /** Cluster time right after the acknowledgement. */
  atMs?: number;
}

/** Stamp acknowledged records with the partition's leader epoch and the cluster time, read right after the acknowledgement. */
export async function stampAcknowledged(call: Call, records: AcknowledgedRecord[]): Promise<AcknowledgedRecord[]> {
  const first = records[0];
  if (!first) return records;
  const [t, clock] = await Promise.all([call('topics.describe', { name: first.topic }), call('clock.get', {})]);
  const epoch = t.ok ? t.value.partitions.find((p) => p.partition === first.partition)?.leaderEpoch : undefined;
  return records.map((r) => ({ ...r, ...(epoch !== undefined ? { leaderEpoch: epoch } : {}), ...(clock.ok ? { atMs: clock.value.nowMs } : {}) }));
}

/**
 * Acknowledged records a truncation removed from that replica: in [toOffset, fromOffset),
 * acknowledged before it, and (for a divergence) written in an epoch before the one the replica
 * truncated to — the new leader's records at the same offsets were never removed.
 */
export function removedByTruncation(
  acknowledged: AcknowledgedRecord[],
  t: { topic: string; partition: number; fromOffset: number; toOffset: number; leaderEpoch: number; atMs: number; reason: string },
  topicName: string,
): AcknowledgedRecord[] {
  return acknowledged.filter(
    (a) =>
      a.topic === topicName &&
      a.partition === t.partition &&
      a.offset >= t.toOffset &&
      a.offset < t.fromOffset &&
      (a.atMs === undefined || a.atMs <= t.atMs) &&
      (t.reason === 'power-loss' || t.leaderEpoch < 0 || a.leaderEpoch === undefined || a.leaderEpoch < t.leaderEpoch),
  );
}

/** What the steps of one run share. */
export interface DrillContext {
  call: Call;
  sleep(ms: number): Promise<void>;
  /** Set by the create step. */
  topic: string;
  partition: number;
  /** Brokers remembered by role: `oldLeader`, `followers`… */
  roles: Record<string, number[]>;
  /** Records acknowledged in this run. */
  acknowledged: AcknowledgedRecord[];
  /** Asked before each poll of a wait: true stops the run. */
  stopped?(): boolean;
  /** The console watches the topic the scenario created. */
  onTopic?(topic: string, partition: number): void;
  /** Every produce outcome of the run (the console's data-loss panel keeps the acknowledged ones). */
  onAcknowledged?(records: AcknowledgedRecord[]): void;
}

export type StepStatus = 'ok' | 'failed' | 'timed-out' | 'stopped';

export interface StepOutcome {
  status: StepStatus;
  summary: string;
  /** A Kafka error the step expected (shown as "as expected"). */
  expectedError?: string;
}

export interface StepResult extends StepOutcome {
  /** Cluster time the step started and ended at. */
  startedAtMs: number;
  endedAtMs: number;
}

export interface DrillStep {
  title: string;
  kind: 'action' | 'wait';
  /** Waits: the most cluster time the condition may take. */
  maxClusterMs?: number;
  /** Actions. */
  run?(ctx: DrillContext): Promise<StepOutcome>;
  /** Waits: an outcome once the condition holds, null while it does not yet. */
  check?(ctx: DrillContext): Promise<StepOutcome | null>;
  /** Waits: what the timeout means. */
  onTimeout?: string;
}

export interface DrillScenario {
  id: string;
  name: string;
  /** What Kafka does, in one paragraph. */
  explanation: string;
  /** What to watch on the page while it runs. */
  watch: string;
  steps: DrillStep[];
}

// ================================================================ running

const POLL_MS = 150;
/** Real-time slack on top of a wait's cluster budget at 1×. */
const REAL_SLACK_MS = 10_000;
/** The least real time a wait polls before it may time out, however fast the cluster clock runs. */
const MIN_REAL_MS = 3000;

async function value<M extends MethodName>(ctx: DrillContext, method: M, input: MethodInput<M>): Promise<MethodResult<M>> {
  const r = await ctx.call(method, input);
  if (!r.ok) throw new StepError(r.error.code, r.error.message);
  return r.value;
}

class StepError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function clusterNow(ctx: DrillContext): Promise<number> {
  return (await value(ctx, 'clock.get', {})).nowMs;
}

/** Run one step: an action once, or a wait polled until it holds or its budget runs out. */
export async function runStep(step: DrillStep, ctx: DrillContext, opts: { pollMs?: number } = {}): Promise<StepResult> {
  const pollMs = opts.pollMs ?? POLL_MS;
  let startedAtMs = 0;
  const done = async (o: StepOutcome): Promise<StepResult> => {
    let endedAtMs = startedAtMs;
    try {
      endedAtMs = await clusterNow(ctx);
    } catch {
      // the clock is unreadable only when the host is gone; keep the start time
    }
    return { ...o, startedAtMs, endedAtMs };
  };
  try {
    startedAtMs = await clusterNow(ctx);
    if (step.kind === 'action') return await done(await step.run!(ctx));
    const budget = step.maxClusterMs ?? 30_000;
    const realStart = Date.now();
    const realDeadline = realStart + budget + REAL_SLACK_MS;
    for (;;) {
      if (ctx.stopped?.()) return await done({ status: 'stopped', summary: 'Stopped.' });
      const outcome = await step.check!(ctx);
      if (outcome) return await done(outcome);
      const now = await clusterNow(ctx);
      // At 60× a few slow polls are whole seconds of cluster time: give every wait a little real time too.
      if ((now - startedAtMs > budget && Date.now() - realStart > MIN_REAL_MS) || Date.now() > realDeadline) {
        return await done({ status: 'timed-out', summary: `Not within ${Math.round(budget / 1000)} s of cluster time. ${step.onTimeout ?? ''}`.trim() });
      }
      await ctx.sleep(pollMs);
    }
  } catch (e) {
    const summary = e instanceof StepError ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e);
    return done({ status: 'failed', summary });
  }
}

/** A fresh context for one run of a scenario. */
export function newContext(call: Call, hooks: Partial<Pick<DrillContext, 'sleep' | 'stopped' | 'onTopic' | 'onAcknowledged'>> = {}): DrillContext {
  return {
    call,
    sleep: hooks.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
    topic: '',
    partition: 0,
    roles: {},
    acknowledged: [],
    ...(hooks.stopped ? { stopped: hooks.stopped } : {}),
    ...(hooks.onTopic ? { onTopic: hooks.onTopic } : {}),
    ...(hooks.onAcknowledged ? { onAcknowledged: hooks.onAcknowledged } : {}),
  };
}

// ================================================================ helpers

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

/** Offsets as ranges: [0,1,2,5] → "0–2, 5". */
export function offsetRanges(offsets: number[]): string {
  const sorted = [...new Set(offsets)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

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

// ================================================================ steps

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
        const acked = await stampAcknowledged(
          ctx.call,
          values.map((v, i) => ({ topic: ctx.topic, partition: ctx.partition, offset: r.baseOffset + i, value: v, acks: opts.acks })),
        );
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

export type FaultKind = 'stop' | 'kill' | 'powerLoss' | 'isolate' | 'heal' | 'stall' | 'unstall' | 'start';

export const FAULT_LABELS: Record<FaultKind, string> = {
  stop: 'Controlled shutdown',
  kill: 'Kill',
  powerLoss: 'Power loss',
  isolate: 'Isolate',
  heal: 'Heal',
  stall: 'Stall fetchers',
  unstall: 'Resume fetchers',
  start: 'Restart',
};

/** Apply one fault to one broker through the contract. */
export async function applyFault(call: Call, brokerId: number, kind: FaultKind): Promise<Result<BrokerView>> {
  switch (kind) {
    case 'stop':
      return call('brokers.stop', { brokerId });
    case 'kill':
      return call('brokers.kill', { brokerId });
    case 'powerLoss':
      return call('brokers.powerLoss', { brokerId });
    case 'isolate':
      return call('brokers.isolate', { brokerId });
    case 'heal':
      return call('brokers.heal', { brokerId });
    case 'stall':
      return call('brokers.stallFollower', { brokerId, stalled: true });
    case 'unstall':
      return call('brokers.stallFollower', { brokerId, stalled: false });
    case 'start':
      return call('brokers.start', { brokerId });
  }
}

/** Fault the brokers of a role; `leader` / `followers` / `replicas` are read from the partition now. */
export function faultStep(kind: FaultKind, target: 'leader' | 'followers' | 'replicas' | 'oldLeader', title?: string): DrillStep {
  const targetText = { leader: 'the leader', followers: 'both followers', replicas: 'every replica’s broker', oldLeader: 'the old leader' }[target];
  return {
    title: title ?? `${FAULT_LABELS[kind]}: ${targetText}`,
    kind: 'action',
    async run(ctx) {
      let ids: number[];
      if (target === 'oldLeader') ids = role(ctx, 'oldLeader');
      else {
        const p = await rememberRoles(ctx);
        ids = target === 'leader' ? [p.leader] : target === 'followers' ? p.replicas.filter((r) => r !== p.leader) : p.replicas;
      }
      for (const id of ids) {
        const r = await applyFault(ctx.call, id, kind);
        if (!r.ok) throw new StepError(r.error.code, r.error.message);
      }
      return { status: 'ok', summary: `${FAULT_LABELS[kind]} on broker${ids.length > 1 ? 's' : ''} ${list(ids)}.` };
    },
  };
}

/** Fault the remembered followers (after a step remembered them). */
export function faultRememberedStep(kind: FaultKind, roleName: RoleName, title: string): DrillStep {
  return {
    title,
    kind: 'action',
    async run(ctx) {
      const ids = role(ctx, roleName);
      for (const id of ids) {
        const r = await applyFault(ctx.call, id, kind);
        if (!r.ok) throw new StepError(r.error.code, r.error.message);
      }
      return { status: 'ok', summary: `${FAULT_LABELS[kind]} on broker${ids.length > 1 ? 's' : ''} ${list(ids)}.` };
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

export interface AcknowledgedCheck {
  highWatermark: number;
  logStartOffset: number;
  present: AcknowledgedRecord[];
  /** Acknowledged records whose offset is now past the HW or holds another record. */
  lost: AcknowledgedRecord[];
}

/** Errors a read meets while a new leader is still loading the partition: retried for a moment. */
const TRANSIENT = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'NOT_LEADER_OR_FOLLOWER', 'LEADER_NOT_AVAILABLE', 'REPLICA_NOT_AVAILABLE', 'NETWORK_EXCEPTION']);

async function consumeRetrying(call: Call, input: MethodInput<'records.consume'>): Promise<Result<MethodResult<'records.consume'>>> {
  let r = await call('records.consume', input);
  for (let i = 0; i < 25 && !r.ok && TRANSIENT.has(r.error.code); i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    r = await call('records.consume', input);
  }
  return r;
}

/** Compare acknowledged records with what the leader serves now (reads at most 20 × 500 records). */
export async function checkAcknowledged(call: Call, topic: string, partition: number, acknowledged: AcknowledgedRecord[]): Promise<AcknowledgedCheck> {
  const mine = acknowledged.filter((a) => a.topic === topic && a.partition === partition);
  const byOffset = new Map<number, string | null>();
  let hw = 0;
  let lso = 0;
  if (mine.length > 0) {
    const from = Math.min(...mine.map((a) => a.offset));
    const to = Math.max(...mine.map((a) => a.offset));
    let offset = from;
    for (let i = 0; i < 20; i++) {
      const r = await consumeRetrying(call, { topic, partition, offset, maxRecords: 500 });
      if (!r.ok) {
        if (r.error.code === 'OFFSET_OUT_OF_RANGE') {
          const d = r.error.details as { highWatermark?: number; logStartOffset?: number } | undefined;
          hw = d?.highWatermark ?? hw;
          lso = d?.logStartOffset ?? lso;
          break;
        }
        throw new StepError(r.error.code, r.error.message);
      }
      hw = r.value.highWatermark;
      lso = r.value.logStartOffset;
      for (const rec of r.value.records) byOffset.set(rec.offset, rec.value);
      const last = r.value.records[r.value.records.length - 1];
      if (!last || last.offset >= to || last.offset + 1 >= hw) break;
      offset = last.offset + 1;
    }
  }
  const present: AcknowledgedRecord[] = [];
  const lost: AcknowledgedRecord[] = [];
  for (const a of mine) (byOffset.has(a.offset) && byOffset.get(a.offset) === a.value ? present : lost).push(a);
  return { highWatermark: hw, logStartOffset: lso, present, lost };
}

// ================================================================ the scenarios

const prelude = (): DrillStep[] => [restoreEveryBroker(), waitEveryBrokerRunning()];

export const SCENARIOS: DrillScenario[] = [
  {
    id: 'leader-failover',
    name: 'Leader failover',
    explanation:
      'Kill the leader of an RF 3 partition (min.insync.replicas 2). The dead broker stops heartbeating; after broker.session.timeout.ms (9 s) the controller fences it, removes it from every ISR and elects the first replica in assignment order that is still in the ISR. The leader epoch goes up by one. Nothing acknowledged is lost: acks=all records were on every ISR member, and the new leader was one of them. When the old broker restarts it fetches from the new leader, catches up to the high watermark and rejoins the ISR.',
    watch: 'The leader column moves to another broker and the ISR loses the killed one (leader.changed with reason broker-fenced, isr.shrunk) about 9 s of cluster time after the kill; HW stays where it was. After the restart, isr.expanded brings it back.',
    steps: [
      ...prelude(),
      createTopicStep({ 'min.insync.replicas': '2' }, 'min.insync.replicas 2'),
      produceStep({ count: 5, acks: 'all' }),
      faultStep('kill', 'leader', 'Kill the leader'),
      waitNewLeader(),
      waitIsrWithout('oldLeader', 30_000),
      produceStep({ count: 5, acks: 'all', why: 'Two replicas are still in the ISR, enough for min.insync.replicas 2.' }),
      startRoleStep('oldLeader', 'Restart the old leader'),
      waitIsrWith('oldLeader', 60_000, 'Wait for the old leader to catch up and rejoin the ISR'),
      verifyAcknowledgedStep(false),
    ],
  },
  {
    id: 'acks-all-too-few-replicas',
    name: 'acks=all with too few replicas',
    explanation:
      'With min.insync.replicas 2, a leader refuses acks=all writes while its ISR has fewer than 2 members: the produce fails with NOT_ENOUGH_REPLICAS and nothing is appended. That is the point of the setting — Kafka gives up availability rather than acknowledge a write that lives on one disk. An acks=1 write is still appended, but since Kafka 3.7 the high watermark does not move while the ISR is below min.insync.replicas, so consumers cannot see it until a second replica is back in the ISR.',
    watch: 'The two followers go to controlled-shutdown / stopped and leave the ISR at once (isr.shrunk, reason controlled-shutdown). The acks=all step ends in NOT_ENOUGH_REPLICAS; the acks=1 record raises the leader’s LEO but not the HW. When the followers return, isr.expanded and the HW passes the acks=1 record.',
    steps: [
      ...prelude(),
      createTopicStep({ 'min.insync.replicas': '2' }, 'min.insync.replicas 2'),
      produceStep({ count: 3, acks: 'all' }),
      faultStep('stop', 'followers', 'Controlled shutdown of both followers'),
      waitIsrWithout('followers', 30_000),
      waitRoleDown('followers', 'Wait for both followers to finish shutting down'),
      produceStep({ count: 3, acks: 'all', expect: 'NOT_ENOUGH_REPLICAS', why: 'the ISR has 1 member and min.insync.replicas is 2; nothing was appended.' }),
      produceStep({ count: 1, acks: 1, why: 'acks=1 does not check min.insync.replicas, but the HW is frozen below it.' }),
      startRoleStep('followers', 'Restart both followers'),
      waitIsrWith('followers', 60_000, 'Wait for both followers to rejoin the ISR'),
      waitPartition('Wait for the HW to pass the acks=1 record', 30_000, (p, ctx) => {
        const last = ctx.acknowledged[ctx.acknowledged.length - 1];
        return last && p.highWatermark > last.offset ? `HW ${p.highWatermark}: offset ${last.offset} is now visible to consumers.` : null;
      }),
      verifyAcknowledgedStep(false),
    ],
  },
  {
    id: 'unclean-election',
    name: 'Unclean election loses data',
    explanation:
      'Jepsen, 2013: a leader whose followers fell out of the ISR keeps acknowledging acks=all writes alone, because acks=all means "every ISR member", and min.insync.replicas 1 lets the ISR be the leader by itself. Here replication from the leader is cut (the followers’ fetchers stall while they keep heartbeating), the ISR shrinks to the leader, and 5 writes are acknowledged by it alone. Then the leader dies. With unclean.leader.election.enable=true the controller elects a follower outside the ISR (leader.changed unclean, RECOVERING); new writes reuse the same offsets. When the old leader returns it finds its log diverged from the new leader’s epoch and truncates the acknowledged records away.',
    watch: 'isr.shrunk to the leader alone ~30–45 s after the stall; the kill; leader.changed with the unclean flag; then replica.truncated on the old leader (diverging-epoch). The "data lost" panel lists the acknowledged offsets that no longer exist.',
    steps: [
      ...prelude(),
      createTopicStep({ 'min.insync.replicas': '1', 'unclean.leader.election.enable': 'true' }, 'min.insync.replicas 1, unclean.leader.election.enable=true'),
      produceStep({ count: 5, acks: 'all' }),
      faultStep('stall', 'followers', 'Cut replication: stall both followers’ fetchers (they keep heartbeating)'),
      produceStep({ count: 1, acks: 1, why: 'The followers cannot fetch it, so they start to lag.' }),
      waitIsrWithout('followers', 90_000),
      produceStep({ count: 5, acks: 'all', why: 'acks=all succeeded with the leader as the only ISR member.' }),
      faultStep('kill', 'oldLeader', 'Kill the leader'),
      faultRememberedStep('unstall', 'followers', 'Resume the followers’ fetchers'),
      waitNewLeader(60_000),
      produceStep({ count: 3, acks: 'all', why: 'The new leader writes them at the offsets the old leader had used.' }),
      startRoleStep('oldLeader', 'Restart the old leader'),
      waitIsrWith('oldLeader', 90_000, 'Wait for the old leader to truncate its divergent tail and rejoin the ISR'),
      verifyAcknowledgedStep(true),
    ],
  },
  {
    id: 'power-loss-default-flush',
    name: 'Power loss with default flush settings',
    explanation:
      'Kafka never fsyncs by default (flush.messages and flush.ms are Long.MAX): acknowledged records sit in the OS page cache and durability comes from having several replicas. Here the flushed offset of every replica stays at 0. A power loss on one broker loses its unflushed tail, but it re-fetches it from the new leader on restart: nothing is lost. A power cut that takes every replica down at once (a rack or a whole small cluster) leaves no copy: each broker comes back with its log truncated to its flushed offset, and every acknowledged record is gone.',
    watch: 'The "flushed" value of each replica stays at 0 while LEO and HW grow. After the first power loss, replica.truncated (power-loss) on one broker and then isr.expanded as it catches up. After the second, replica.truncated on all three and the HW back at 0.',
    steps: [
      ...prelude(),
      createTopicStep({ 'min.insync.replicas': '2' }, 'min.insync.replicas 2, default flush settings'),
      produceStep({ count: 5, acks: 'all' }),
      faultStep('powerLoss', 'leader', 'Power loss on the leader'),
      waitNewLeader(),
      startRoleStep('oldLeader', 'Restart it (its unflushed tail is gone)'),
      waitIsrWith('oldLeader', 60_000, 'Wait for it to re-fetch from the new leader and rejoin the ISR'),
      produceStep({ count: 5, acks: 'all' }),
      faultStep('powerLoss', 'replicas', 'Power loss on every replica’s broker at once'),
      startRoleStep('replicas', 'Restart them all'),
      waitPartition('Wait for a leader', 60_000, (p) => (p.leader >= 0 ? `Broker ${p.leader} leads in epoch ${p.leaderEpoch}; HW ${p.highWatermark}, LEO ${p.replicaStates.map((r) => `${r.brokerId}:${r.logEndOffset}`).join(' ')}.` : null)),
      verifyAcknowledgedStep(true),
    ],
  },
];

export function scenarioById(id: string): DrillScenario | undefined {
  return SCENARIOS.find((s) => s.id === id);
}
