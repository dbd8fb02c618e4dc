/**
 * Unfencing a broker re-checks only the leaderless partitions it is a replica of (the NO_LEADER
 * set of KRaft's BrokersToIsrs, app/core/controller/leaderless.ts): a broker that comes back to
 * a cluster of 100,000 partitions must not walk all of them, once per broker, on every reopen.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BrokerLifecycle } from '../core/controller/broker-lifecycle.js';
import { SqliteStorage } from '../storage/sqlite-storage.js';
import { Simulation } from './simulation.js';
import { watchControllerLooks } from './test-support/controller-looks.js';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface ControllerInside {
  unfence(brokerId: number): void;
}

/** The partitions each unfence looked at (`topic-partition`) and how often it walked the whole image. */
function watchUnfences(): { unfenced: number[]; looked: string[]; walks: number } {
  const proto = BrokerLifecycle.prototype as unknown as ControllerInside;
  let inside = false;
  const seen = Object.assign(watchControllerLooks(() => inside), { unfenced: [] as number[] });
  const unfence = proto.unfence;
  vi.spyOn(proto, 'unfence').mockImplementation(function (this: ControllerInside, brokerId: number) {
    seen.unfenced.push(brokerId);
    inside = true;
    try {
      unfence.call(this, brokerId);
    } finally {
      inside = false;
    }
  });
  return seen;
}

describe('unfence re-checks only the broker’s own partitions', () => {
  it('a returning broker re-elects its leaderless partitions and looks at no other, not even another leaderless one', () => {
    const sim = new Simulation({ seed: 21, brokers: 4 });
    // wide: 8 partitions with leaders on brokers 1–3 throughout; solo-4 and solo-3 have one replica each.
    sim.createTopic('wide', 8, 3, {}, [[1, 2, 3], [2, 3, 1], [3, 1, 2], [1, 3, 2], [2, 1, 3], [3, 2, 1], [1, 2, 3], [2, 3, 1]]);
    sim.createTopic('solo-4', 1, 1, {}, [[4]]);
    sim.createTopic('solo-3', 1, 1, {}, [[3]]);
    sim.waitFor(() => [...Array(8).keys()].every((p) => sim.partition('wide', p).isr.length === 3), 30_000, 'all in sync');
    sim.advance(3_000);

    // Both single-replica partitions lose their leader (their only replica is fenced).
    sim.engine.killBroker(4);
    sim.engine.killBroker(3);
    const fenced = (b: number): boolean => sim.engine.metadata.brokers.get(b)?.fenced === true;
    sim.waitFor(() => fenced(3) && fenced(4), 60_000, 'brokers 3 and 4 fenced');
    expect(sim.partition('solo-4', 0).leader).toBe(-1);
    expect(sim.partition('solo-3', 0).leader).toBe(-1);

    const seen = watchUnfences();
    sim.engine.startBroker(4);
    sim.waitFor(() => sim.engine.metadata.brokers.get(4)?.fenced === false, 60_000, 'broker 4 unfenced');
    sim.waitFor(() => sim.partition('solo-4', 0).leader === 4, 10_000, 'broker 4 leads solo-4 again');

    expect(seen.unfenced).toEqual([4]);
    // The unfence looked at the one leaderless partition broker 4 is a replica of: not at the
    // eight partitions that kept their leader, nor at solo-3, which broker 4 cannot lead.
    expect(seen.looked).toEqual(['solo-4-0']);
    expect(seen.walks).toBe(0);
    expect(sim.partition('solo-3', 0).leader).toBe(-1);
    expect(sim.produce('solo-4', 0, ['back']).errorCode).toBe('NONE');

    // Broker 3 coming back still re-elects its own: the index followed every change since.
    sim.engine.startBroker(3);
    sim.waitFor(() => sim.partition('solo-3', 0).leader === 3, 60_000, 'broker 3 leads solo-3 again');
    expect(seen.unfenced).toEqual([4, 3]);
    expect(seen.looked).toEqual(['solo-4-0', 'solo-3-0']);
    expect(seen.walks).toBe(0);
  });

  it('after a reopen the index is rebuilt from the snapshot and the records after it: the broker still re-elects its leaderless partition', () => {
    const dir = mkdtempSync(join(tmpdir(), 'replica-unfence-'));
    dirs.push(dir);
    let storage = SqliteStorage.open(dir);
    let sim = new Simulation({ seed: 22, brokers: 3, storage });
    sim.createTopic('solo', 2, 1, {}, [[3], [2]]);
    sim.createTopic('late', 1, 1, {}, [[3]]);
    sim.advance(5_000);
    const leaderless = (): number => sim.internals.controller.leaderless.size;
    expect(leaderless()).toBe(0);
    sim.engine.killBroker(3);
    sim.waitFor(() => sim.partition('solo', 0).leader === -1, 60_000, 'solo-0 leaderless');
    sim.internals.controller.takeSnapshot(); // solo-0 leaderless in the snapshot …
    sim.engine.deleteTopic('late'); // … and a leaderless partition removed in a record after it
    sim.advance(1_000);
    expect(leaderless()).toBe(1);
    storage.close();

    storage = SqliteStorage.open(dir);
    sim = new Simulation({ seed: 22, brokers: 3, storage, start: false });
    expect(leaderless()).toBe(1);
    const seen = watchUnfences();
    sim.engine.start();
    sim.engine.startBroker(3);
    sim.waitFor(() => sim.partition('solo', 0).leader === 3, 60_000, 'solo-0 led by broker 3 again');
    // Brokers 1 and 2 come back from an unclean stop: refused while their old sessions last, then
    // registered anew (fenced) and unfenced. Each unfence looked at its own leaderless partitions
    // only: broker 2 at solo-1 (its replica lost its leader when the old incarnation was fenced),
    // broker 3 at solo-0; broker 1, which holds none, at nothing; 'late' (deleted) never.
    expect(seen.unfenced.sort()).toEqual([1, 2, 3]);
    expect(seen.looked.sort()).toEqual(['solo-0', 'solo-1']);
    expect(seen.walks).toBe(0);
    expect(leaderless()).toBe(0);
    expect(sim.partition('solo', 1).leader).toBe(2);
    storage.close();
  });
});
