/**
 * `impact.ofStop` predicts what the controller does when brokers stop: for a generated topology
 * (racks, RF 1–5, min ISR 1–3, some topics with unclean election, a stalled follower out of the
 * ISRs, ELR on and off), the prediction is compared with what the engine actually does when those
 * brokers are then killed — every partition's leader, ISR, ELR and last known ELR, a produce with
 * acks=all per outcome, and the unclean elections the controller reports.
 */
import { describe, expect, it } from 'vitest';
import type { PartitionImpactView, PartitionOutcomeView, StopImpactView } from '../api/impact-contract.js';
import { ELR_FEATURE } from '../core/engine.js';
import { createVirtualClusterService, type VirtualClusterService } from './virtual-service.js';

const RACKS = ['a', 'b', 'c'];
const BROKERS = Array.from({ length: 8 }, (_, i) => ({ id: i + 1, rack: RACKS[i % 3]! }));

/** A small seeded generator (the topology must be the same on every run). */
function generator(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.floor((s / 2 ** 32) * n);
  };
}

function shuffle<T>(list: T[], pick: (n: number) => number): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = pick(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const sorted = (list: readonly number[] | undefined): number[] => [...(list ?? [])].sort((a, b) => a - b);

async function impact(svc: VirtualClusterService, input: { brokers?: number[]; racks?: string[] }): Promise<StopImpactView> {
  const r = await svc.call('impact.ofStop', { ...input, limit: 100_000 });
  if (!r.ok) throw new Error(`impact.ofStop: ${r.error.code} ${r.error.message}`);
  return r.value;
}

/** Every partition's leader, ISR and ELR now, by `topic-partition`. */
function states(svc: VirtualClusterService): Map<string, { leader: number; isr: number[]; elr: number[]; lastKnownElr: number[] }> {
  const out = new Map<string, { leader: number; isr: number[]; elr: number[]; lastKnownElr: number[] }>();
  for (const topic of svc.engine.metadata.topicsByName.values()) {
    for (const s of topic.partitions.values()) out.set(`${topic.name}-${s.partition}`, { leader: s.leader, isr: sorted(s.isr), elr: sorted(s.elr), lastKnownElr: sorted(s.lastKnownElr) });
  }
  return out;
}

/** Kill the brokers in the order predicted, each once the previous one is fenced (the order the prediction assumes). */
function killInOrder(svc: VirtualClusterService, ids: readonly number[]): void {
  for (const id of ids) {
    if (svc.engine.metadata.brokers.get(id)?.fenced) continue;
    svc.sim.engine.killBroker(id);
    svc.sim.waitFor(() => svc.engine.metadata.brokers.get(id)?.fenced === true, 60_000, `broker ${id} fenced`);
  }
  svc.sim.advance(2_000);
}

/** The prediction against the engine: states of every partition, produces, unclean elections. */
function compare(svc: VirtualClusterService, predicted: StopImpactView, before: ReturnType<typeof states>, eventsFrom: number, seen: Set<string>): void {
  const now = states(svc);
  const listed = new Map(predicted.partitions.map((p) => [`${p.topic}-${p.partition}`, p]));
  expect(predicted.partitions.length).toBe(predicted.touched);
  for (const [key, state] of now) {
    const p = listed.get(key);
    if (!p) {
      // A partition no stopped broker is a replica of does not change.
      expect(state, key).toEqual(before.get(key));
      continue;
    }
    expect({ leader: state.leader, isr: state.isr, elr: state.elr, lastKnownElr: state.lastKnownElr }, key).toEqual({
      leader: p.after.leader,
      isr: sorted(p.after.isr),
      elr: sorted(p.after.elr),
      lastKnownElr: sorted(p.after.lastKnownElr),
    });
    seen.add(p.after.outcome);
    if (p.leaderMoves) seen.add(`moved:${p.electedFrom}`);
    if (p.elrLost) seen.add('elr-lost');
  }
  const unclean = new Set(
    svc.sim.events.slice(eventsFrom).flatMap((e) => (e.type === 'leader.changed' && e.unclean ? [`${e.topic}-${e.partition}`] : [])),
  );
  const predictedUnclean = new Set(predicted.partitions.filter((p) => p.electedFrom === 'unclean' || p.electedFrom === 'last-known-leader').map((p) => `${p.topic}-${p.partition}`));
  expect(unclean).toEqual(predictedUnclean);
  // What a producer with acks=all meets, once per outcome.
  const expectedError: Record<PartitionOutcomeView, (code: string) => boolean> = {
    available: (c) => c === 'NONE',
    // An unclean leader is its ISR alone: below min ISR unless that is 1.
    'unclean-elected': (c) => c === (firsts.get('unclean-elected')!.after.isr.length < firsts.get('unclean-elected')!.effectiveMinIsr ? 'NOT_ENOUGH_REPLICAS' : 'NONE'),
    'under-min-isr': (c) => c === 'NOT_ENOUGH_REPLICAS',
    'unclean-only': (c) => c !== 'NONE',
    offline: (c) => c !== 'NONE',
  };
  const firsts = new Map<PartitionOutcomeView, PartitionImpactView>();
  for (const p of predicted.partitions) if (!firsts.has(p.after.outcome)) firsts.set(p.after.outcome, p);
  for (const [outcome, p] of firsts) {
    const r = svc.sim.produce(p.topic, p.partition, ['after the stop'], 'all', 5_000);
    expect(expectedError[outcome](r.errorCode), `${outcome} ${p.topic}-${p.partition}: ${r.errorCode}`).toBe(true);
  }
}

describe('impact.ofStop equals what the engine does when the brokers then stop', () => {
  for (const elr of [false, true]) {
    for (const seed of [3, 11]) {
      it(`ELR ${elr ? 'on' : 'off'}, seed ${seed}`, { timeout: 120_000 }, async () => {
        const pick = generator(seed * 7919 + (elr ? 1 : 0));
        const svc = createVirtualClusterService({ seed, brokers: BROKERS, staticConfigs: { 'auto.leader.rebalance.enable': 'false' } });
        if (elr) expect(svc.sim.engine.updateFeatures([{ feature: ELR_FEATURE, maxVersionLevel: 1, upgradeType: 'upgrade' }])[0]!.errorCode).toBe('NONE');
        // Who does what: a live broker that stops fetching (so it leaves the ISRs it follows in),
        // one broker that stops first, then one rack and the stalled broker.
        const ids = shuffle(BROKERS.map((b) => b.id), pick);
        const stalled = ids[0]!;
        const first = ids[1]!;
        const rackOf = (id: number): string => BROKERS.find((b) => b.id === id)!.rack;
        const rack = RACKS.filter((r) => r !== rackOf(stalled))[pick(2)]!;
        const keeper = ids.find((id) => id !== stalled && id !== first && rackOf(id) !== rack)!;
        for (let t = 0; t < 12; t++) {
          const rf = 1 + pick(5);
          const partitions = 1 + pick(3);
          const configs: Record<string, string> = { 'min.insync.replicas': String(1 + pick(3)) };
          if (pick(4) === 0) configs['unclean.leader.election.enable'] = 'true';
          const assignments = Array.from({ length: partitions }, () => shuffle(BROKERS.map((b) => b.id), pick).slice(0, rf));
          svc.sim.createTopic(`t${t}`, partitions, rf, configs, assignments);
        }
        // The cases the rules differ on, whatever the generator drew: an eligible (or, without
        // ELR, unclean-only) replica, an unclean election, an ELR whose live member then stops.
        svc.sim.createTopic('elr-elect', 1, 2, { 'min.insync.replicas': '2' }, [[first, stalled]]);
        svc.sim.createTopic('unclean', 1, 2, { 'min.insync.replicas': '1', 'unclean.leader.election.enable': 'true' }, [[first, stalled]]);
        svc.sim.createTopic('elr-lost', 1, 2, { 'min.insync.replicas': '2' }, [[keeper, stalled]]);
        svc.sim.waitFor(() => [...svc.engine.metadata.topicsByName.values()].every((t) => [...t.partitions.values()].every((s) => s.isr.length === s.replicas.length)), 60_000, 'every ISR full');

        svc.sim.engine.stallFollower(stalled);
        // A follower with nothing to fetch is in sync however long it waits: give each partition a record.
        for (const topic of svc.engine.metadata.topicsByName.values()) for (const p of topic.partitions.keys()) expect(svc.sim.produce(topic.name, p, ['before'], 1).errorCode).toBe('NONE');
        svc.sim.waitFor(
          () => svc.engine.metadata.somePartition((s) => s.leader !== stalled && s.isr.includes(stalled)) === false,
          120_000,
          `broker ${stalled} out of the ISRs it follows in`,
        );
        svc.sim.advance(2_000);
        const seen = new Set<string>();

        let before = states(svc);
        let from = svc.sim.events.length;
        const one = await impact(svc, { brokers: [first] });
        expect(one.stopped).toEqual([first]);
        killInOrder(svc, one.stopped);
        compare(svc, one, before, from, seen);

        before = states(svc);
        from = svc.sim.events.length;
        const more = await impact(svc, { brokers: [stalled], racks: [rack] });
        const rackIds = BROKERS.filter((b) => b.rack === rack).map((b) => b.id);
        expect(more.stopped).toEqual([stalled, ...rackIds]);
        expect(more.racks.find((r) => r.rack === rack)!.stopped).toEqual(rackIds.filter((id) => id !== first));
        killInOrder(svc, more.stopped);
        compare(svc, more, before, from, seen);

        // The generated topology reached the cases the rules differ on.
        const reached = ['available', 'under-min-isr', 'offline', 'unclean-elected', 'moved:isr', 'moved:unclean'];
        expect([...seen]).toEqual(expect.arrayContaining(elr ? [...reached, 'moved:elr', 'elr-lost'] : [...reached, 'unclean-only']));
      });
    }
  }
});
