/**
 * Open (or create) the cluster stored in a data directory and run it in real time.
 *
 * The storage takes an exclusive lock, so a second process on the same directory fails here with
 * KAFKA_STORAGE_ERROR ("locked by another process"). The virtual clock starts at
 * max(wall clock, the time the last run saved), so engine time never goes backwards across
 * restarts. Every step of the real-time clock is one `storage.batch`: each write of a step
 * commits (one transaction per file) before any reply leaves the process.
 *
 * `close()` is orderly: every broker does a controlled shutdown while the host fast-forwards the
 * virtual clock by hand (bounded), then the clock stops and the storage closes.
 */
import { NEW_CLUSTER_PROFILE } from '../../app/service/built-in-profile-names.js';
import { randomInt } from 'node:crypto';
import { openSync, writeSync } from 'node:fs';
import { createEngine, Engine } from '../../app/core/engine.js';
import { ManualScheduler } from '../../app/core/time.js';
import { resolveRacks } from '../../app/core/profiles/settings.js';
import { createClusterService, type ClusterService, type ServiceLogger } from '../../app/service/embedded-driver/cluster-service.js';
import { builtInProfiles } from '../../app/service/built-in-profiles.js';
import { clusterStaticConfigs } from '../../app/service/embedded-driver/static-configs.js';
import { createRealtimeClock, type RealtimeClock } from '../../app/service/embedded-driver/realtime-clock.js';
import { seededRandom } from '../../app/core/random.js';
import { SqliteStorage } from '../../app/storage/sqlite-storage.js';
import { groupRecordCodec } from '../../app/protocol/group-records.js';
import { txnRecordCodec } from '../../app/protocol/txn-records.js';
import { CompressionError, createCompressionCodecs, type CompressionCodecs, type ZstdCompress } from '../../app/protocol/records/compression.js';
import { createProducedBatchValidator } from '../../app/protocol/records/produced-batch-validator.js';
import { createCleanedBatchWriter } from '../../app/protocol/records/cleaned-batch-writer.js';
import { KafkaListeners, type KafkaListenersOptions, type KafkaPortChoice } from '../kafka/kafka-listeners.js';
import { clusterIdOf } from './cluster-id.js';
import { readSaslUsers, securityFromEnvironment } from '../kafka/listener-security.js';
import { credentialFromPassword } from '../../app/service/scram-keys.js';
import type { ScramCredential } from '../../app/core/security/types.js';
import { loadZstdCompressor } from './zstd-compressor.js';

/**
 * How every host starts a NEW cluster (the desktop app's first run and File › New Cluster, and
 * `npm run serve` on an empty data directory): from this built-in profile — 3 brokers on 3 racks
 * with its broker configs — unless the caller names another profile (`serve --profile NAME`) or,
 * for tests and scripts, a bare broker count. (Declared in a module of its own, which the command
 * line reads before it loads the engine.)
 */
export { NEW_CLUSTER_PROFILE };

/** One broker of a new cluster: its id and `broker.rack` (null: none). */
export interface BrokerSpec {
  id: number;
  rack: string | null;
}

