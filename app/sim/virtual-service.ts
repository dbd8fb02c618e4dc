/**
 * A cluster service over a `Simulation` (virtual clock, seeded random, in-memory or given
 * storage): the product's service exactly as the hosts build it, on a simulated cluster, for
 * tests and drills. Async calls fast-forward the virtual clock until the engine answers.
 */
import { seededRandom } from '../core/random.js';
import { createProducedBatchValidator } from '../protocol/records/produced-batch-validator.js';
import { createClusterService, type ClusterService, type ServiceLogger } from '../service/embedded-driver/cluster-service.js';
import { Simulation, type SimOptions } from './simulation.js';

/** Options of `createVirtualClusterService`: a simulated cluster plus the service's own options. */
export interface VirtualClusterServiceOptions extends SimOptions {
  clusterId?: string;
  logger?: ServiceLogger;
  /** Run the virtual clock until async operations answer (default 600 000 ms); null: step by hand. */
  fastForwardMs?: number | null;
}

/** A service over a `Simulation` (virtual clock, seeded random, in-memory storage), for tests and drills. */
export interface VirtualClusterService extends ClusterService {
  readonly sim: Simulation;
}

/** Create a simulated cluster (started unless `start: false`) and the service over it. */
export function createVirtualClusterService(options: VirtualClusterServiceOptions = {}): VirtualClusterService {
  const { clusterId, logger, fastForwardMs, ...simOptions } = options;
  // As the hosts build the engine: with the LogValidator port, so records.produce takes the path a Kafka client's batch takes.
  return serviceOver(new Simulation({ producedBatches: createProducedBatchValidator(), ...simOptions }), { seed: options.seed ?? 1, ...(clusterId !== undefined ? { clusterId } : {}), ...(logger ? { logger } : {}), fastForwardMs });
}

/**
 * The product's service over a simulation that already runs (a scenario that drives the engine
 * directly and reads the console's figures through the service, as a user would).
 */
export function serviceOver(
  sim: Simulation,
  options: { seed: number; clusterId?: string; logger?: ServiceLogger; fastForwardMs?: number | null | undefined },
): VirtualClusterService {
  const ff = options.fastForwardMs === undefined ? 600_000 : options.fastForwardMs;
  const service = createClusterService({
    engine: sim.engine,
    scheduler: sim.scheduler,
    staticConfigs: sim.engine.staticConfigs,
    ...(options.clusterId !== undefined ? { clusterId: options.clusterId } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(ff !== null ? { fastForwardMs: ff } : {}),
    // The simulation started the cluster before the service existed: its timeline so far.
    initialEvents: sim.events,
    // The producer partitioner's sticky choices replay with the seed too.
    random: seededRandom(options.seed ^ 0x5eed),
  });
  return { ...service, sim };
}
