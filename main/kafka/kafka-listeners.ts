/**
 * The cluster's Kafka listeners, where the engine runs: one TCP server per broker on 127.0.0.1,
 * each serving that broker's request handlers (app/protocol/handlers) over the engine's door.
 *
 * Ports: `port` N > 0 puts broker k on N + k - 1; 0 takes free ports; 'default' reuses the ports
 * the cluster kept from its last run, else tries 9092, 9093, … (so `bootstrap.servers=localhost:9092`
 * just works). A port that is taken falls back to a free one, said on one line, so the cluster is
 * always reachable at the bootstrap servers `cluster.describe` reports. The chosen addresses are recorded in the engine
 * (kept with the cluster), which is where Metadata and `cluster.describe` read them.
 *
 * Lifecycle follows the broker's process, as clients of a real cluster see it: while it runs
 * (starting, fenced, controlled shutdown included) it listens; stopped, killed, powered off or
 * halted by a storage failure it refuses connections (its open sockets are reset); isolated it
 * keeps accepting and never answers (its requests are lost on the engine's network); started
 * again it listens on the same port. `max.connections` and `socket.request.max.bytes` bound it.
 *
 * Engine calls from socket callbacks are gathered until the end of the event loop's turn and run
 * together in one storage batch (engine-call-batcher.ts: one transaction per file for a burst of
 * requests), after the real-time clock has caught up; the clock then runs what they scheduled for
 * the same instant at once (a request does not wait a timer's turn to reach its broker) and is
 * woken for anything later.
 */
import type { EngineEvent } from '../../app/api/events.js';
import type { Engine, ListenerAddress } from '../../app/core/engine.js';
import type { Dispatcher } from '../../app/protocol/dispatcher.js';
import type { RequestHeader } from '../../app/protocol/generated/index.js';
import { type BrokerGateway, createBrokerDispatcher } from '../../app/protocol/handlers/index.js';
import { quotaClient } from '../../app/protocol/handlers/security/guard-kit.js';
import { scramKeys } from '../../app/service/scram-keys.js';
import { EngineCallBatcher } from './engine-call-batcher.js';
import { PrincipalMapper } from './principal-mapper.js';
import { aroundRequest, charged, requestPercent, requestTimer } from './request-time.js';
import type { EngineClock } from './engine-clock.js';
import type { ListenerSecurity } from './listener-security.js';
import type { ScramMechanism } from '../../app/core/security/types.js';
import { SASL_ADVERTISED_HANDLERS } from './sasl-gate.js';
import { KafkaListener, LOOPBACK } from './kafka-listener.js';

export type KafkaPortChoice = number | 'default';

export interface KafkaListenersOptions {
  engine: Engine;
  clock: EngineClock;
  clusterId: string;
  port: KafkaPortChoice;
  /** One-line notices (a fallback to free ports). */
  notice?: (line: string) => void;
  /** Handler failures (our bugs; the client got UNKNOWN_SERVER_ERROR). */
  onHandlerError?: (apiKey: number, error: unknown) => void;
  /** Every request a broker decoded: which client sent which API in which version. */
  onRequest?: (brokerId: number, request: { apiKey: number; apiVersion: number; clientId: string | null }) => void;
  /** TLS and/or SASL on every broker's listener (listener-security.ts); absent: PLAINTEXT. */
  security?: ListenerSecurity;
  /** The address every listener binds (default 127.0.0.1; `serve --bind`). */
  bindHost?: string;
  /** The host name Metadata and `cluster.describe` give for every broker (Kafka's advertised.listeners; `serve --advertised-host`). */
  advertisedHost?: string;
}

/** A wildcard bind has no address a client can connect to: the loopback one is advertised then. */
const WILDCARD = new Set(['0.0.0.0', '::', '']);

/** The host a broker's listener is advertised at: the one named, else the bound address (loopback for a wildcard). */
export function advertisedHostOf(options: Pick<KafkaListenersOptions, 'bindHost' | 'advertisedHost'>): string {
  if (options.advertisedHost) return options.advertisedHost;
  return options.bindHost && !WILDCARD.has(options.bindHost) ? options.bindHost : LOOPBACK;
}

/** The port tried first for broker 1 when no port is given. */
export const DEFAULT_KAFKA_PORT = 9092;

const DOWN_STATES = new Set(['stopped', 'killed', 'power-lost', 'storage-failed']);

