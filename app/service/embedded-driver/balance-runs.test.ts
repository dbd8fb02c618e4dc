/**
 * Named balance plans through the contract: progress per goal on the event stream, cancel between
 * goals, one running plan per id; an unnamed plan is unchanged.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../api/events.js';
import { closeDataDirs, dataDirService, ok } from '../../sim/test-support/data-dir.js';

afterEach(closeDataDirs);

function skewed() {
  const { s } = dataDirService({ brokers: 4, seed: 3 });
  // Every replica on brokers 1–3: a plan moves some onto broker 4.
  const assignments = Array.from({ length: 12 }, (_, p) => [1, 2, 3].map((_, j) => [1, 2, 3][(p + j) % 3]!));
  return { s, assignments };
}

describe('named balance plans', () => {
  it('report each goal as it is optimised and end with the plan an unnamed call gives', async () => {
    const { s, assignments } = skewed();
    await ok(s.call('topics.create', { name: 't', assignments }));
    const seen: EngineEvent[] = [];
    s.subscribe((e) => seen.push(e));
    const named = await ok(s.call('balance.plan', { planId: 'a' }));
    const unnamed = await ok(s.call('balance.plan', {}));
    expect(named).toEqual(unnamed);
    expect(named.replicaMoves).toBeGreaterThan(0);
    const progress = seen.flatMap((e) => (e.type === 'balance.progress' ? [e] : []));
    expect(progress.map((e) => [e.planId, e.goal, e.goalsDone, e.goals])).toEqual(named.goals.map((g, i) => ['a', g.name, i + 1, named.goals.length]));
  });

  it('a cancel between goals ends the plan with CANCELLED; a finished or unknown plan is not cancellable', async () => {
    const { s, assignments } = skewed();
    await ok(s.call('topics.create', { name: 't', assignments }));
    const seen: EngineEvent[] = [];
    s.subscribe((e) => seen.push(e));
    // The plan's first goal runs at once; the cancel comes before the second.
    const planning = s.call('balance.plan', { planId: 'b' });
    const cancel = await ok(s.call('balance.cancel', { planId: 'b' }));
    expect(cancel).toEqual({ cancelled: true });
    const result = await planning;
    expect(result).toMatchObject({ ok: false, error: { code: 'CANCELLED', retriable: false } });
    expect(seen.filter((e) => e.type === 'balance.progress').length).toBe(1);
    expect(await ok(s.call('balance.cancel', { planId: 'b' }))).toEqual({ cancelled: false });
    expect(await ok(s.call('balance.cancel', { planId: 'never' }))).toEqual({ cancelled: false });
    // The id is free again.
    expect((await ok(s.call('balance.plan', { planId: 'b' }))).replicaMoves).toBeGreaterThan(0);
  });

  it('refuses a second running plan under the same id', async () => {
    const { s } = skewed();
    const first = s.call('balance.plan', { planId: 'c' });
    const second = await s.call('balance.plan', { planId: 'c' });
    expect(second).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    expect(await first).toMatchObject({ ok: true });
  });
});