export interface OpenClusterOptions {
  dataDir: string;
  /**
   * A new cluster of bare brokers (no profile) instead of the profile: this many (ids 1..n, no
   * racks; for tests and scripts), or exactly these ids and racks (a twin of another cluster,
   * app/service/connections/twin.ts). An existing cluster keeps its own.
   */
  brokers?: number | BrokerSpec[];
  /** The brokers' static configuration (server.properties). */
  staticConfigs?: Record<string, string>;
  /** Where INTERNAL errors and failing clock steps are logged (default console.error). */
  logger?: ServiceLogger;
  /** Seed of the engine's random (default: a fresh random seed per run). */
  seed?: number;
  /** Most virtual ms `close()` runs the clock for the controlled shutdowns (default 120 000). */
  shutdownBudgetMs?: number;
  /** Folder of the built-in profiles (default resources/profiles; the packaged app's resources folder). */
  profilesDir?: string;
  /**
   * The built-in profile a NEW cluster starts from (default NEW_CLUSTER_PROFILE unless `brokers`
   * is given): its broker count and racks shape the cluster, and its broker configs are applied
   * before the cluster counts as ready. An existing cluster is opened as it is.
   */
  initialProfile?: string;
  /**
   * Serve the Kafka protocol: one listener per broker on 127.0.0.1 (`main/kafka/kafka-listeners.ts`): N puts
   * broker k on N + k - 1, 0 takes free ports, 'default' tries 9092… and falls back to free ports.
   * Unset: no Kafka listeners (only the contract is served).
   */
  kafkaPort?: KafkaPortChoice;
  /** The address the Kafka listeners bind (default 127.0.0.1; `serve --bind`). */
  kafkaBind?: string;
  /** The host name the listeners are advertised at (Kafka's advertised.listeners; `serve --advertised-host`). */
  kafkaAdvertisedHost?: string;
  /** While brokers start, a `cluster.opening` event this often (default OPENING_EVENT_EVERY_MS). */
  openingEventEveryMs?: number;
  /** The host's output is backed up: the clock holds its next step a little (RealtimeClockOptions.holdWhile). */
  outputBacklogged?: () => boolean;
}

/** The profile a new cluster opened with these options starts from, if any. */
export function newClusterProfile(options: Pick<OpenClusterOptions, 'brokers' | 'initialProfile'>): string | undefined {
  if (options.initialProfile !== undefined) return options.initialProfile;
  return options.brokers === undefined ? NEW_CLUSTER_PROFILE : undefined;
}

export interface OpenCluster {
  readonly dataDir: string;
  readonly service: ClusterService;
  readonly engine: Engine;
  readonly scheduler: ManualScheduler;
  readonly clock: RealtimeClock;
  readonly storage: SqliteStorage;
  /** True when this open created the cluster (the data directory held none). */
  readonly created: boolean;
  /**
   * Resolves true once every broker that should run is registered and unfenced (in real time
   * that takes a moment after opening, as in Kafka) and a new cluster's profile is applied,
   * false after `timeoutMs` of real time in which no broker changed state.
   */
  ready(timeoutMs?: number): Promise<boolean>;
  /** Orderly close: controlled shutdown of every broker, then the storage. Idempotent. */
  close(): void;
  /** The Kafka listeners once bound (null when not asked for, or not bound yet). */
  readonly kafka: KafkaListeners | null;
}

/** The brokers of a new cluster without a profile: `n` (ids 1..n, no racks) or the given ones, checked. */
export function bareBrokers(brokers: number | readonly BrokerSpec[] = 3): BrokerSpec[] {
  if (typeof brokers === 'number') return Array.from({ length: brokers }, (_, i) => ({ id: i + 1, rack: null }));
  if (brokers.length === 0) throw new Error('A new cluster needs at least one broker.');
  const ids = new Set<number>();
  for (const b of brokers) {
    if (!Number.isInteger(b.id) || b.id < 0) throw new Error(`A broker id is a non-negative integer (${String(b.id)}).`);
    if (ids.has(b.id)) throw new Error(`Broker id ${b.id} is given twice.`);
    ids.add(b.id);
  }
  return brokers.map((b) => ({ id: b.id, rack: b.rack }));
}

const defaultLogger: ServiceLogger = { error: (message, error) => console.error(message, error) };

/**
 * A new cluster's SCRAM credentials from the listeners' users file (both mechanisms for every
 * user, as `kafka-storage.sh format --add-scram` seeds a KRaft cluster); the file is not read
 * again for an existing cluster, whose credentials live in its metadata log.
 */
function usersFileSeed(env: NodeJS.ProcessEnv = process.env): ScramCredential[] {
  const file = env['REPLICA_STUDIO_KAFKA_SASL_USERS'];
  if (!file) return [];
  const { users } = readSaslUsers(file);
  return Object.entries(users).flatMap(([name, password]) => [credentialFromPassword(name, 'SCRAM-SHA-256', password), credentialFromPassword(name, 'SCRAM-SHA-512', password)]);
}

/** While the brokers of an opening cluster start, a `cluster.opening` event this often (wall ms). */
export const OPENING_EVENT_EVERY_MS = 2_000;

