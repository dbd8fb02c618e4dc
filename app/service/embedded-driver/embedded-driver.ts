/**
 * The embedded driver: a cluster this app runs itself, as a `ClusterDriver` (cluster-driver.ts).
 * Its service is cluster-service.ts, the contract over the engine, whose methods are in the
 * `*-methods.ts` files beside it, as app/service/kafka-driver/ holds the Kafka driver's.
 */
import { capabilityViews } from '../../api/capabilities.js';
import type { EngineService } from '../../api/service.js';
import type { ClusterDriver } from '../cluster-driver.js';

/**
 * The embedded engine as a driver: a cluster this app runs (the engine service in this process,
 * or an engine process seen from its parent). It can do everything.
 */
export function embeddedDriver(service: EngineService, close: () => Promise<void> = () => Promise.resolve()): ClusterDriver {
  let closing: Promise<void> | undefined;
  return {
    kind: 'embedded',
    call: service.call.bind(service) as EngineService['call'],
    subscribe: (listener) => service.subscribe(listener),
    capabilities: () => capabilityViews(),
    close: () => (closing ??= close()),
  };
}
