import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KafkaError } from '../../api/errors.js';
import type { Goal } from './goals.js';
import { Runner } from './goals.js';
import { optimizeGoal, planBalance, planBalanceSteps } from './plan.js';
import { placeReplicas } from '../placement/index.js';
import { seededRandom } from '../random.js';
import { ClusterState } from './state.js';
import type { BalanceModel, BalancePartition, BalancePlanView } from './types.js';

const brokersOf = (ids: number[], rack: (id: number) => string | null = () => null) => ids.map((id) => ({ id, rack: rack(id), alive: true }));

/** `count` partitions of `topic`, replicas rotating over `on`, leader = first replica. */
function partitionsOf(topic: string, count: number, rf: number, on: number[], bytes = 0): BalancePartition[] {
  return Array.from({ length: count }, (_, p) => {
    const replicas = Array.from({ length: rf }, (_, j) => on[(p + j) % on.length]!);
    return { topic, partition: p, replicas, leader: replicas[0]!, isr: [...replicas], bytes };
  });
}

/** The model after executing the plan and its preferred elections. */
function applyPlan(model: BalanceModel, plan: BalancePlanView): BalanceModel {
  const partitions = model.partitions.map((p) => {
    const change = plan.partitions.find((c) => c.topic === p.topic && c.partition === p.partition);
    if (!change) return p;
    return { ...p, replicas: [...change.replicas], leader: change.replicas[0]!, isr: [...change.replicas] };
  });
  return { brokers: model.brokers, partitions };
}

const count = (plan: BalancePlanView, what: 'replicas' | 'leaders', when: 'before' | 'after') => plan[when].brokers.map((b) => b[what]);
const statusOf = (plan: BalancePlanView, name: string) => plan.goals.find((g) => g.name === name)?.status;

function thrownCode(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof KafkaError) return e.code;
    throw e;
  }
  throw new Error('expected a KafkaError');
}