/** What an isolated broker answers: nothing, ever (its client times out and reconnects). */
const SILENT = new Promise<never>(() => {});

interface BrokerSlot {
  brokerId: number;
  dispatcher: Pick<Dispatcher, 'dispatch'>;
  listener: KafkaListener | null;
  /** The port this broker listens on (0 until first bound). */
  port: number;
  /** Serialises binding and closing. */
  queue: Promise<void>;
}

export class KafkaListeners {
  private readonly slots = new Map<number, BrokerSlot>();
  /** Every broker's engine calls, run in one step per turn of the event loop. */
  private readonly calls: EngineCallBatcher;
  private unsubscribe: (() => void) | null = null;
  private closed = false;
  /** ssl.principal.mapping.rules (static): a rule that does not parse stops the listeners from starting. */
  private readonly principalMapper: PrincipalMapper;
  /** Whether some client quota sets request_percentage (then requests are timed; request-time.ts). */
  private requestQuotas = { version: -1, any: false };

  private constructor(private readonly options: KafkaListenersOptions) {
    this.calls = new EngineCallBatcher(options.clock);
    this.principalMapper = new PrincipalMapper(options.engine.staticConfigs['ssl.principal.mapping.rules'] ?? 'DEFAULT');
  }

  private measuringRequests(): boolean {
    const m = this.options.engine.metadata;
    if (this.requestQuotas.version !== m.securityVersion) {
      let any = false;
      for (const q of m.clientQuotas.values()) if (q.values['request_percentage'] !== undefined) any = true;
      this.requestQuotas = { version: m.securityVersion, any };
    }
    return this.requestQuotas.any;
  }

  /** Bind every member broker's listener; resolves once each running broker listens. */
  static async start(options: KafkaListenersOptions): Promise<KafkaListeners> {
    const listeners = new KafkaListeners(options);
    try {
      await listeners.bindAll();
    } catch (e) {
      await listeners.close();
      throw e;
    }
    listeners.unsubscribe = options.engine.subscribe((e) => listeners.onEvent(e));
    return listeners;
  }

  /** `127.0.0.1:P1,127.0.0.1:P2,…` in broker id order. */
  bootstrapServers(): string {
    return [...this.options.engine.listenerAddresses()].sort(([a], [b]) => a - b).map(([, at]) => `${at.host}:${at.port}`).join(',');
  }

  /** The listener of one broker while it listens (tests). */
  listenerOf(brokerId: number): KafkaListener | null {
    return this.slots.get(brokerId)?.listener ?? null;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    await Promise.all([...this.slots.values()].map((s) => (s.queue = s.queue.then(() => this.stopListening(s)))));
  }

  private async bindAll(): Promise<void> {
    const { engine, port } = this.options;
    const ids = engine.members().map((b) => b.id);
    const saved = engine.listenerAddresses();
    const fellBack: number[] = [];
    for (const id of ids) {
      const slot = this.slot(id);
      const wanted = port === 'default' ? (saved.get(id)?.port ?? DEFAULT_KAFKA_PORT + id - 1) : port === 0 ? 0 : port + id - 1;
      let listener: KafkaListener;
      try {
        listener = await this.listen(slot, wanted);
      } catch {
        listener = await this.listen(slot, 0);
        fellBack.push(wanted);
      }
      slot.port = listener.port;
      engine.setListenerAddress(id, { host: advertisedHostOf(this.options), port: listener.port });
      if (DOWN_STATES.has(engine.brokerState(id))) await this.stopListening(slot);
    }
    if (fellBack.length > 0) {
      this.options.notice?.(`Kafka listeners: port ${fellBack.join(', ')} taken; brokers listen on ${this.bootstrapServers()} instead`);
    }
  }

