/**
 * Drill steps for transactions: transactional producers of their own (`clients.beginTransaction`,
 * `clients.endTransaction`, `clients.crash`: kafkajs clients on the cluster's Kafka listeners),
 * what a consumer of each isolation level gets from one Fetch (`clients.fetch`: the leader's HW and
 * last stable offset, the aborted transactions it lists, the records the client keeps), and the
 * coordinator's own account in `transaction.stateChanged` / `txnCoordinator.loaded` events.
 *
 * A run's producers are named after its topic (`drill-<n>-app-1`…) and share one transactional.id
 * (`drill-<n>-tx`); what the run sent and committed is remembered per run, so the last step can
 * check that read_committed sees every committed record once and nothing of an aborted one.
 */
import type { ClientFetchView, ClientTransactionView, EngineEvent } from '../../../../app/api/contract.js';
import { StepError, value, type DrillContext, type DrillStep } from './runner.js';
import { nextDrillTopicName } from './steps.js';

export const transactionalIdOf = (ctx: DrillContext): string => `${ctx.topic}-tx`;
export const producerName = (ctx: DrillContext, instance: number): string => `${ctx.topic}-app-${instance}`;

interface TxnMemory {
  /** Values by fate: committed (read_committed must see each once), aborted (it must see none), open. */
  committed: Set<string>;
  aborted: Set<string>;
  open: Map<string, string[]>;
  coordinator: number;
  /** Cluster time the last producer died (clients.crash). */
  crashedAtMs?: number;
  /** The replicas of the coordinator's __transaction_state partition. */
  replicas?: number[];
  /** The partitions a cut link kept the markers from, and the broker cut off. */
  held?: { partitions: number[]; leader: number };
  /** Per partition, the read_committed snapshot the held-markers wait saw. */
  heldView?: string;
}

const memories = new WeakMap<DrillContext, TxnMemory>();

export function memoryOf(ctx: DrillContext): TxnMemory {
  let m = memories.get(ctx);
  if (!m) {
    m = { committed: new Set(), aborted: new Set(), open: new Map(), coordinator: -1 };
    memories.set(ctx, m);
  }
  return m;
}

/** A client's refusal, as the step fails with it. */
function refused(r: ClientTransactionView | ClientFetchView, what: string): never {
  throw new StepError(r.errorCode, `${what}: ${r.errorMessage ?? r.errorCode}`);
}

export async function fetchAs(ctx: DrillContext, partition: number, isolation: 'read_committed' | 'read_uncommitted'): Promise<ClientFetchView> {
  const f = await value(ctx, 'clients.fetch', { topic: ctx.topic, partition, offset: 0, isolation, clientId: `${ctx.topic}-reader` });
  if (f.errorCode !== 'NONE') refused(f, `${isolation} fetch of ${ctx.topic}-${partition}`);
  return f;
}

/** The partitions of the run's topic. */
export async function partitionsOf(ctx: DrillContext): Promise<number[]> {
  return (await value(ctx, 'topics.describe', { name: ctx.topic })).partitions.map((p) => p.partition);
}