export function openCluster(options: OpenClusterOptions): OpenCluster {
  const { dataDir } = options;
  const logger = options.logger ?? defaultLogger;
  const openedAt = Date.now();
  const storage = SqliteStorage.open(dataDir);
  try {
    const isNew = Engine.savedTimeMs(storage) === 0 && storage.metadata().isEmpty();
    const profileName = isNew ? newClusterProfile(options) : undefined;
    const profile = profileName !== undefined ? builtInProfiles(options.profilesDir).get(profileName) : undefined;
    if (profileName !== undefined && !profile) throw new Error(`No built-in profile named ${JSON.stringify(profileName)}.`);
    const brokers = profile ? resolveRacks(profile.cluster).map((rack, i) => ({ id: i + 1, rack })) : bareBrokers(options.brokers);
    // The id `cluster.describe`, Metadata and DescribeCluster report: this cluster's own (cluster-id.ts).
    const clusterId = clusterIdOf(storage.metadata());
    // A new cluster's profile gives it its server.properties (the read-only broker configs), kept with it (static-configs.ts).
    const staticConfigs = storage.batch(() => clusterStaticConfigs(storage.metadata(), { isNew, newProfile: profile }, options.staticConfigs));
    const scheduler = new ManualScheduler(Math.max(Date.now(), Engine.savedTimeMs(storage)));
    const bootstrapScramCredentials = isNew ? usersFileSeed() : [];
    const engine = storage.batch(() =>
      createEngine({
        producedBatches: createProducedBatchValidator(hostCodecs()),
        // The log cleaner rewrites batches with their own codec (zstd too: the host has its encoder).
        cleanedBatches: createCleanedBatchWriter(hostCodecs()),
        scheduler,
        random: seededRandom(options.seed ?? randomInt(0, 2 ** 31 - 1)),
        storage,
        brokers,
        groupRecords: groupRecordCodec,
        txnRecords: txnRecordCodec,
        staticConfigs,
        ...(bootstrapScramCredentials.length > 0 ? { bootstrapScramCredentials } : {}),
      }),
    );
    const clock = createRealtimeClock({
      scheduler,
      scale: 1,
      wrapStep: (step) => storage.batch(step),
      onError: (e) => logger.error('A step of the real-time clock failed', e),
      ...(options.outputBacklogged ? { holdWhile: options.outputBacklogged } : {}),
    });
    // The service subscribes before the engine starts, so `events.recent` has the whole run.
    const service = createClusterService({
      clusterId,
      engine,
      scheduler,
      clock,
      logger,
      staticConfigs,
      ...(options.profilesDir ? { profilesDir: options.profilesDir } : {}),
    });
    storage.batch(() => engine.start());
    clock.start();
    // Broker configs are cluster-wide dynamic configs: the controller records them at once.
    const profileApplied: Promise<boolean> = profile
      ? service.call('profiles.apply', { name: profile.name, dryRun: false }).then((r) => {
          if (!r.ok) logger.error(`Could not apply the initial profile ${profile.name}`, new Error(`${r.error.code}: ${r.error.message}`));
          return r.ok;
        })
      : Promise.resolve(true);

    let kafka: KafkaListeners | null = null;
    let closed = false;
    const kafkaStarted: Promise<unknown> =
      options.kafkaPort === undefined
        ? Promise.resolve()
        : KafkaListeners.start({
            engine,
            clusterId,
            port: options.kafkaPort,
            ...(options.kafkaBind ? { bindHost: options.kafkaBind } : {}),
            ...(options.kafkaAdvertisedHost ? { advertisedHost: options.kafkaAdvertisedHost } : {}),
            clock: { sync: () => clock.sync(), wake: () => clock.wake(), step: (fn) => storage.batch(fn) },
            notice: (line) => process.stderr.write(`replica-studio: ${line}\n`),
            onHandlerError: (apiKey, e) => logger.error(`A Kafka request handler failed (API key ${apiKey})`, e),
            ...requestTrace(),
            security: securityFromEnvironment(),
          }).then((k) => {
            if (closed) void k.close();
            else kafka = k;
          });
    const close = (): void => {
      if (closed) return;
      closed = true;
      // Clients first: no request reaches the engine while it shuts down.
      void kafka?.close();
      try {
        // Catch up with real time, then freeze the real-time clock: from here we step by hand.
        clock.stop();
        storage.batch(() => engine.shutdown());
        const deadline = scheduler.now() + (options.shutdownBudgetMs ?? 120_000);
        while (!engine.isShutDown()) {
          const due = scheduler.nextDueTime();
          if (due === undefined || due > deadline) break;
          storage.batch(() => scheduler.advanceTo(due));
        }
        if (!engine.isShutDown()) logger.error('The cluster did not shut down in time; closing its storage anyway', new Error('shutdown budget exceeded'));
        // The next open loads this snapshot and replays no record.
        storage.batch(() => engine.snapshotMetadata());
      } finally {
        storage.close();
      }
    };

    const states = (): string[] => engine.listBrokers().map((b) => b.state);
    // A long open tells the console (and anyone on the event stream) how far it got.
    const everyMs = options.openingEventEveryMs ?? OPENING_EVENT_EVERY_MS;
    let announced = 0;
    let announcedDone = false;
    const announce = (now: string[], done: boolean): void => {
      const elapsedMs = Date.now() - openedAt;
      if (done ? announced === 0 || announcedDone : elapsedMs < (announced + 1) * everyMs) return;
      if (done) announcedDone = true;
      else announced = Math.floor(elapsedMs / everyMs);
      const running = now.filter((s) => s === 'running').length;
      service.publish({ type: 'cluster.opening', atMs: scheduler.now(), brokersRunning: running, brokers: now.length, elapsedMs, done });
    };
    const ready = async (timeoutMs = 30_000): Promise<boolean> => {
      // A big cluster takes a while to open: the wait ends after `timeoutMs` without progress
      // (no broker changed state), not after `timeoutMs` in all.
      let deadline = Date.now() + timeoutMs;
      let last = '';
      await profileApplied;
      await kafkaStarted;
      for (;;) {
        if (closed) return false;
        clock.sync();
        const now = states();
        if (now.every((s) => s !== 'starting' && s !== 'fenced')) {
          announce(now, true);
          return true;
        }
        announce(now, false);
        if (now.join() !== last) {
          last = now.join();
          deadline = Date.now() + timeoutMs;
        }
        if (Date.now() >= deadline) return false;
        await new Promise((r) => setTimeout(r, 20));
      }
    };

    return {
      dataDir,
      service,
      engine,
      scheduler,
      clock,
      storage,
      created: isNew,
      ready,
      close,
      get kafka() {
        return kafka;
      },
    };
  } catch (e) {
    storage.close();
    throw e;
  }
}