  private slot(id: number): BrokerSlot {
    let slot = this.slots.get(id);
    if (!slot) {
      const { onHandlerError, onRequest, security } = this.options;
      const { engine: eng } = this.options;
      const dispatcher = createBrokerDispatcher(this.gateway(id), {
        ...(security?.sasl ? { extra: SASL_ADVERTISED_HANDLERS } : {}),
        requestQuota: (ctx) => (requestTimer() ? eng.security.quotas(id).record('request_percentage', quotaClient(ctx), requestPercent(), eng.scheduler.now()) : 0),
        ...(onHandlerError ? { onHandlerError } : {}),
        ...(onRequest ? { onRequest: (h: RequestHeader) => onRequest(id, { apiKey: h.requestApiKey, apiVersion: h.requestApiVersion, clientId: h.clientId }) } : {}),
      });
      const { engine } = this.options;
      // Isolated, every request is lost on the way, ApiVersions too (it never reaches the engine).
      const silentWhenIsolated: Pick<Dispatcher, 'dispatch'> = { dispatch: (frame, session) => (engine.isBrokerIsolated(id) ? SILENT : dispatcher.dispatch(frame, session)) };
      slot = { brokerId: id, dispatcher: silentWhenIsolated, listener: null, port: 0, queue: Promise.resolve() };
      this.slots.set(id, slot);
    }
    return slot;
  }

  private gateway(brokerId: number): BrokerGateway {
    const { engine, clusterId } = this.options;
    return {
      brokerId,
      engine,
      clusterId,
      call: <T>(start: (done: (value: T) => void) => void): Promise<T> => {
        const time = requestTimer();
        return new Promise<T>((resolve, reject) => this.calls.submit({ start: () => charged(time, () => start(resolve)), fail: reject }));
      },
      scramKeys: (mechanism, salt, saltedPassword) => scramKeys(mechanism, salt, saltedPassword),
    };
  }

  private async listen(slot: BrokerSlot, port: number): Promise<KafkaListener> {
    const cfg = this.options.engine.clusterConfig();
    const { security, bindHost } = this.options;
    const listener = await KafkaListener.listen({
      dispatcher: slot.dispatcher,
      port,
      maxConnections: cfg.maxConnections,
      maxFrameBytes: cfg.socketRequestMaxBytes,
      ...(security ? { security } : {}),
      ...(bindHost ? { host: bindHost } : {}),
      // Logins are checked against the credentials in this broker's metadata (the users file only seeded them).
      ...(security?.sasl ? { sasl: { mechanisms: security.sasl.mechanisms, credential: (name: string, mechanism: ScramMechanism) => this.options.engine.security.scramCredential(slot.brokerId, name, mechanism) } } : {}),
      principalMapper: this.principalMapper,
      aroundRequest: (run) => aroundRequest(this.measuringRequests(), run),
      admit: (clientHost) => this.options.engine.security.connectionQuotas(slot.brokerId).record(clientHost, this.options.engine.scheduler.now()).throttleMs,
    });
    slot.listener = listener;
    return listener;
  }

  private async stopListening(slot: BrokerSlot): Promise<void> {
    const listener = slot.listener;
    slot.listener = null;
    await listener?.close();
  }

  private onEvent(e: EngineEvent): void {
    if (this.closed) return;
    if (e.type === 'broker.stateChanged') this.reconcile();
    else if (e.type === 'config.changed' && e.name === 'max.connections') {
      const max = this.options.engine.clusterConfig().maxConnections;
      for (const s of this.slots.values()) s.listener?.setMaxConnections(max);
    }
  }

  /** Make every broker's listener match its process: listening while it runs, closed while it is down. */
  private reconcile(): void {
    const { engine } = this.options;
    const members = new Set(engine.members().map((b) => b.id));
    for (const id of members) {
      const slot = this.slot(id);
      const down = DOWN_STATES.has(engine.brokerState(id));
      slot.queue = slot.queue.then(async () => {
        if (this.closed) return;
        if (down && slot.listener) return this.stopListening(slot);
        if (down || slot.listener || DOWN_STATES.has(engine.brokerState(id))) return;
        const base = this.options.port;
        const wanted = slot.port || (typeof base === 'number' && base > 0 ? base + id - 1 : 0);
        try {
          const listener = await this.listen(slot, wanted);
          slot.port = listener.port;
          engine.setListenerAddress(id, { host: advertisedHostOf(this.options), port: listener.port });
        } catch (e) {
          this.options.notice?.(`Kafka listener of broker ${id} cannot listen on ${this.options.bindHost ?? LOOPBACK}:${wanted}: ${(e as Error).message}`);
        }
      });
    }
    for (const [id, slot] of this.slots) {
      if (members.has(id)) continue;
      this.slots.delete(id);
      slot.queue = slot.queue.then(() => this.stopListening(slot));
    }
  }
}

export type { ListenerAddress };
