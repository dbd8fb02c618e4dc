/*
 * Scenarios 19–22 (docs/semantics.md#the-scenario-suite: placement, CreateTopics/CreatePartitions
 * validation, topic names), run through the controller of a simulated cluster rather than
 * the placer: what a client of CreateTopics/CreatePartitions would see, and what the metadata
 * image records.
 */
import { describe, expect, it } from 'vitest';
import { kafkaErrorOf } from '../../core/test-support/kafka-error.js';
import type { PartitionState } from '../../core/metadata/records.js';
import type { PlacementStrategy } from '../../core/placement/index.js';
import { Simulation, recordText } from '../simulation.js';

const strategies: PlacementStrategy[] = ['classic', 'striped'];

/** The replica lists of a topic as the controller's image records them, by partition id. */
function assignmentOf(sim: Simulation, topic: string): number[][] {
  const t = sim.engine.metadata.topicsByName.get(topic);
  if (!t) throw new Error(`no topic ${topic}`);
  return [...t.partitions.values()].sort((a, b) => a.partition - b.partition).map((s) => [...s.replicas]);
}

function statesOf(sim: Simulation, topic: string): PartitionState[] {
  const t = sim.engine.metadata.topicsByName.get(topic);
  if (!t) throw new Error(`no topic ${topic}`);
  return [...t.partitions.values()].sort((a, b) => a.partition - b.partition);
}

/** Every partition of `topic` is led, on the leader broker itself, by the recorded leader. */
function leadersServing(sim: Simulation, topic: string): boolean {
  return statesOf(sim, topic).every((s) => s.leader >= 0 && !!sim.internals.brokers.get(s.leader)?.partitionFor(topic, s.partition)?.isLeader);
}

/**
 * Violations collected as sentences: thousands of partitions per run are too many for one
 * expect() each, and a list of every broken partition says more than the first failure.
 */
class Checks {
  readonly violations: string[] = [];
  check(ok: boolean, what: string): void {
    if (!ok) this.violations.push(what);
  }
}

/** Checks that hold for every freshly created partition: distinct replicas, leader replicas[0], epochs 0. */
function checkFreshTopic(c: Checks, sim: Simulation, topic: string, rf: number): void {
  for (const s of statesOf(sim, topic)) {
    const where = `${topic}-${s.partition} ${JSON.stringify(s.replicas)}`;
    c.check(s.replicas.length === rf, `${where}: ${rf} replicas`);
    c.check(new Set(s.replicas).size === s.replicas.length, `${where}: no broker repeated`);
    c.check(s.leader === s.replicas[0], `${where}: leader ${s.leader} is replicas[0]`);
    c.check(s.leaderEpoch === 0 && s.partitionEpoch === 0, `${where}: epochs ${s.leaderEpoch}/${s.partitionEpoch} are 0/0`);
    c.check(s.addingReplicas.length === 0 && s.removingReplicas.length === 0, `${where}: no reassignment`);
  }
}

/** How many partitions of `topic` each broker is the first replica of. */
function firstReplicaCounts(sim: Simulation, topic: string): Map<number, number> {
  const counts = new Map<number, number>();
  for (const replicas of assignmentOf(sim, topic)) counts.set(replicas[0]!, (counts.get(replicas[0]!) ?? 0) + 1);
  return counts;
}

/** The classic pattern (AdminUtils' rack-unaware assignment) over `brokers` (in list order) for a start index and initial shift. */
function classicPattern(brokers: number[], partitions: number, rf: number, startIndex: number, initialShift: number): number[][] {
  const n = brokers.length;
  let shift = initialShift;
  const out: number[][] = [];
  for (let p = 0; p < partitions; p++) {
    if (p > 0 && p % n === 0) shift += 1;
    const first = (p + startIndex) % n;
    const replicas = [brokers[first]!];
    for (let j = 0; j < rf - 1; j++) replicas.push(brokers[(first + 1 + ((shift + j) % (n - 1))) % n]!);
    out.push(replicas);
  }
  return out;
}