/** Create `drill-<n>` with `partitions` partitions, RF 3 and min.insync.replicas 2. */
export function createTxnTopicStep(partitions: number): DrillStep {
  return {
    title: `Create topic drill-<n>: ${partitions} partition${partitions === 1 ? '' : 's'}, RF 3, min.insync.replicas 2`,
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

/** Producer `instance` begins a transaction (starting first if needed) and writes `count` records to each of `partitions` (default: every partition). */
export function beginStep(opts: { instance: number; count: number; tag: string; timeoutMs?: number; partitions?: number[]; title?: string; why?: string }): DrillStep {
  return {
    title: opts.title ?? `Producer ${opts.instance} begins a transaction and writes ${opts.count} record${opts.count === 1 ? '' : 's'}`,
    kind: 'action',
    async run(ctx) {
      const m = memoryOf(ctx);
      const partitions = opts.partitions ?? (await partitionsOf(ctx));
      const values = partitions.flatMap((p) => Array.from({ length: opts.count }, (_, i) => ({ partition: p, value: `${opts.tag}-${p}-${i + 1}` })));
      const name = producerName(ctx, opts.instance);
      const r = await value(ctx, 'clients.beginTransaction', {
        name,
        transactionalId: transactionalIdOf(ctx),
        ...(opts.timeoutMs ? { transactionTimeoutMs: opts.timeoutMs } : {}),
        records: values.map((v) => ({ topic: ctx.topic, partition: v.partition, key: `k${v.partition}`, value: v.value })),
      });
      if (r.errorCode !== 'NONE') refused(r, `Producer ${opts.instance}`);
      m.coordinator = r.coordinatorId;
      m.open.set(name, [...(m.open.get(name) ?? []), ...values.map((v) => v.value)]);
      const where = r.sent.map((s) => `${s.partition}@${s.baseOffset}${s.count > 1 ? `–${s.baseOffset + s.count - 1}` : ''}`).join(', ');
      return {
        status: 'ok',
        summary: `${name} (transactional.id ${r.transactionalId}, coordinator broker ${r.coordinatorId}) wrote ${values.length} record${values.length === 1 ? '' : 's'} in an open transaction at ${where}.${opts.why ? ` ${opts.why}` : ''}`,
      };
    },
  };
}

/** Producer `instance` commits or aborts; `expect` names the refusal the drill expects (then its records count as aborted). */
export function endStep(opts: { instance: number; commit: boolean; expect?: string; title?: string; why?: string }): DrillStep {
  return {
    title: opts.title ?? `Producer ${opts.instance} ${opts.commit ? 'commits' : 'aborts'}${opts.expect ? ` (expect ${opts.expect})` : ''}`,
    kind: 'action',
    async run(ctx) {
      const m = memoryOf(ctx);
      const name = producerName(ctx, opts.instance);
      const started = Date.now();
      const r = await value(ctx, 'clients.endTransaction', { name, commit: opts.commit });
      const values = m.open.get(name) ?? [];
      m.open.delete(name);
      if (opts.expect) {
        if (r.errorCode !== opts.expect) throw new StepError(r.errorCode, `Expected ${opts.expect}, got ${r.errorCode}${r.errorMessage ? `: ${r.errorMessage}` : ''}.`);
        for (const v of values) m.aborted.add(v);
        return { status: 'ok', expectedError: r.errorCode, summary: `Refused: ${r.errorCode}${r.errorMessage ? ` (${r.errorMessage})` : ''}.${opts.why ? ` ${opts.why}` : ''}` };
      }
      if (r.errorCode !== 'NONE') refused(r, `${name}'s EndTxn`);
      for (const v of values) (opts.commit ? m.committed : m.aborted).add(v);
      return {
        status: 'ok',
        summary: `EndTxn(${opts.commit ? 'commit' : 'abort'}) answered after ${Date.now() - started} ms: ${opts.commit ? 'PrepareCommit' : 'PrepareAbort'} is in __transaction_state; the coordinator writes the markers.${opts.why ? ` ${opts.why}` : ''}`,
      };
    },
  };
}

/** Producer `instance` dies: its connections drop with no EndTxn. */
export function crashStep(instance: number): DrillStep {
  return {
    title: `Producer ${instance} dies mid-transaction (its connections drop; no EndTxn)`,
    kind: 'action',
    async run(ctx) {
      const m = memoryOf(ctx);
      const r = await value(ctx, 'clients.crash', { name: producerName(ctx, instance) });
      m.crashedAtMs = (await value(ctx, 'clock.get', {})).nowMs;
      return { status: 'ok', summary: `${r.name} is gone with its transaction ${r.open ? 'open' : 'not open'}: only the coordinator can end it now.` };
    },
  };
}

/** Where read_committed and read_uncommitted consumers of `partition` stand now. */
export function isolationText(c: ClientFetchView, u: ClientFetchView): string {
  return `HW ${c.highWatermark}, LSO ${c.lastStableOffset}: read_committed gets ${c.records.length} record${c.records.length === 1 ? '' : 's'}, read_uncommitted ${u.records.length}`;
}

/** The coordinator's transaction events of this run since `sinceMs`. */
export async function txnEvents(ctx: DrillContext, sinceMs = 0): Promise<Extract<EngineEvent, { type: 'transaction.stateChanged' }>[]> {
  const recent = await value(ctx, 'events.recent', { types: ['transaction.stateChanged'] });
  return recent.filter((e): e is Extract<EngineEvent, { type: 'transaction.stateChanged' }> => e.type === 'transaction.stateChanged' && e.transactionalId === transactionalIdOf(ctx) && e.atMs >= sinceMs);
}

/** Wait until every partition's LSO reaches its HW: no transaction holds any of them. */
export function waitAllStable(title: string, maxClusterMs: number, describe: (ctx: DrillContext, views: string[]) => Promise<string>): DrillStep {
  return {
    title,
    kind: 'wait',
    maxClusterMs,
    onTimeout: 'A partition’s last stable offset stayed below its high watermark: a transaction is still open or its markers never arrived.',
    async check(ctx) {
      const views: string[] = [];
      for (const p of await partitionsOf(ctx)) {
        // While leadership moves a fetch may be refused or find a broker down: not yet.
        const r = await ctx.call('clients.fetch', { topic: ctx.topic, partition: p, offset: 0, isolation: 'read_committed' });
        if (!r.ok) {
          if (r.error.retriable || r.error.code === 'NETWORK_EXCEPTION') return null;
          throw new StepError(r.error.code, r.error.message);
        }
        const c = r.value;
        if (c.errorCode !== 'NONE' || c.lastStableOffset < c.highWatermark) return null;
        views.push(`${p}: LSO = HW = ${c.highWatermark}`);
      }
      return { status: 'ok', summary: await describe(ctx, views) };
    },
  };
}

/** The last step: read_committed on every partition sees each committed record once and no aborted one. */
export function verifyCommittedStep(): DrillStep {
  return {
    title: 'Read every partition as read_committed and read_uncommitted consumers',
    kind: 'action',
    async run(ctx) {
      const m = memoryOf(ctx);
      const seen: string[] = [];
      let uncommitted = 0;
      for (const p of await partitionsOf(ctx)) {
        seen.push(...(await fetchAs(ctx, p, 'read_committed')).records.map((r) => r.value ?? ''));
        uncommitted += (await fetchAs(ctx, p, 'read_uncommitted')).records.length;
      }
      const mine = seen.filter((v) => m.committed.has(v) || m.aborted.has(v));
      const twice = [...new Set(mine.filter((v, i) => mine.indexOf(v) !== i))];
      const leaked = mine.filter((v) => m.aborted.has(v));
      const missing = [...m.committed].filter((v) => !seen.includes(v));
      if (twice.length || leaked.length || missing.length) {
        const parts = [missing.length ? `missing ${missing.join(', ')}` : '', twice.length ? `twice ${twice.join(', ')}` : '', leaked.length ? `aborted but visible ${leaked.join(', ')}` : ''];
        throw new StepError('INVALID_STATE', `read_committed is wrong: ${parts.filter(Boolean).join('; ')}.`);
      }
      return {
        status: 'ok',
        summary: `read_committed sees all ${m.committed.size} committed records once each and none of the ${m.aborted.size} aborted ones; read_uncommitted reads ${uncommitted} records (aborted ones included, markers never).`,
      };
    },
  };
}