let zstd: ZstdCompress | null = null;

/**
 * The record codecs of this process: zstd compression comes from the host's WebAssembly
 * library, which loads asynchronously; until it has, recompressing to zstd answers
 * UNSUPPORTED_COMPRESSION_TYPE (the only codec that needs it; decompression is pure JS).
 */
function hostCodecs(): CompressionCodecs {
  if (!zstd) void loadZstdCompressor().then((z) => (zstd = z));
  return createCompressionCodecs((data) => {
    if (!zstd) throw new CompressionError('the zstd compressor is still loading');
    return zstd(data);
  });
}

/**
 * REPLICA_STUDIO_KAFKA_TRACE=FILE: every Kafka request the listeners decode is appended to FILE
 * as `broker apiKey apiVersion clientId`, one line each (which versions real clients send; the
 * black-box tests read it). Written synchronously, before the request is handled: once a client
 * has its answer, its request is in the file (a buffered stream could still hold the last lines
 * when a test reads the file right after the client exits).
 */
function requestTrace(): Pick<KafkaListenersOptions, 'onRequest'> {
  const file = process.env['REPLICA_STUDIO_KAFKA_TRACE'];
  if (!file) return {};
  const fd = openSync(file, 'a');
  return { onRequest: (brokerId, r) => void writeSync(fd, `${brokerId} ${r.apiKey} ${r.apiVersion} ${r.clientId ?? '-'}\n`) };
}
