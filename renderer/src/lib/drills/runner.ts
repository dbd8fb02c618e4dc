/**
 * The drill runner: a scenario is a named list of steps — contract calls and waits measured in
 * cluster time — run one at a time against one context (the topic the scenario created, the
 * brokers remembered by role, the records acknowledged so far).
 *
 * Invariant: every wait is bounded twice — by cluster time (`maxClusterMs`, read from
 * `clock.get`, so a 60× clock finishes 60× sooner) and by real time (the same budget at 1× plus
 * slack, and never less than MIN_REAL_MS), so no step can hang the console. A step never throws:
 * a refusal, a timeout or a stop is its result. Pure TypeScript over the contract: no Vue, no
 * DOM, testable in Node.
 */
import type { MethodInput, MethodName, MethodResult } from '../../../../app/api/contract.js';
import type { Call } from '../../api/client.js';
import type { AcknowledgedRecord } from './data-loss.js';

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
  /**
   * Real (wall-clock) time the step took. An action's duration is this: at 60× the cluster clock
   * runs a minute per real second, so a request's round trip would read as many seconds of
   * cluster time that the cluster never spent on it.
   */
  realMs: number;
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

const POLL_MS = 150;
/** Real-time slack on top of a wait's cluster budget at 1×. */
const REAL_SLACK_MS = 10_000;
/** The least real time a wait polls before it may time out, however fast the cluster clock runs. */
const MIN_REAL_MS = 3000;

/** The method's value; a refusal becomes the step's StepError (Kafka's error name and message). */
export async function value<M extends MethodName>(ctx: DrillContext, method: M, input: MethodInput<M>): Promise<MethodResult<M>> {
  const r = await ctx.call(method, input);
  if (!r.ok) throw new StepError(r.error.code, r.error.message);
  return r.value;
}

/** Why a step failed, with Kafka's error name when the engine refused. */
export class StepError extends Error {
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
  const realStarted = Date.now();
  const done = async (o: StepOutcome): Promise<StepResult> => {
    const realMs = Date.now() - realStarted;
    let endedAtMs = startedAtMs;
    try {
      endedAtMs = await clusterNow(ctx);
    } catch {
      // the clock is unreadable only when the host is gone; keep the start time
    }
    return { ...o, startedAtMs, endedAtMs, realMs };
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
