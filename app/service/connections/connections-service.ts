/**
 * The connections service: the one `EngineService` a host serves once it manages several
 * clusters. It answers the `connections.*` methods itself (connection-list.ts) and routes every
 * other call by its `connection` to that connection's driver:
 *
 *   absent / the default's id   the cluster this host serves (its own data directory)
 *   a local connection          an engine of its own, started on first use (`openLocal`)
 *   an external connection      a Kafka driver, connected on first use
 *
 * Events: the default cluster's events pass as they are; a local connection's carry its id in
 * `connection`, so a window bound to one cluster ignores another's. External clusters push none.
 *
 * Invariants: `call` never throws or rejects; a connection is opened at most once at a time (a
 * second caller waits for the first open); `close()` closes every driver this service opened
 * (the host's own cluster is its host's to close).
 */
import type { ConnectionMethodName, Result } from '../../api/contract.js';
import { targetsCluster } from '../../api/contract.js';
import type { EngineEvent } from '../../api/events.js';
import { KafkaError } from '../../api/errors.js';
import { checkCall, splitConnection, type EngineEventListener, type EngineService, type ErrorLogger } from '../../api/service.js';
import { failureEnvelope, type ClusterDriver } from '../cluster-driver.js';
import { ConnectionList } from './connection-list.js';
import type { ConnectionsServiceOptions } from './connections-options.js';
import type { TwinCall } from './twin-topology.js';

export interface ConnectionsService extends EngineService {
  /**
   * Only the events of the connections this service opened (each tagged with its id), for a host
   * that relays its own cluster's events itself (the desktop app, which switches that cluster).
   */
  subscribeConnections(listener: EngineEventListener): () => void;
  /** Close every driver this service opened. */
  close(): Promise<void>;
}

const defaultLogger: ErrorLogger = { error: (message, error) => console.error(message, error) };

export function createConnectionsService(options: ConnectionsServiceOptions): ConnectionsService {
  const logger = options.logger ?? defaultLogger;
  const listeners = new Set<EngineEventListener>();
  /** Open drivers by connection id, with what unsubscribes their events. */
  const open = new Map<string, { driver: ClusterDriver; off: () => void }>();
  const opening = new Map<string, Promise<ClusterDriver>>();

  function emit(event: EngineEvent): void {
    for (const l of [...listeners]) {
      try {
        l(event);
      } catch (e) {
        logger.error(`An event listener failed on ${event.type}`, e);
      }
    }
  }

  function relay(id: string, driver: ClusterDriver): () => void {
    return driver.subscribe((event) => emit({ ...event, connection: id } as EngineEvent));
  }

  function adopt(id: string, driver: ClusterDriver): ClusterDriver {
    open.set(id, { driver, off: relay(id, driver) });
    return driver;
  }

  async function closeDriver(id: string): Promise<void> {
    const pending = opening.get(id);
    if (pending) await pending.catch(() => undefined);
    const entry = open.get(id);
    if (!entry) return;
    open.delete(id);
    entry.off();
    await entry.driver.close();
  }

  /** Contract calls on connection `id` for the twin's methods: the value, or the error thrown as a KafkaError. */
  const callOn =
    (id: string): TwinCall =>
    async (method, input) => {
      const driver = await driverFor(id);
      const r = await driver.call(method, input);
      if (!r.ok) throw new KafkaError(r.error.code, r.error.message, r.error.details);
      return r.value;
    };

  const list = new ConnectionList({ ...options, isOpen: (id) => open.has(id), closeDriver, adopt, callOn, emit });

  /** The driver of connection `id`, opening it on first use. */
  async function driverFor(id: string): Promise<EngineService> {
    const host = options.host();
    if (list.isDefault(id)) {
      if (!host) throw new KafkaError('INVALID_STATE', 'No cluster is open.');
      return host.driver;
    }
    const ready = open.get(id);
    if (ready) return ready.driver;
    let pending = opening.get(id);
    if (!pending) {
      const c = list.stored(id);
      pending = (async () => {
        const driver = c.kind === 'local' ? await options.openLocal(c.dataDir!, {}) : options.connectExternal(list.kafkaConfig(c), c.id, list.registryConfig(c));
        return adopt(id, driver);
      })().finally(() => opening.delete(id));
      opening.set(id, pending);
    }
    return pending;
  }

  async function call(method: string, input: unknown): Promise<Result<unknown>> {
    const checked = checkCall(method, input);
    if (!checked.ok) return checked;
    try {
      if (!targetsCluster(checked.method)) return { ok: true, value: await list.handle(checked.method as ConnectionMethodName, checked.input) };
      const host = options.host();
      if (checked.connection === undefined) {
        if (!host) throw new KafkaError('INVALID_STATE', 'No cluster is open.');
        return await host.driver.call(method, input);
      }
      const driver = await driverFor(checked.connection);
      // The driver checks the input again, without the connection it no longer needs.
      const split = splitConnection(checked.method, input);
      return await driver.call(method, split.ok ? split.input : input);
    } catch (error) {
      return failureEnvelope(method, error, logger);
    }
  }

  return {
    call: call as EngineService['call'],
    subscribe(listener) {
      listeners.add(listener);
      const host = options.host();
      const offHost = host?.driver.subscribe(listener);
      return () => {
        listeners.delete(listener);
        offHost?.();
      };
    },
    subscribeConnections(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      await Promise.all([...open.keys(), ...opening.keys()].map((id) => closeDriver(id).catch((e: unknown) => logger.error(`Closing connection ${id} failed`, e))));
    },
  };
}
