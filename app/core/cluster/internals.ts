/**
 * The engine's insides, for the tools that prove it (app/sim: the simulation, the fault run, the
 * scenario suite) and for white-box tests: the controller, each broker with its replicas and logs,
 * and the in-process network. The product never comes here — it goes through the engine's
 * public methods; ESLint keeps app/service, app/protocol and main/ from importing this file (and
 * the broker, controller and network modules behind it).
 */
import type { Broker } from '../broker/broker.js';
import type { Controller } from '../controller/controller.js';
import type { Network } from '../network.js';
import type { ClusterContext } from './context.js';

export interface EngineInternals {
  readonly controller: Controller;
  readonly brokers: ReadonlyMap<number, Broker>;
  readonly network: Network;
}

const registry = new WeakMap<object, ClusterContext>();

/** Called by the engine once, as it is built. */
export function registerInternals(engine: object, ctx: ClusterContext): void {
  registry.set(engine, ctx);
}

export function engineInternals(engine: object): EngineInternals {
  const ctx = registry.get(engine);
  if (!ctx) throw new Error('not an engine built by createEngine');
  return ctx;
}
