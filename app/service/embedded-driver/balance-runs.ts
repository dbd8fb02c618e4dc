/**
 * `balance.plan` and `balance.cancel`. An unnamed plan runs in one go, as it always did. A plan
 * given a `planId` runs one goal at a time (planBalanceSteps), letting the event loop run between
 * goals: after each it publishes `balance.progress`, and a `balance.cancel` for its id that
 * arrived meanwhile ends it with CANCELLED. A big cluster's plan (50 brokers × 100,000
 * partitions) takes seconds, so a caller can show how far it got and stop it.
 *
 * Invariants: at most one running plan per id; a cancelled plan answers CANCELLED and nothing
 * else; a plan that finished is no longer cancellable (`cancelled: false`).
 */
import { KafkaError } from '../../api/errors.js';
import type { EngineEvent } from '../../api/events.js';
import type { MethodParsedInput, MethodResult } from '../../api/contract.js';
import { buildBalanceModel, planBalanceSteps } from '../../core/balance/index.js';
import type { Engine } from '../../core/engine.js';

type BalanceMethod = 'balance.plan' | 'balance.cancel';
export type BalanceMethods = { [M in BalanceMethod]: (input: MethodParsedInput<M>) => MethodResult<M> | Promise<MethodResult<M>> };

/** Let the event loop run (calls, cancels, the clock) between two goals of a named plan. */
const breathe = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

export function balanceMethods(engine: Engine, publish: (event: EngineEvent) => void): BalanceMethods {
  /** Running named plans: id → cancelled? */
  const running = new Map<string, { cancelled: boolean }>();

  return {
    'balance.plan': ({ excludeBrokers, leadersOnly, planId }) => {
      // Bytes per partition: the leader's log size (or any live replica's).
      const sizes = (topic: string, partition: number): number => engine.partitionSizeBytes(topic, partition);
      const model = buildBalanceModel(engine.metadata, sizes);
      const steps = planBalanceSteps(model, { ...(excludeBrokers ? { excludeBrokers } : {}), ...(leadersOnly !== undefined ? { leadersOnly } : {}) });
      if (planId === undefined) {
        for (;;) {
          const r = steps.next();
          if (r.done) return r.value;
        }
      }
      if (running.has(planId)) throw new KafkaError('INVALID_REQUEST', `A balance plan named ${JSON.stringify(planId)} is running already.`);
      const run = { cancelled: false };
      running.set(planId, run);
      const started = Date.now();
      return (async () => {
        try {
          for (;;) {
            if (run.cancelled) throw new KafkaError('CANCELLED', `The balance plan ${JSON.stringify(planId)} was cancelled.`);
            const r = steps.next();
            if (r.done) return r.value;
            publish({ type: 'balance.progress', atMs: engine.scheduler.now(), planId, ...r.value, elapsedMs: Date.now() - started });
            await breathe();
          }
        } finally {
          running.delete(planId);
        }
      })();
    },

    'balance.cancel': ({ planId }) => {
      const run = running.get(planId);
      if (!run || run.cancelled) return { cancelled: false };
      run.cancelled = true;
      return { cancelled: true };
    },
  };
}