describe('replica placement and topic creation through the controller', () => {
  it("places new topics with the KRaft controller's striped placer by default, as Kafka 4.x does (classic only when asked for)", () => {
    const assignment = (seed: number, placement?: PlacementStrategy): number[][] => {
      const sim = new Simulation({ seed, brokers: 5, ...(placement ? { placement } : {}) });
      sim.createTopic('orders', 5, 3);
      return assignmentOf(sim, 'orders');
    };
    let differsFromClassic = 0;
    for (let seed = 1; seed <= 8; seed++) {
      const byDefault = assignment(seed);
      expect(byDefault).toEqual(assignment(seed, 'striped'));
      if (JSON.stringify(byDefault) !== JSON.stringify(assignment(seed, 'classic'))) differsFromClassic++;
      // The striped placer on a single rack: each of the first n partitions takes consecutive brokers of the sorted
      // list from a rotating start, so every broker leads one of them.
      for (const replicas of byDefault) for (let j = 1; j < replicas.length; j++) expect(replicas[j]).toBe((replicas[j - 1]! % 5) + 1);
      expect(new Set(byDefault.map((r) => r[0])).size).toBe(5);
    }
    expect(differsFromClassic).toBeGreaterThan(0);
  });

  it('scenario 19: classic assignment through topic creation is reproducible', () => {
    const created = (seed: number, strategy: PlacementStrategy = 'classic'): number[][][] => {
      const sim = new Simulation({ seed, brokers: 5, placement: strategy });
      sim.createTopic('orders', 10, 3);
      sim.createTopic('payments', 7, 2);
      return [assignmentOf(sim, 'orders'), assignmentOf(sim, 'payments')];
    };

    for (const seed of [1, 2, 42]) {
      // Same seed, same history: the whole cluster (registration, placement) replays exactly.
      expect(created(seed)).toEqual(created(seed));
      expect(created(seed, 'striped')).toEqual(created(seed, 'striped'));
    }

    // Through the controller the classic algorithm is still exact: the topic matches the classic
    // pattern over the brokers sorted by id for one (random) start index and initial shift.
    const starts = new Set<number>();
    for (let seed = 1; seed <= 12; seed++) {
      const [orders] = created(seed);
      const matches: [number, number][] = [];
      for (let s = 0; s < 5; s++) {
        for (let k = 0; k < 5; k++) {
          if (JSON.stringify(classicPattern([1, 2, 3, 4, 5], 10, 3, s, k)) === JSON.stringify(orders)) matches.push([s, k]);
        }
      }
      expect(matches.length, `seed ${seed}: ${JSON.stringify(orders)} follows the classic pattern`).toBeGreaterThan(0);
      starts.add(orders![0]![0]!);
    }
    // Different seeds (usually) start on different brokers, so small topics do not pile onto one.
    expect(starts.size).toBeGreaterThan(1);
  });

  it('scenario 20: placement invariants through topic creation', () => {
    for (const strategy of strategies) {
      const c = new Checks();

      // --- 5 unfenced brokers, 100 topics × 10 partitions, RF 3.
      const five = new Simulation({ seed: 20, brokers: 5, placement: strategy });
      for (let t = 0; t < 100; t++) {
        const topic = `t${t}`;
        const { partitions } = five.engine.createTopic({ name: topic, partitions: 10, replicationFactor: 3 });
        c.check(JSON.stringify(partitions) === JSON.stringify(statesOf(five, topic)), `${topic}: the reply is what the image records`);
        checkFreshTopic(c, five, topic, 3);
        for (const s of statesOf(five, topic)) c.check([...s.isr].sort().join() === [...s.replicas].sort().join(), `${topic}-${s.partition}: ISR = every replica`);
        const counts = firstReplicaCounts(five, topic);
        for (const b of [1, 2, 3, 4, 5]) c.check(counts.get(b) === 2, `${strategy} ${topic}: broker ${b} is first replica of ${counts.get(b) ?? 0}, not 2`);
      }
      // The brokers act on it: each recorded leader serves its partition, and nobody moved.
      five.waitFor(() => [0, 99].every((t) => leadersServing(five, `t${t}`)), 30_000, 'leaders serving');
      expect(five.eventsOf('leader.changed')).toEqual([]);
      expect(five.eventsOf('topic.created')).toHaveLength(100);

      // --- 3 racks × 2 brokers: every RF 3 partition spans the 3 racks.
      const racked = new Simulation({
        seed: 21,
        placement: strategy,
        brokers: [
          { id: 1, rack: 'r1' },
          { id: 2, rack: 'r1' },
          { id: 3, rack: 'r2' },
          { id: 4, rack: 'r2' },
          { id: 5, rack: 'r3' },
          { id: 6, rack: 'r3' },
        ],
      });
      const rackOf = new Map([...racked.engine.metadata.brokers.values()].map((b) => [b.id, b.rack]));
      expect(rackOf.get(6)).toBe('r3');
      for (let t = 0; t < 100; t++) {
        const topic = `r${t}`;
        racked.engine.createTopic({ name: topic, partitions: 10, replicationFactor: 3 });
        checkFreshTopic(c, racked, topic, 3);
        for (const replicas of assignmentOf(racked, topic)) {
          c.check(new Set(replicas.map((b) => rackOf.get(b))).size === 3, `${strategy} ${topic} ${JSON.stringify(replicas)}: spans 3 racks`);
        }
      }

      // --- A killed broker, once fenced (~9 s after its last heartbeat), is never replicas[0].
      const fencedSim = new Simulation({ seed: 22, brokers: 5, placement: strategy });
      fencedSim.engine.killBroker(5);
      const took = fencedSim.waitFor(() => !!fencedSim.engine.metadata.brokers.get(5)?.fenced, 15_000, 'broker 5 fenced');
      expect(took).toBeGreaterThan(9_000 - 2_000);
      expect(took).toBeLessThanOrEqual(9_000);
      for (let t = 0; t < 100; t++) {
        // RF 3 fits on the unfenced brokers; RF 5 needs the fenced one too, and still never leads with it.
        const rf = t % 2 === 0 ? 3 : 5;
        const topic = `f${t}`;
        fencedSim.engine.createTopic({ name: topic, partitions: 10, replicationFactor: rf });
        checkFreshTopic(c, fencedSim, topic, rf);
        for (const s of statesOf(fencedSim, topic)) {
          c.check(s.replicas[0] !== 5, `${strategy} ${topic}-${s.partition} ${JSON.stringify(s.replicas)}: fenced broker 5 is not replicas[0]`);
          c.check(!s.isr.includes(5), `${strategy} ${topic}-${s.partition}: fenced broker 5 is not in the ISR`);
          if (rf === 5) c.check(s.replicas.includes(5), `${topic}-${s.partition}: RF 5 on 5 registered brokers uses broker 5`);
        }
      }
      // The fenced broker still counts as registered for the RF check.
      expect(kafkaErrorOf(() => fencedSim.engine.createTopic({ name: 'too-wide', partitions: 1, replicationFactor: 6 })).message).toContain(
        'only 5 broker(s) are registered',
      );

      // --- A broker in controlled shutdown gets nothing, and does not count for the RF check.
      const shutdownSim = new Simulation({ seed: 23, brokers: 5, placement: strategy });
      shutdownSim.createTopic('seed', 10, 3);
      // A broker that leads partitions is held in controlled shutdown until the other brokers
      // have caught up with the metadata that moved its leaderships (their next heartbeats).
      expect(firstReplicaCounts(shutdownSim, 'seed').get(4)).toBe(2);
      shutdownSim.engine.stopBroker(4);
      const registration = () => shutdownSim.engine.metadata.brokers.get(4)!;
      shutdownSim.waitFor(() => registration().inControlledShutdown, 1_000, 'broker 4 in controlled shutdown');
      expect(registration().fenced).toBe(false);
      // Cutting its link to the controller now keeps it there: the controller never hears the
      // heartbeat that would be granted shutdown, so it stays "in controlled shutdown" (unfenced)
      // until its session expires 9 s after its last heartbeat.
      shutdownSim.engine.cutLink(4, 'controller');
      shutdownSim.advance(5_000);
      expect(registration()).toMatchObject({ inControlledShutdown: true, fenced: false });
      expect(shutdownSim.engine.brokerState(4)).toBe('controlled-shutdown');
      for (const s of statesOf(shutdownSim, 'seed')) c.check(s.leader !== 4 && !s.isr.includes(4), `seed-${s.partition}: broker 4 left leadership and ISR`);
      for (let t = 0; t < 100; t++) {
        const rf = t % 2 === 0 ? 3 : 4;
        const topic = `s${t}`;
        shutdownSim.engine.createTopic({ name: topic, partitions: 10, replicationFactor: rf });
        checkFreshTopic(c, shutdownSim, topic, rf);
        for (const replicas of assignmentOf(shutdownSim, topic)) c.check(!replicas.includes(4), `${strategy} ${topic} ${JSON.stringify(replicas)}: nothing on broker 4`);
        // 10 partitions over the 4 usable brokers: each leads ⌊10/4⌋ or ⌈10/4⌉.
        const counts = firstReplicaCounts(shutdownSim, topic);
        for (const b of [1, 2, 3, 5]) c.check(counts.get(b) === 2 || counts.get(b) === 3, `${strategy} ${topic}: broker ${b} first replica of ${counts.get(b) ?? 0}`);
      }
      const wide = kafkaErrorOf(() => shutdownSim.engine.createTopic({ name: 'too-wide', partitions: 1, replicationFactor: 5 }));
      expect(wide.code).toBe('INVALID_REPLICATION_FACTOR');
      expect(wide.message).toContain('only 4 broker(s) are registered');
      expect(registration()).toMatchObject({ inControlledShutdown: true, fenced: false });

      expect(c.violations, strategy).toEqual([]);
    }
  });

  it('scenario 21: create-topic validation', () => {
    const sim = new Simulation({ seed: 21, brokers: 3 });
    const controller = sim.internals.controller;
    const create = (input: Parameters<typeof controller.createTopic>[0]) => kafkaErrorOf(() => controller.createTopic(input));
    const metadataEnd = () => controller.endOffset;

    // Replication factor and partition count.
    const rf4 = create({ name: 'rf4', partitions: 1, replicationFactor: 4 });
    expect(rf4.code).toBe('INVALID_REPLICATION_FACTOR');
    expect(rf4.message).toBe(
      'Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached because only 3 broker(s) are registered.',
    );
    for (const rf of [0, -2]) {
      const e = create({ name: 'rf0', partitions: 1, replicationFactor: rf });
      expect(e.code, `RF ${rf}`).toBe('INVALID_REPLICATION_FACTOR');
      expect(e.message).toBe('Replication factor must be larger than 0, or -1 to use the default value.');
    }
    for (const partitions of [0, -2]) expect(create({ name: 'p0', partitions, replicationFactor: 1 }).code, `partitions ${partitions}`).toBe('INVALID_PARTITIONS');

    // Names.
    for (const name of ['', '.', '..', 'a b', 'é', 'a'.repeat(250)]) {
      const e = create({ name, partitions: 1, replicationFactor: 1 });
      expect(e.code, JSON.stringify(name)).toBe('INVALID_TOPIC_EXCEPTION');
      expect(e.message).toMatch(/^Topic name is invalid: /);
    }
    expect(create({ name: '', partitions: 1, replicationFactor: 1 }).message).toContain('the empty string is not allowed');
    expect(create({ name: 'a'.repeat(250), partitions: 1, replicationFactor: 1 }).message).toContain('longer than the max allowed length 249');
    const reserved = create({ name: '__cluster_metadata', partitions: 1, replicationFactor: 1 });
    expect(reserved.code).toBe('INVALID_REQUEST');
    expect(reserved.message).toBe('Creation of internal topic __cluster_metadata is prohibited.');

    // Nothing so far reached the metadata log.
    expect(controller.image.topicsByName.size).toBe(0);
    const beforeValid = metadataEnd();

    sim.createTopic('a'.repeat(249), 1, 3);
    expect(sim.produce('a'.repeat(249), 0, ['x']).errorCode).toBe('NONE');
    sim.createTopic('a.b', 2, 2);
    const collision = create({ name: 'a_b', partitions: 1, replicationFactor: 1 });
    expect(collision.code).toBe('INVALID_TOPIC_EXCEPTION');
    expect(collision.message).toBe("Topic 'a_b' collides with existing topic: a.b");
    expect(create({ name: 'a.b', partitions: 1, replicationFactor: 1 }).code).toBe('TOPIC_ALREADY_EXISTS');
    expect(assignmentOf(sim, 'a.b')).toHaveLength(2);
    expect(metadataEnd()).toBeGreaterThan(beforeValid);

    // -1 means the broker defaults: num.partitions = 1, default.replication.factor = 1.
    controller.createTopic({ name: 'defaults', partitions: -1, replicationFactor: -1 });
    expect(assignmentOf(sim, 'defaults').map((r) => r.length)).toEqual([1]);

    // Manual assignments.
    for (const extra of [{ partitions: 2 }, { replicationFactor: 2 }, { partitions: 2, replicationFactor: 2 }]) {
      const e = create({ name: 'manual', assignments: [[1, 2], [2, 3]], ...extra });
      expect(e.code, JSON.stringify(extra)).toBe('INVALID_REQUEST');
    }
    const badAssignments: [string, number[][]][] = [
      ['empty list', []],
      ['empty replica list', [[]]],
      ['unknown broker', [[1, 9]]],
      ['duplicate broker', [[1, 1]]],
      ['inconsistent RF', [[1, 2], [3]]],
    ];
    for (const [what, assignments] of badAssignments) expect(create({ name: 'manual', assignments }).code, what).toBe('INVALID_REPLICA_ASSIGNMENT');
    expect(controller.image.topicsByName.has('manual')).toBe(false);
    sim.createTopic('manual', -1, -1, {}, [[3, 1], [1, 2], [2, 3]]);
    expect(assignmentOf(sim, 'manual')).toEqual([[3, 1], [1, 2], [2, 3]]);
    expect(statesOf(sim, 'manual').map((s) => s.leader)).toEqual([3, 1, 2]);

    // validateOnly: the full answer, nothing created.
    const end = metadataEnd();
    const createdEvents = sim.eventsOf('topic.created').length;
    const dry = controller.createTopic({ name: 'dry', partitions: 3, replicationFactor: 3, validateOnly: true });
    expect(dry.partitions).toHaveLength(3);
    for (const p of dry.partitions) expect(new Set(p.replicas).size).toBe(3);
    expect(create({ name: 'dry', partitions: 3, replicationFactor: 4, validateOnly: true }).code).toBe('INVALID_REPLICATION_FACTOR');
    expect(create({ name: 'a_b', partitions: 1, replicationFactor: 1, validateOnly: true }).code).toBe('INVALID_TOPIC_EXCEPTION');
    controller.createTopic({ name: 'dry-manual', assignments: [[1, 2, 3]], validateOnly: true });
    sim.advance(1_000);
    expect(controller.image.topicsByName.has('dry')).toBe(false);
    expect(controller.image.topicsByName.has('dry-manual')).toBe(false);
    expect(metadataEnd()).toBe(end);
    expect(sim.eventsOf('topic.created')).toHaveLength(createdEvents);
    expect(sim.engine.describePartition('dry', 0)).toBeUndefined();
    // ...and the name is still free.
    sim.createTopic('dry', 3, 3);

    // A manual assignment whose every replica is fenced is refused; a partly fenced one is led by
    // the first active replica.
    sim.engine.killBroker(3);
    sim.waitFor(() => !!controller.image.brokers.get(3)?.fenced, 15_000, 'broker 3 fenced');
    expect(create({ name: 'on-fenced', assignments: [[3]] }).code).toBe('INVALID_REPLICA_ASSIGNMENT');
    controller.createTopic({ name: 'partly-fenced', assignments: [[3, 1]] });
    expect(statesOf(sim, 'partly-fenced')[0]).toMatchObject({ replicas: [3, 1], isr: [1], leader: 1, leaderEpoch: 0, partitionEpoch: 0 });
  });

  it('scenario 22: partition count only grows', () => {
    const sim = new Simulation({ seed: 22, brokers: 3 });
    const controller = sim.internals.controller;
    sim.createTopic('grow', 3, 3);
    for (let p = 0; p < 3; p++) expect(sim.produce('grow', p, [`p${p}-a`, `p${p}-b`]).errorCode).toBe('NONE');
    const before = statesOf(sim, 'grow');

    // validateOnly grows nothing.
    expect(controller.createPartitions('grow', 6, undefined, true)).toHaveLength(3);
    expect(statesOf(sim, 'grow')).toHaveLength(3);

    const added = controller.createPartitions('grow', 6);
    expect(added.map((s) => s.partition)).toEqual([3, 4, 5]);
    expect(sim.eventsOf('partitions.added')).toMatchObject([{ topic: 'grow', previousCount: 3, totalCount: 6 }]);
    const after = statesOf(sim, 'grow');
    expect(after).toHaveLength(6);
    // Existing partitions are untouched: same replicas, leader, ISR and epochs.
    expect(after.slice(0, 3)).toEqual(before);
    for (const s of after.slice(3)) {
      expect(s.replicas).toHaveLength(3);
      expect(new Set(s.replicas).size).toBe(3);
      expect(s).toMatchObject({ leader: s.replicas[0], leaderEpoch: 0, partitionEpoch: 0 });
    }
    sim.waitFor(() => leadersServing(sim, 'grow'), 30_000, 'new partitions led');
    for (let p = 0; p < 3; p++) expect(sim.consumeAll('grow', p).map(recordText)).toEqual([`p${p}-a`, `p${p}-b`]);
    for (let p = 3; p < 6; p++) {
      const r = sim.produce('grow', p, [`new${p}`]);
      expect(r).toMatchObject({ errorCode: 'NONE', baseOffset: 0 });
      expect(sim.consumeAll('grow', p).map(recordText)).toEqual([`new${p}`]);
    }

    const same = kafkaErrorOf(() => controller.createPartitions('grow', 6));
    expect(same.code).toBe('INVALID_PARTITIONS');
    expect(same.message).toContain('already has 6');
    const fewer = kafkaErrorOf(() => controller.createPartitions('grow', 4));
    expect(fewer.code).toBe('INVALID_PARTITIONS');
    expect(fewer.message).toContain('4 would not be an increase');

    // Manual assignments must name exactly the added partitions, with the topic's RF.
    expect(kafkaErrorOf(() => controller.createPartitions('grow', 8, [[1, 2, 3]])).code).toBe('INVALID_REPLICA_ASSIGNMENT');
    expect(kafkaErrorOf(() => controller.createPartitions('grow', 7, [[1, 2, 3], [2, 3, 1]])).code).toBe('INVALID_REPLICA_ASSIGNMENT');
    // A topic of RF 3 takes no RF 2 partition (Kafka validates each list against the topic's RF).
    const narrower = kafkaErrorOf(() => controller.createPartitions('grow', 7, [[1, 2]]));
    expect(narrower.code).toBe('INVALID_REPLICA_ASSIGNMENT');
    expect(narrower.message).toContain('with 2 replica(s)');
    expect(kafkaErrorOf(() => controller.createPartitions('grow', 7, [[1, 1, 2]])).code).toBe('INVALID_REPLICA_ASSIGNMENT');
    expect(kafkaErrorOf(() => controller.createPartitions('grow', 7, [[1, 2, 9]])).code).toBe('INVALID_REPLICA_ASSIGNMENT');
    expect(kafkaErrorOf(() => controller.createPartitions('missing', 7)).code).toBe('UNKNOWN_TOPIC_OR_PARTITION');
    expect(statesOf(sim, 'grow')).toHaveLength(6);

    controller.createPartitions('grow', 8, [
      [2, 3, 1],
      [3, 1, 2],
    ]);
    expect(assignmentOf(sim, 'grow').slice(6)).toEqual([
      [2, 3, 1],
      [3, 1, 2],
    ]);
    sim.waitFor(() => leadersServing(sim, 'grow'), 30_000, 'manually placed partitions led');
    expect(sim.produce('grow', 7, ['seven']).errorCode).toBe('NONE');
    expect(sim.consumeAll('grow', 0).map(recordText)).toEqual(['p0-a', 'p0-b']);
  });
});