describe('balance.plan', () => {
  it('spreads a cluster whose replicas all sit on half the brokers, rack-aware, within one of the average', () => {
    const model = { brokers: brokersOf([1, 2, 3, 4, 5, 6], (id) => (id <= 3 ? 'a' : 'b')), partitions: partitionsOf('t', 30, 3, [1, 2, 3], 1000) };
    const plan = planBalance(model);
    expect(count(plan, 'replicas', 'before')).toEqual([30, 30, 30, 0, 0, 0]);
    for (const n of count(plan, 'replicas', 'after')) expect(Math.abs(n - 15)).toBeLessThanOrEqual(1);
    for (const n of count(plan, 'leaders', 'after')) expect(Math.abs(n - 5)).toBeLessThanOrEqual(1);
    expect(plan.goals.map((g) => g.name)).toEqual([
      'RackAwareDistributionGoal',
      'ReplicaCapacityGoal',
      'ReplicaDistributionGoal',
      'DiskUsageDistributionGoal',
      'TopicReplicaDistributionGoal',
      'LeaderReplicaDistributionGoal',
    ]);
    expect(plan.goals.every((g) => g.status !== 'violated')).toBe(true);
    expect(plan.balancedness.after).toBe(100);
    expect(plan.balancedness.before).toBeLessThan(60);
    // Every target spans both racks, lists distinct brokers, keeps RF, and names its leader first.
    for (const c of plan.partitions) {
      expect(new Set(c.replicas).size).toBe(3);
      expect(new Set(c.replicas.map((id) => (id <= 3 ? 'a' : 'b'))).size).toBe(2);
    }
    for (const l of plan.leaderChanges) expect(plan.partitions.find((c) => c.topic === l.topic && c.partition === l.partition)?.replicas[0]).toBe(l.to);
    expect(plan.bytesToMove).toBe(plan.replicaMoves * 1000);
    expect(plan.after.racks.map((r) => r.rack)).toEqual(['a', 'b']);

    // Once executed, the next plan has nothing to do.
    const again = planBalance(applyPlan(model, plan));
    expect(again.partitions).toEqual([]);
    expect(again.leaderChanges).toEqual([]);
    expect(again.balancedness).toEqual({ before: 100, after: 100 });
    expect(again.goals.every((g) => g.status === 'satisfied')).toBe(true);
  });

  it("credits each of the plan's replica moves and leader changes to one goal, so the goals' figures add up to the totals", () => {
    const model = { brokers: brokersOf([1, 2, 3, 4, 5, 6], (id) => (id <= 3 ? 'a' : 'b')), partitions: [...partitionsOf('t', 30, 3, [1, 2, 3], 1000), ...partitionsOf('u', 12, 2, [1, 4], 50)] };
    const plan = planBalance(model);
    expect(plan.replicaMoves).toBeGreaterThan(0);
    expect(plan.goals.reduce((n, g) => n + g.planReplicaMoves, 0)).toBe(plan.replicaMoves);
    expect(plan.goals.reduce((n, g) => n + g.planLeaderChanges, 0)).toBe(plan.leaderChanges.length);
    // The actions applied along the way can exceed the net figures (a later goal may move a replica again).
    expect(plan.goals.reduce((n, g) => n + g.replicaMoves, 0)).toBeGreaterThanOrEqual(plan.replicaMoves);
  });

  it('names the hard goal and the broker that keep a soft goal unmet: two brokers sharing a rack stay low under rack awareness', () => {
    // Racks a: {1}, b: {2}, c: {3, 4}; RF 3 over 3 racks puts one replica in each rack, so brokers 1 and 2
    // hold every partition and brokers 3 and 4 share rack c's: no move can even the counts out.
    const rack = (id: number): string => (id === 1 ? 'a' : id === 2 ? 'b' : 'c');
    const partitions = Array.from({ length: 12 }, (_, p) => {
      const replicas = [1, 2, p % 2 === 0 ? 3 : 4];
      return { topic: 't', partition: p, replicas, leader: replicas[p % 3]!, isr: [...replicas], bytes: 0 };
    });
    const plan = planBalance({ brokers: brokersOf([1, 2, 3, 4], rack), partitions });
    const replicaGoal = plan.goals.find((g) => g.name === 'ReplicaDistributionGoal')!;
    expect(replicaGoal.status).toBe('violated');
    // The low brokers and why: they share rack c. The high ones and why: each is alone in its rack.
    expect(replicaGoal.reason).toMatch(/RackAwareGoal, a hard goal above it, binds: it refused \d+ moves? onto broker ([34]) \(broker \1 shares rack c with broker [34]/);
    expect(replicaGoal.reason).toMatch(/\d+ moves? off broker ([12]) \(broker \1 is the only broker of rack [ab]/);
    // The score's weights: in priority order, each 1.1× the next, a hard goal 1.5× more; they add up to 100.
    const total = plan.goals.reduce((n, g) => n + g.weight, 0);
    expect(total).toBeCloseTo(100, 1);
    const [rackAware, capacity] = plan.goals;
    expect(rackAware!.weight).toBeGreaterThan(capacity!.weight);
    expect(plan.balancedness.after).toBeCloseTo(100 - plan.goals.filter((g) => g.status === 'violated').reduce((n, g) => n + g.weight, 0), 1);
  });

  it('warns when some brokers have a rack and others none, and says RackAwareGoal is met only as far as racks are known', () => {
    const model = { brokers: brokersOf([1, 2, 3, 4], (id) => (id <= 3 ? `rack-${id}` : null)), partitions: partitionsOf('t', 12, 3, [1, 2, 3]) };
    const plan = planBalance(model);
    expect(plan.warnings).toHaveLength(1);
    expect(plan.warnings[0]).toContain('Broker 4 has no broker.rack while broker 1, 2, 3 have one');
    const rack = plan.goals.find((g) => g.name === 'RackAwareGoal')!;
    expect(rack.status).not.toBe('violated');
    expect(rack.reason).toContain('Met only as far as racks are known');
    expect(planBalance({ ...model, brokers: brokersOf([1, 2, 3, 4], (id) => `rack-${id}`) }).warnings).toEqual([]);
  });

  it('says why a soft goal stays violated: which brokers are outside its band', () => {
    // Two brokers hold everything and a third only one replica; leadership cannot move off the only in-sync replicas.
    const model = {
      brokers: brokersOf([1, 2, 3]),
      partitions: Array.from({ length: 9 }, (_, p) => ({ topic: 't', partition: p, replicas: [1, 2], leader: 1, isr: [1], bytes: 0 })),
    };
    const plan = planBalance(model, { leadersOnly: true });
    const leaders = plan.goals.find((g) => g.name === 'LeaderReplicaDistributionGoal')!;
    expect(leaders.status).toBe('violated');
    expect(leaders.reason).toMatch(/^broker 1 holds 9 leaders.*\(band \d+–\d+ per broker\)\. A soft goal: /);
  });

  it('is deterministic: the same state, in any input order, gives the same plan', () => {
    const model = { brokers: brokersOf([1, 2, 3, 4, 5]), partitions: [...partitionsOf('a', 12, 2, [1, 2]), ...partitionsOf('b', 7, 3, [1, 2, 3], 500)] };
    const shuffled = { brokers: [...model.brokers].reverse(), partitions: [...model.partitions].reverse() };
    const plan = planBalance(model);
    expect(plan.partitions.length).toBeGreaterThan(0);
    expect(planBalance(model)).toEqual(plan);
    expect(planBalance(shuffled)).toEqual(plan);
  });

  it('stops where Cruise Control stops when asked not to settle inside the band', () => {
    const model = { brokers: brokersOf([1, 2, 3, 4, 5, 6]), partitions: partitionsOf('t', 30, 3, [1, 2, 3]) };
    expect(count(planBalance(model, { settleInsideBand: false }), 'replicas', 'after')).toEqual([17, 17, 17, 13, 13, 13]);
    expect(count(planBalance(model), 'replicas', 'after')).toEqual([16, 16, 16, 14, 14, 14]);
  });

  it('drains an excluded broker completely, leadership included', () => {
    const rack = (id: number): string => ['a', 'b', 'c'][id % 3]!;
    const model = { brokers: brokersOf([1, 2, 3, 4, 5, 6], rack), partitions: partitionsOf('t', 12, 2, [1, 2, 3, 4, 5, 6], 10) };
    const plan = planBalance(model, { excludeBrokers: [6] });
    expect(plan.before.brokers.find((b) => b.id === 6)).toMatchObject({ excluded: true, replicas: 4, leaders: 2 });
    expect(plan.after.brokers.find((b) => b.id === 6)).toMatchObject({ excluded: true, replicas: 0, leaders: 0, bytes: 0 });
    expect(count(plan, 'replicas', 'after').reduce((a, b) => a + b, 0)).toBe(24);
    for (const c of plan.partitions) {
      expect(c.replicas).not.toContain(6);
      expect(new Set(c.replicas.map(rack)).size).toBe(2);
    }
    expect(statusOf(plan, 'ReplicaDistributionGoal')).toBe('optimized');
    expect(statusOf(plan, 'RackAwareGoal')).toBe('satisfied');
    expect(plan.goals.filter((g) => g.hard).every((g) => g.status !== 'violated')).toBe(true);
  });

  it('drains a dead broker, but keeps what cannot leave without breaking rack awareness', () => {
    const model = { brokers: [...brokersOf([1, 2, 3]), { id: 4, rack: null, alive: false }], partitions: partitionsOf('t', 8, 2, [1, 2, 3, 4]) };
    const plan = planBalance(model);
    expect(plan.after.brokers.find((b) => b.id === 4)!.replicas).toBe(0);
    // RF 3 on 3 brokers: excluding one leaves nowhere to go, and nothing breaks.
    const tight = planBalance({ brokers: brokersOf([1, 2, 3]), partitions: partitionsOf('t', 6, 3, [1, 2, 3]) }, { excludeBrokers: [3] });
    expect(tight.partitions.filter((c) => !c.replicas.includes(3))).toEqual([]);
    expect(statusOf(tight, 'ReplicaDistributionGoal')).toBe('violated');
    expect(tight.balancedness.after).toBeLessThan(100);
  });

  it('with leadersOnly moves leadership only: same replica sets, reordered, plus preferred elections', () => {
    const partitions = partitionsOf('t', 12, 3, [1, 2, 3, 4]).map((p) => ({ ...p, replicas: [1, ...p.replicas.filter((r) => r !== 1)].slice(0, 3), leader: 1 }));
    const model = { brokers: brokersOf([1, 2, 3, 4, 5, 6]), partitions: partitions.map((p) => ({ ...p, isr: [...p.replicas] })) };
    const plan = planBalance(model, { leadersOnly: true });
    expect(plan.replicaMoves).toBe(0);
    expect(plan.bytesToMove).toBe(0);
    for (const c of plan.partitions) expect([...c.replicas].sort()).toEqual([...c.currentReplicas].sort());
    expect(plan.leaderChanges.length).toBeGreaterThan(0);
    expect(plan.leaderChanges.every((l) => l.from === 1)).toBe(true);
    // Leaders spread over the brokers that hold replicas, up to the band's upper limit (3);
    // brokers 5 and 6 hold none, so they lead none and both goals stay violated: leadersOnly
    // never moves data to fix that.
    expect(count(plan, 'leaders', 'before')).toEqual([12, 0, 0, 0, 0, 0]);
    expect(count(plan, 'leaders', 'after')).toEqual([3, 3, 3, 3, 0, 0]);
    expect(statusOf(plan, 'ReplicaDistributionGoal')).toBe('violated');
    expect(statusOf(plan, 'LeaderReplicaDistributionGoal')).toBe('violated');
    expect(plan.goals.find((g) => g.name === 'LeaderReplicaDistributionGoal')!.replicaMoves).toBe(0);
  });

  it('moves bytes off a broker holding the large replicas, swapping to stay within the replica band', () => {
    const partitions = [...partitionsOf('big', 4, 1, [1], 1000), ...partitionsOf('small', 12, 1, [2, 3, 4], 10)];
    const plan = planBalance({ brokers: brokersOf([1, 2, 3, 4]), partitions });
    expect(count(plan, 'replicas', 'before')).toEqual([4, 4, 4, 4]);
    const disk = plan.goals.find((g) => g.name === 'DiskUsageDistributionGoal')!;
    expect(disk.status).toBe('optimized');
    for (const b of plan.after.brokers) {
      expect(b.bytes).toBeGreaterThanOrEqual(disk.band!.lower);
      expect(b.bytes).toBeLessThanOrEqual(disk.band!.upper);
    }
    // Moving big replicas alone would empty broker 1 below the replica band: swaps did the rest.
    const rd = plan.goals.find((g) => g.name === 'ReplicaDistributionGoal')!.band!;
    for (const n of count(plan, 'replicas', 'after')) expect(n).toBeGreaterThanOrEqual(rd.lower);
    expect(plan.partitions.some((c) => c.topic === 'small' && c.replicas[0] === 1)).toBe(true);
  });

  it('spreads each topic over the brokers even when replica counts are already balanced', () => {
    const partitions = [...partitionsOf('a', 8, 1, [1, 2]), ...partitionsOf('b', 8, 1, [3, 4])];
    const plan = planBalance({ brokers: brokersOf([1, 2, 3, 4]), partitions });
    expect(statusOf(plan, 'ReplicaDistributionGoal')).toBe('satisfied');
    expect(statusOf(plan, 'TopicReplicaDistributionGoal')).toBe('optimized');
    const after = applyPlan({ brokers: brokersOf([1, 2, 3, 4]), partitions }, plan);
    for (const id of [1, 2, 3, 4]) expect(after.partitions.filter((p) => p.topic === 'a' && p.replicas.includes(id)).length).toBeLessThanOrEqual(3);
  });

  it('leaves partitions being reassigned or offline alone', () => {
    const partitions = partitionsOf('t', 6, 1, [1]);
    partitions[0] = { ...partitions[0]!, reassigning: true };
    partitions[1] = { ...partitions[1]!, leader: -1, isr: [] };
    const plan = planBalance({ brokers: brokersOf([1, 2, 3]), partitions });
    expect(plan.partitions.map((c) => c.partition).sort()).toEqual([2, 3, 4, 5].filter((p) => plan.partitions.some((c) => c.partition === p)));
    expect(plan.partitions.some((c) => c.partition === 0 || c.partition === 1)).toBe(false);
  });

  it('refuses an unknown excluded broker and a plan with nowhere to put replicas', () => {
    const model = { brokers: brokersOf([1, 2]), partitions: partitionsOf('t', 2, 1, [1, 2]) };
    expect(thrownCode(() => planBalance(model, { excludeBrokers: [9] }))).toBe('BROKER_NOT_FOUND');
    expect(thrownCode(() => planBalance(model, { excludeBrokers: [1, 2] }))).toBe('INVALID_REQUEST');
    expect(thrownCode(() => planBalance(model, { thresholds: { replicaCountBalanceThreshold: 0.5 } }))).toBe('INVALID_INPUT');
  });

  it('treats a goal that worsens its own statistic as a bug (INTERNAL), not as a plan', () => {
    const state = new ClusterState({ brokers: brokersOf([1, 2]), partitions: [] }, new Set());
    let stat = 1;
    const broken: Goal = {
      name: 'ReplicaDistributionGoal',
      hard: false,
      band: null,
      replicaMoves: 0,
      leadershipMoves: 0,
      selfAccepts: () => false,
      accepts: () => true,
      satisfied: () => true,
      unmet: () => null,
      statistic: () => stat,
      optimize: () => {
        stat = 2;
      },
    };
    const run = new Runner(state, false);
    expect(thrownCode(() => optimizeGoal(broken, run))).toBe('INTERNAL');
    expect(run.prior).toEqual([]);
    stat = 1;
    optimizeGoal({ ...broken, optimize: () => {} }, run);
    expect(run.prior).toHaveLength(1);
  });

  it('never breaks its invariants on random clusters (valid targets, earlier goals kept, nothing worse)', () => {
    const arb = fc.record({
      brokers: fc.integer({ min: 1, max: 7 }),
      racks: fc.integer({ min: 0, max: 3 }),
      dead: fc.integer({ min: 0, max: 2 }),
      topics: fc.array(fc.record({ partitions: fc.integer({ min: 1, max: 12 }), rf: fc.integer({ min: 1, max: 3 }), bytes: fc.nat(5000), seed: fc.nat(100) }), { minLength: 1, maxLength: 3 }),
      exclude: fc.boolean(),
      leadersOnly: fc.boolean(),
    });
    fc.assert(
      fc.property(arb, (c) => {
        const ids = Array.from({ length: c.brokers }, (_, i) => i + 1);
        const brokers = ids.map((id) => ({ id, rack: c.racks === 0 ? null : `r${id % c.racks}`, alive: id > Math.min(c.dead, c.brokers - 1) }));
        const partitions = c.topics.flatMap((t, ti) => {
          const rf = Math.min(t.rf, c.brokers);
          return partitionsOf(`t${ti}`, t.partitions, rf, ids.slice(t.seed % c.brokers).concat(ids.slice(0, t.seed % c.brokers)).slice(0, Math.max(rf, 1 + (t.seed % c.brokers))), t.bytes).map((p) => ({
            ...p,
            bytes: (t.bytes * (p.partition + 1)) % 5001,
            leader: brokers.find((b) => b.id === p.replicas.find((r) => brokers.find((x) => x.id === r)?.alive))?.id ?? -1,
          }));
        });
        const excludeBrokers = c.exclude && c.brokers > 1 ? [c.brokers] : [];
        let plan: BalancePlanView;
        try {
          plan = planBalance({ brokers, partitions }, { excludeBrokers, leadersOnly: c.leadersOnly });
        } catch (e) {
          // Only "nowhere to put replicas" is an acceptable refusal.
          expect(e instanceof KafkaError && e.code === 'INVALID_REQUEST').toBe(true);
          return;
        }
        for (const ch of plan.partitions) {
          expect(new Set(ch.replicas).size).toBe(ch.currentReplicas.length);
          expect(ch.replicas.length).toBe(ch.currentReplicas.length);
          if (c.leadersOnly) expect([...ch.replicas].sort()).toEqual([...ch.currentReplicas].sort());
          for (const r of ch.replicas.filter((x) => !ch.currentReplicas.includes(x))) {
            expect(brokers.find((b) => b.id === r)?.alive).toBe(true);
            expect(excludeBrokers).not.toContain(r);
          }
        }
        expect(plan.balancedness.after).toBeGreaterThanOrEqual(plan.balancedness.before);
        // The goals' credited figures add up to the plan's totals; a violated goal says why.
        expect(plan.goals.reduce((n, g) => n + g.planReplicaMoves, 0)).toBe(plan.replicaMoves);
        expect(plan.goals.reduce((n, g) => n + g.planLeaderChanges, 0)).toBe(plan.leaderChanges.length);
        for (const g of plan.goals) if (g.status === 'violated') expect(g.reason).toMatch(/\w/);
        const hardViolated = plan.goals.filter((g) => g.hard && g.status === 'violated').map((g) => g.name);
        const again = planBalance(applyPlan({ brokers, partitions }, plan), { excludeBrokers, leadersOnly: c.leadersOnly });
        // A goal met by the plan is still met when planning again from its result.
        for (const g of plan.goals) if (g.status !== 'violated') expect(again.goals.find((x) => x.name === g.name)!.status).not.toBe('violated');
        expect(hardViolated.every((n) => again.goals.find((g) => g.name === n))).toBe(true);
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it('a cluster the controller placed needs few moves and no explanation; brokers added later are named as the reason for many', () => {
    const placed = brokersOf([1, 2, 3, 4, 5, 6]).map((b) => ({ ...b, fenced: false, inControlledShutdown: false }));
    const random = seededRandom(5);
    const partitions: BalancePartition[] = [];
    for (const topic of ['a', 'b', 'c']) {
      placeReplicas({ brokers: placed, numPartitions: 40, replicationFactor: 3, strategy: 'classic', random }).forEach((replicas, p) =>
        partitions.push({ topic, partition: p, replicas, leader: replicas[0]!, isr: [...replicas], bytes: 0 }),
      );
    }
    const calm = planBalance({ brokers: brokersOf([1, 2, 3, 4, 5, 6]), partitions });
    expect(calm.replicaMoves).toBeLessThanOrEqual(0.05 * 360);
    expect(calm.manyMovesReason).toBeNull();

    // The same topics after brokers 7 and 8 joined: the controller never fills them by itself.
    const grown = planBalance({ brokers: brokersOf([1, 2, 3, 4, 5, 6, 7, 8]), partitions });
    expect(grown.replicaMoves).toBeGreaterThan(0.05 * 360);
    expect(grown.manyMovesReason).toContain(`This plan moves ${grown.replicaMoves} of 360 replicas`);
    expect(grown.manyMovesReason).toContain('Broker 7 (0), 8 (0) hold far fewer replicas than the average of 45');
    expect(grown.manyMovesReason).toContain('brokers added later stay empty until replicas are moved to them');
    const top = [...grown.goals].sort((x, y) => y.planReplicaMoves - x.planReplicaMoves)[0]!;
    expect(grown.manyMovesReason).toContain(`${top.planReplicaMoves} of them for ${top.name}`);
  });

  it('plans in steps, one per goal, and ends with the same plan as planning in one go', () => {
    const model = { brokers: brokersOf([1, 2, 3, 4]), partitions: partitionsOf('t', 24, 3, [1, 2, 3]) };
    const steps = planBalanceSteps(model);
    const seen = [];
    let r = steps.next();
    while (!r.done) {
      seen.push(r.value);
      r = steps.next();
    }
    expect(seen.map((x) => x.goal)).toEqual(r.value.goals.map((g) => g.name));
    expect(seen.map((x) => x.goalsDone)).toEqual(seen.map((_, i) => i + 1));
    expect(seen.every((x) => x.goals === seen.length)).toBe(true);
    expect(r.value).toEqual(planBalance(model));
  });
});

