/**
 * Failover at scale, in process on the virtual clock (issue 17): 12 brokers, topics of 1,000
 * partitions at RF 3 (100,000 partitions by default), all in sync, no traffic. Two figures, each
 * the WALL time the engine spends (the virtual clock jumps over every wait, so what remains is the
 * work the controller and the brokers do):
 *
 *   fence     — a broker is killed; from the moment the controller fences it (its session expired)
 *               until every partition it led has a new leader that acts as leader on its broker.
 *   shutdown  — a controlled shutdown of the broker leading the most partitions (~8,300 at 100k):
 *               from the request until every partition it led has a new, acting leader.
 *
 * Over the real host the same work runs in real time (`scale` measures the shutdown end to end);
 * here the figure excludes only the host's HTTP polling.
 */
import { performance } from 'node:perf_hooks';
import { Simulation } from '../app/sim/simulation.js';

export const FAILOVER_BROKERS = 12;
export const FAILOVER_PARTITIONS = 100_000;
const PER_TOPIC = 1_000;

/** Wall ms, and the CPU ms this process spent meanwhile (on a shared machine the fairer figure). */
export interface Timed {
  leaders: number;
  ms: number;
  cpuMs: number;
}

export interface FailoverResult {
  partitions: number;
  buildMs: number;
  fence: Timed;
  shutdown: Timed;
}

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The partitions `brokerId` leads now, as topic/partition pairs. */
function ledBy(sim: Simulation, brokerId: number): { topic: string; partition: number }[] {
  const out: { topic: string; partition: number }[] = [];
  for (const [name, t] of sim.engine.metadata.topicsByName) for (const s of t.partitions.values()) if (s.leader === brokerId) out.push({ topic: name, partition: s.partition });
  return out;
}

/** Every listed partition has a leader other than `gone` that acts as leader on its own broker. */
function allMoved(sim: Simulation, parts: { topic: string; partition: number }[], gone: number): boolean {
  const topics = sim.engine.metadata.topicsByName;
  for (const { topic, partition } of parts) {
    const s = topics.get(topic)?.partitions.get(partition);
    if (!s || s.leader < 0 || s.leader === gone) return false;
    if (!sim.internals.brokers.get(s.leader)?.partitionFor(topic, partition)?.isLeader) return false;
  }
  return true;
}

function busiest(sim: Simulation, except: number[] = []): number {
  return sim.engine
    .listBrokers()
    .filter((b) => !except.includes(b.id) && b.state === 'running')
    .reduce((a, b) => (b.leaderCount > a.leaderCount ? b : a)).id;
}

export function measureFailover(partitions = FAILOVER_PARTITIONS, log: (line: string) => void = () => {}): FailoverResult {
  const t0 = performance.now();
  const sim = new Simulation({ brokers: FAILOVER_BROKERS, seed: 17 });
  for (let t = 0; t < partitions / PER_TOPIC; t++) sim.engine.createTopic({ name: `scale-${t}`, partitions: PER_TOPIC, replicationFactor: 3, configs: {} });
  sim.waitFor(() => sim.engine.listBrokers().every((b) => b.state === 'running') && allInSync(sim), 600_000, 'every partition in sync');
  const buildMs = performance.now() - t0;
  log(`failover: ${partitions.toLocaleString('en-US')} partitions in sync after ${(buildMs / 1000).toFixed(1)} s of wall time`);

  // Fence: kill a broker, run the clock to just before its session expires, then time the rest.
  const victim = busiest(sim);
  const led = ledBy(sim, victim);
  sim.engine.killBroker(victim);
  const fenced = (): boolean => sim.engine.metadata.brokers.get(victim)?.fenced === true;
  // Step the clock 10 ms at a time; the step in which the controller fences the broker counts
  // (it holds the controller's batch), and so does everything after it until the leaders act.
  let stepMs = 0;
  let stepCpu = 0;
  for (let i = 0; i < 6_000 && !fenced(); i++) {
    const w = performance.now();
    const c = cpuNow();
    sim.scheduler.advance(10);
    stepMs = performance.now() - w;
    stepCpu = cpuNow() - c;
  }
  const f0 = performance.now() - stepMs;
  const fc0 = cpuNow() - stepCpu;
  sim.waitFor(() => fenced() && allMoved(sim, led, victim), 60_000, 'the fenced broker’s partitions to have new leaders');
  const fenceMs = performance.now() - f0;
  const fenceCpu = cpuNow() - fc0;
  log(`failover: broker ${victim} fenced; its ${led.length} partitions have acting new leaders after ${fenceMs.toFixed(0)} ms (${fenceCpu.toFixed(0)} ms of CPU)`);
  sim.engine.startBroker(victim);
  sim.waitFor(() => sim.engine.listBrokers().every((b) => b.state === 'running') && allInSync(sim), 600_000, 'the cluster whole again');

  const leaving = busiest(sim);
  const moving = ledBy(sim, leaving);
  const s0 = performance.now();
  const sc0 = cpuNow();
  sim.engine.stopBroker(leaving);
  sim.waitFor(() => allMoved(sim, moving, leaving), 60_000, 'the leaving broker’s partitions to have new leaders');
  const shutdownMs = performance.now() - s0;
  const shutdownCpu = cpuNow() - sc0;
  log(`failover: controlled shutdown of broker ${leaving}: ${moving.length} partitions have acting new leaders after ${shutdownMs.toFixed(0)} ms (${shutdownCpu.toFixed(0)} ms of CPU)`);
  return {
    partitions,
    buildMs,
    fence: { leaders: led.length, ms: fenceMs, cpuMs: fenceCpu },
    shutdown: { leaders: moving.length, ms: shutdownMs, cpuMs: shutdownCpu },
  };
}

function allInSync(sim: Simulation): boolean {
  for (const t of sim.engine.metadata.topicsByName.values()) for (const s of t.partitions.values()) if (s.leader < 0 || s.isr.length !== s.replicas.length) return false;
  return true;
}
