/**
 * Metadata snapshots (KRaft's SnapshotGenerator / MetadataLoader) under random histories: an image
 * loaded from a snapshot and then the records after it equals the image of the whole log; a
 * cluster reopened from its data directory has the metadata it was closed with; a broker that
 * starts behind the records the controller keeps loads the snapshot and ends up with the
 * controller's image and the replicas it assigns to it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { MetadataImage } from '../core/metadata/image.js';
import { RELEASE_BATCH_RECORDS } from '../core/controller/metadata-log.js';
import { loadSnapshot, snapshotOf } from '../core/metadata/snapshot.js';
import { SqliteStorage } from '../storage/sqlite-storage.js';
import { Simulation } from './simulation.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * A random history on `sim`, drawn from `seed`: topics come and go, configs change, brokers fail
 * and return, data is written, producer ids are handed out, ACL bindings, SCRAM credentials and
 * client quotas are set and removed.
 */
function randomHistory(sim: Simulation, seed: number, steps: number): void {
  let s = seed >>> 0;
  const next = (n: number): number => {
    s = (Math.imul(s ^ (s >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
    return s % n;
  };
  const ids = [1, 2, 3, 4];
  let topics = 0;
  const tryIt = (fn: () => void): void => {
    try {
      fn();
    } catch {
      // a refused admin call (no controller, topic gone, ...) is part of a random history
    }
  };
  for (let i = 0; i < steps; i++) {
    const live = [...sim.engine.metadata.topicsByName.keys()];
    const topic = live[next(Math.max(1, live.length))];
    switch (next(14)) {
      case 11: {
        const binding = { resourceType: 'TOPIC', resourceName: `t${next(4)}`, patternType: next(2) ? 'LITERAL' : 'PREFIXED', principal: `User:u${next(3)}`, host: '*', operation: next(2) ? 'READ' : 'WRITE', permissionType: next(4) ? 'ALLOW' : 'DENY' } as const;
        tryIt(() => sim.engine.security.createAcls([binding]));
        if (next(3) === 0) tryIt(() => sim.engine.security.deleteAcls([{ resourceType: 'TOPIC', resourceName: null, patternType: 'ANY', principal: `User:u${next(3)}`, host: null, operation: 'ANY', permissionType: 'ANY' }]));
        break;
      }
      case 12: {
        const name = `u${next(3)}`;
        const mechanism = next(2) ? 'SCRAM-SHA-256' : 'SCRAM-SHA-512';
        if (next(3) === 0) tryIt(() => sim.engine.security.alterScramCredentials([{ name, mechanism }], []));
        else tryIt(() => sim.engine.security.alterScramCredentials([], [{ name, mechanism, iterations: 4096 + next(100), salt: `s${next(99)}`, storedKey: `k${next(99)}`, serverKey: `v${next(99)}` }]));
        break;
      }
      case 13: {
        const entity = next(2) ? { user: next(2) ? `u${next(3)}` : null } : { 'client-id': `c${next(2)}` };
        tryIt(() => sim.engine.security.alterClientQuotas([{ entity, ops: [{ key: 'producer_byte_rate', value: next(3) ? 1024 * (1 + next(8)) : null }] }]));
        break;
      }
      case 0:
      case 1:
        tryIt(() => sim.engine.createTopic({ name: `t${topics++}`, partitions: 1 + next(4), replicationFactor: 1 + next(3) }));
        break;
      case 2:
        if (topic) tryIt(() => sim.engine.deleteTopic(topic));
        break;
      case 3:
        if (topic) tryIt(() => sim.engine.alterConfigs('topic', topic, { 'retention.ms': String(60_000 * (1 + next(100))), 'unclean.leader.election.enable': next(2) ? 'true' : null }));
        else tryIt(() => sim.engine.alterConfigs('broker', '', { 'log.retention.ms': String(3_600_000 + next(1000)) }));
        break;
      case 4:
        tryIt(() => sim.engine.killBroker(ids[next(4)]!));
        break;
      case 5:
        tryIt(() => sim.engine.stopBroker(ids[next(4)]!));
        break;
      case 6:
        for (const id of ids) tryIt(() => sim.engine.startBroker(id));
        break;
      case 7:
        if (topic) sim.engine.produce({ topic, partition: 0, acks: 1, timeoutMs: 1_000, records: [{ key: null, value: new Uint8Array([next(256)]), headers: [], timestamp: 0 }] }, () => {});
        break;
      case 10:
        // eligible.leader.replicas.version on or off, and min ISR 2 on a topic, so ELRs come and go
        if (topic) tryIt(() => sim.engine.alterConfigs('topic', topic, { 'min.insync.replicas': next(2) ? '2' : null }));
        {
          const level = next(3) ? 1 : 0;
          tryIt(() => sim.engine.updateFeatures([{ feature: 'eligible.leader.replicas.version', maxVersionLevel: level, upgradeType: level ? 'upgrade' : 'safe-downgrade' }]));
        }
        break;
      case 8:
        if (topic) tryIt(() => sim.engine.createPartitions(topic, (sim.engine.metadata.topicsByName.get(topic)?.partitions.size ?? 0) + 1));
        break;
      case 9:
        // An idempotent producer starts: its broker may take a block of producer ids (a ProducerIds record).
        sim.engine.initProducerIdRequest(ids[next(4)]!, { type: 'initProducerId', transactionalId: null, transactionTimeoutMs: 60_000 }, () => {});
        break;
    }
    sim.advance(next(8_000));
  }
}

describe('metadata snapshots', () => {
  it('an image loaded from a snapshot, then the records after it, equals the image of the whole log (random histories and splits)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.double({ min: 0, max: 1, noNaN: true }), (seed, at) => {
        const sim = new Simulation({ seed, brokers: 4 });
        randomHistory(sim, seed, 25);
        const log = sim.internals.controller.records();
        const whole = new MetadataImage();
        for (const r of log) whole.apply(r);
        const split = Math.floor(at * log.length);
        const prefix = new MetadataImage();
        for (const r of log.slice(0, split)) prefix.apply(r);
        // Through JSON, as the snapshot is stored.
        const loaded = new MetadataImage();
        loadSnapshot(loaded, JSON.parse(JSON.stringify(snapshotOf(prefix))));
        for (const r of log.slice(split)) loaded.apply(r);
        expect(snapshotOf(loaded)).toEqual(snapshotOf(whole));
        expect(snapshotOf(whole)).toEqual(snapshotOf(sim.internals.controller.image));
      }),
      { numRuns: 12 },
    );
  });

  it('a reopened cluster has the metadata it was closed with, after an orderly close or a crash (random histories)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.boolean(), (seed, orderly) => {
        const dir = mkdtempSync(join(tmpdir(), 'replica-snapshot-'));
        dirs.push(dir);
        let storage = SqliteStorage.open(dir);
        let sim = new Simulation({ seed, brokers: 4, storage });
        randomHistory(sim, seed, 20);
        sim.internals.controller.takeSnapshot(); // a snapshot mid-history: the rest is replayed from records
        randomHistory(sim, seed + 1, 10);
        if (orderly) {
          sim.engine.shutdown();
          sim.waitFor(() => sim.engine.isShutDown(), 120_000, 'shutdown');
          sim.engine.snapshotMetadata();
        }
        const closed = snapshotOf(sim.internals.controller.image);
        storage.close();

        storage = SqliteStorage.open(dir);
        sim = new Simulation({ seed, brokers: 4, storage, start: false });
        expect(snapshotOf(sim.internals.controller.image)).toEqual(closed);
        storage.close();
      }),
      { numRuns: 6 },
    );
  });

  it('a reopened cluster keeps the eligible.leader.replicas.version level, the ELR and the last known ELR (KIP-966) from its snapshot', () => {
    const dir = mkdtempSync(join(tmpdir(), 'replica-snapshot-elr-'));
    dirs.push(dir);
    let storage = SqliteStorage.open(dir);
    let sim = new Simulation({ seed: 12, brokers: 3, storage });
    expect(sim.engine.updateFeatures([{ feature: 'eligible.leader.replicas.version', maxVersionLevel: 1 }])[0]!.errorCode).toBe('NONE');
    sim.createTopic('t', 1, 3, { 'min.insync.replicas': '2' }, [[1, 2, 3]]);
    expect(sim.produce('t', 0, ['a']).errorCode).toBe('NONE');
    sim.engine.stallFollower(3);
    sim.produce('t', 0, ['b'], 1);
    sim.waitFor(() => sim.partition('t', 0).isr.length === 2, 60_000, 'ISR {1,2}');
    sim.engine.stallFollower(2);
    sim.produce('t', 0, ['c'], 1);
    sim.waitFor(() => sim.partition('t', 0).isr.length === 1, 60_000, 'ISR {1}');
    sim.engine.killBroker(2);
    sim.engine.killBroker(1);
    sim.waitFor(() => sim.partition('t', 0).isr.length === 0, 60_000, 'an empty ISR');
    expect(sim.partition('t', 0)).toMatchObject({ leader: -1, isr: [], lastKnownElr: [2] });
    expect([...(sim.partition('t', 0).elr ?? [])].sort()).toEqual([1, 2]);
    sim.internals.controller.takeSnapshot(); // the ELR state is in the snapshot, not only in records after it
    const closed = snapshotOf(sim.internals.controller.image);
    expect(closed.features).toEqual([['eligible.leader.replicas.version', 1]]);
    storage.close();

    storage = SqliteStorage.open(dir);
    sim = new Simulation({ seed: 12, brokers: 3, storage, start: false });
    expect(snapshotOf(sim.internals.controller.image)).toEqual(closed);
    expect(sim.engine.describeFeatures()[0]!.finalizedLevel).toBe(1);
    expect(sim.internals.controller.image.topicsByName.get('t')!.partitions.get(0)).toMatchObject({ isr: [], lastKnownElr: [2] });
    storage.close();
  });

  it('a reopened controller keeps its loaded snapshot without the tuples; brokers starting behind load it and get the controller\'s image and replicas', () => {
    const dir = mkdtempSync(join(tmpdir(), 'replica-snapshot-light-'));
    dirs.push(dir);
    let storage = SqliteStorage.open(dir);
    let sim = new Simulation({ seed: 31, brokers: 3, storage });
    sim.createTopic('a', 6, 3);
    sim.createTopic('b', 3, 2, { 'retention.ms': '600000' });
    expect(sim.produce('a', 1, ['x', 'y']).errorCode).toBe('NONE');
    sim.engine.shutdown();
    sim.waitFor(() => sim.engine.isShutDown(), 120_000, 'shutdown');
    sim.engine.snapshotMetadata();
    const closed = snapshotOf(sim.internals.controller.image);
    storage.close();

    storage = SqliteStorage.open(dir);
    sim = new Simulation({ seed: 31, brokers: 3, storage, start: false });
    const kept = sim.internals.controller.latestSnapshot()!;
    expect(kept.offset).toBe(closed.offset);
    expect(kept.topics.map((t) => [t.name, t.partitions.length])).toEqual([['a', 0], ['b', 0]]);
    // Loading the kept form gives the image that was closed.
    const loaded = new MetadataImage();
    loadSnapshot(loaded, kept);
    expect(snapshotOf(loaded)).toEqual(closed);
    // Every broker starts behind the kept records and loads it, sharing the controller's states.
    sim.engine.start();
    sim.waitFor(() => sim.engine.listBrokers().every((b) => b.state === 'running'), 60_000, 'all brokers running');
    sim.advance(3_000);
    const controllerImage = snapshotOf(sim.internals.controller.image);
    for (const b of sim.internals.brokers.values()) expect(snapshotOf(b.image)).toEqual(controllerImage);
    expect(sim.partition('a', 1).highWatermark).toBe(2);
    expect(sim.produce('b', 2, ['z']).errorCode).toBe('NONE');
    storage.close();
  });

  it('images loading the same snapshot share one frozen copy of each partition state, and records still change each image on its own', () => {
    const sim = new Simulation({ seed: 9, brokers: 4 });
    sim.createTopic('shared', 8, 3);
    const snap = JSON.parse(JSON.stringify(snapshotOf(sim.internals.controller.image))) as ReturnType<typeof snapshotOf>;
    const [a, b] = [new MetadataImage(), new MetadataImage()];
    loadSnapshot(a, snap);
    loadSnapshot(b, snap);
    const states = (image: MetadataImage) => [...image.topicsByName.get('shared')!.partitions.values()];
    states(a).forEach((s, i) => expect(s).toBe(states(b)[i]));
    expect(states(a).every((s) => Object.isFrozen(s))).toBe(true);
    // A record replaces the state in one image only.
    const first = states(a)[0]!;
    const next = { ...first, isr: first.isr.slice(1), partitionEpoch: first.partitionEpoch + 1 };
    a.apply({ offset: snap.offset + 1, timestampMs: 0, record: { type: 'PartitionChange', state: next, reason: 'isr-shrink', unclean: false } });
    expect(states(a)[0]!.isr).toEqual(first.isr.slice(1));
    expect(states(b)[0]).toBe(first);
    expect(snapshotOf(b)).toEqual(snap);
  });

  it('a broker that restarts with more metadata to replay than one answer holds fetches the rest at once, not one page per heartbeat interval', () => {
    const sim = new Simulation({ seed: 11, brokers: 3 });
    // 12,000 partition records: three pages of at most 5,000 records for a broker replaying from the start.
    for (let t = 0; t < 4; t++) sim.createTopic(`wide-${t}`, 3_000, 2);
    const controller = sim.internals.controller;
    sim.engine.stopBroker(3);
    sim.waitFor(() => sim.engine.brokerState(3) === 'stopped', 60_000, 'broker 3 stopped');
    const broker = sim.internals.brokers.get(3)!;
    const heartbeatMs = broker.brokerConfig().brokerHeartbeatIntervalMs;
    sim.engine.startBroker(3);
    expect(controller.image.offset).toBeGreaterThan(12_000);
    const took = sim.waitFor(() => broker.image.offset >= controller.image.offset, 60_000, 'broker 3 caught up with the metadata log');
    expect(took).toBeLessThan(heartbeatMs);
    sim.waitFor(() => sim.engine.brokerState(3) === 'running', 60_000, 'broker 3 running');
    expect(snapshotOf(broker.image)).toEqual(snapshotOf(controller.image));
  });

  it('records every broker has applied leave the controller\'s memory; a broker that was away reads them from the store and gets the controller\'s image', () => {
    const dir = mkdtempSync(join(tmpdir(), 'replica-metadata-release-'));
    dirs.push(dir);
    const storage = SqliteStorage.open(dir);
    const sim = new Simulation({ seed: 5, brokers: 3, storage });
    const controller = sim.internals.controller;
    sim.createTopic('wide', 6_000, 2);
    sim.advance(5_000); // every broker heartbeats the offset it applied
    expect(controller.image.offset).toBeGreaterThan(RELEASE_BATCH_RECORDS);
    expect(controller.recordsInMemory).toBeLessThan(RELEASE_BATCH_RECORDS);

    sim.engine.stopBroker(3);
    sim.waitFor(() => sim.engine.brokerState(3) === 'stopped', 60_000, 'broker 3 stopped');
    const away = sim.internals.brokers.get(3)!.image.offset;
    sim.createTopic('while-away', 6_000, 2, {}, Array.from({ length: 6_000 }, (_, i) => (i % 2 ? [1, 2] : [2, 1])));
    sim.advance(5_000);
    // Broker 3 has no session: what brokers 1 and 2 applied is dropped from memory all the same.
    expect(controller.image.offset - away).toBeGreaterThan(RELEASE_BATCH_RECORDS);
    expect(controller.recordsInMemory).toBeLessThan(RELEASE_BATCH_RECORDS);
    // Every record since the (absent) snapshot is still there, in order, from the store.
    const all = controller.records(0);
    expect(all.map((r) => r.offset)).toEqual(Array.from({ length: controller.image.offset + 1 }, (_, i) => i));

    sim.engine.startBroker(3);
    const broker = sim.internals.brokers.get(3)!;
    sim.waitFor(() => sim.engine.brokerState(3) === 'running', 60_000, 'broker 3 running');
    sim.waitFor(() => broker.image.offset === controller.image.offset, 10_000, 'broker 3 caught up');
    expect(snapshotOf(broker.image)).toEqual(snapshotOf(controller.image));
    expect(sim.produce('wide', 5_999, ['v']).errorCode).toBe('NONE');
    storage.close();
  });

  it('a broker behind the records the controller keeps loads the latest snapshot: same image, its replicas, and the log of a topic deleted meanwhile is gone', () => {
    const sim = new Simulation({ seed: 7, brokers: 3 });
    sim.createTopic('kept', -1, -1, {}, [[1, 2, 3], [2, 3, 1], [3, 1, 2]]);
    sim.createTopic('doomed', -1, -1, {}, [[1, 2, 3], [2, 3, 1]]);
    expect(sim.produce('kept', 0, ['a', 'b']).errorCode).toBe('NONE');
    sim.engine.stopBroker(3);
    sim.waitFor(() => sim.engine.brokerState(3) === 'stopped', 60_000, 'broker 3 stopped');
    sim.engine.deleteTopic('doomed');
    sim.createTopic('born', -1, -1, {}, [[1, 2, 3], [3, 1, 2]]);
    expect(sim.produce('kept', 0, ['c']).errorCode).toBe('NONE');
    const controller = sim.internals.controller;
    controller.takeSnapshot();
    sim.engine.alterConfigs('topic', 'kept', { 'retention.ms': '600000' });
    controller.takeSnapshot(); // records up to the first snapshot are gone from memory
    expect(controller.records(0)[0]!.offset).toBeGreaterThan(0);
    const disk = sim.internals.brokers.get(3)!.disk;
    const doomedId = [...disk.replicaKeys()].find((k) => !controller.image.topicsById.has(k.slice(0, k.lastIndexOf(':'))));
    expect(doomedId).toBeDefined(); // broker 3 still holds a log of the deleted topic

    sim.engine.startBroker(3);
    sim.waitFor(() => sim.engine.brokerState(3) === 'running', 60_000, 'broker 3 running');
    sim.waitFor(() => sim.partition('kept', 0).isr.includes(3), 60_000, 'broker 3 back in the ISR');
    const broker = sim.internals.brokers.get(3)!;
    sim.waitFor(() => broker.image.offset === controller.image.offset, 10_000, 'broker 3 caught up');
    expect(snapshotOf(broker.image)).toEqual(snapshotOf(controller.image));
    expect(disk.hasReplica(doomedId!)).toBe(false);
    expect(broker.partitionFor('born', 1)).toBeDefined();
    expect(broker.topicConfig(controller.image.topicsByName.get('kept')!.topicId).retentionMs).toBe(600_000);
    expect(sim.replicaLog(3, 'kept', 0).map((r) => r.value)).toEqual(['a', 'b', 'c']);
  });
});
