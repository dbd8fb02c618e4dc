/**
 * The headless host's command line:
 *
 *   npm run serve -- [--data DIR] [--port N] [--kafka-port N] [--bind ADDR] [--advertised-host NAME] [--profile NAME | --brokers N] [--config DIR] [--static DIR] [--in-process]
 *                    [--broker-config KEY=VALUE]…
 *
 * The engine runs in a child process of its own (`main/engine/engine-process.ts`, reached through
 * `main/engine/remote-service.ts`), so the HTTP server answers promptly while the cluster works at full speed;
 * `--in-process` runs it on the server's own event loop instead (the former behaviour).
 *
 * Opens (or creates) the cluster in DIR (default `.data/default`), serves the contract on
 * 127.0.0.1:N (0 = a free port, the default 0) and prints the start URL
 * `http://127.0.0.1:PORT/?token=…` as its first line of stdout — once every broker of the opened
 * cluster has registered (and a new cluster's profile is applied), so a script that reads the URL
 * can create a topic at once. A new cluster starts as every host starts one (`main/engine/open-cluster.ts`:
 * the `balanced` profile, 3 brokers on 3 racks); `--profile NAME` picks another built-in profile
 * for a new cluster and is ignored, with a note on stderr, for an existing one; `--brokers N`
 * instead starts a new cluster of N brokers with Kafka's own defaults (no racks, no profile). SIGINT/SIGTERM close it in order
 * (controlled shutdown of every broker, storage closed) and exit 0, in bounded time whatever the
 * HTTP connections did (the host ends every one within 2 s; the engine's process is killed if its
 * orderly close outlasts a minute); a second signal exits at once. Failing to start (the data
 * directory is locked by another instance, a bad argument, the port is taken) prints one line to
 * stderr and exits 1 (2 for usage errors).
 *
 * `--broker-config KEY=VALUE` (repeatable) sets a static broker config (server.properties) of a new
 * cluster, e.g. `authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer`,
 * `super.users=User:admin`; the cluster keeps them, so every reopen runs with the same ones (given
 * again on a reopen, a key takes its new value). An unknown key or an invalid value is a usage error.
 *
 * Kafka clients: every broker listens on 127.0.0.1, one port each, in the engine's process
 * (`main/kafka/kafka-listeners.ts`). `--kafka-port N` puts broker 1 on N, broker 2 on N+1, …; `--kafka-port 0`
 * takes free ports; without it the cluster's ports from its last run are reused, else broker 1
 * tries 9092 (broker k 9091+k), and a taken port falls back to a free one, said on one stderr line.
 * `cluster.describe` reports them as `bootstrapServers`. `--advertised-host NAME` makes Metadata
 * (and `cluster.describe`) name every broker NAME instead of 127.0.0.1 — Kafka's
 * advertised.listeners, for clients that reach this machine under another name (a container's
 * `host.docker.internal`); `--bind ADDR` makes the listeners listen on ADDR instead of 127.0.0.1
 * (off by default; said loudly on stderr, naming who can then reach the brokers). The console's
 * HTTP host stays on 127.0.0.1 either way.
 *
 * `--schema-registry-port P` also serves the cluster's Schema Registry (Confluent's REST API,
 * `main/schema-registry/`) on 127.0.0.1:P (0 = a free port), or on the `--bind` address with the
 * Kafka listeners (its URL naming the `--advertised-host`), said on one stderr line; with
 * `--kafka-sasl-users` it asks for HTTP basic auth with those users.
 *
 * The cluster in DIR is the host's default connection; the connection list (other local clusters,
 * external Kafka clusters) lives in the app's configuration directory, `--config DIR` or the
 * default of `config-dir.ts`. Local clusters other than DIR run in engine processes of their own,
 * started on first use.
 */
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import esMain from 'es-main';
import type { EngineService } from '../../app/api/service.js';
import type { HttpHost } from '../http/http-host.js';
import { BUILT_IN_PROFILE_NAMES, NEW_CLUSTER_PROFILE } from '../../app/service/built-in-profile-names.js';
import type { KafkaPortChoice } from '../kafka/kafka-listeners.js';
import { reportLoading, reportOpening } from './open-progress.js';
import { startRemoteService } from '../engine/forked-engine.js';
import { loadOrCreateToken } from '../http/token.js';
import { defaultConfigDir } from './config-dir.js';
import { validateConfigs } from '../../app/core/configs/resolve.js';
import { authorizerConfig } from '../../app/core/security/authorizer.js';
import type { ConnectionsService } from '../../app/service/connections/connections-service.js';
import type { NewLocalCluster } from '../../app/service/connections/connections-options.js';
import type { SchemaRegistryServer } from '../schema-registry/schema-registry-server.js';

// Only light modules above: the engine's process is forked first and loads while this one loads
// the HTTP host, the connection list and (for --in-process) the engine (`serve` imports them).

export const BUILT_RENDERER = fileURLToPath(new URL('../../dist/renderer', import.meta.url));

const USAGE =
  'usage: npm run serve -- [--data DIR] [--port N] [--kafka-port N] [--bind ADDR] [--advertised-host NAME] [--profile NAME | --brokers N] [--config DIR] [--static DIR] [--in-process] [--kafka-tls-cert FILE --kafka-tls-key FILE | --kafka-tls-self-signed] [--kafka-tls-client-ca FILE] [--kafka-sasl-users FILE] [--broker-config KEY=VALUE]… [--schema-registry-port P]';

/**
 * How long the host waits for the brokers, without any of them changing state, before printing
 * its URL anyway (with a warning). A big cluster may take longer in all: it says how far it got
 * meanwhile (open-progress.ts).
 */
const READY_TIMEOUT_MS = 60_000;

export interface ServeArgs {
  dataDir: string;
  port: number;
  /** Where the brokers' Kafka listeners go: a base port, 0 for free ports, 'default' for 9092…. */
  kafkaPort: KafkaPortChoice;
  /** The address the Kafka listeners bind instead of 127.0.0.1 (`--bind`). */
  kafkaBind?: string;
  /** The host name the Kafka listeners are advertised at (`--advertised-host`). */
  advertisedHost?: string;
  /** The app's configuration directory (the connection list). */
  configDir: string;
  staticDir?: string;
  /** How a new cluster starts: a built-in profile (default NEW_CLUSTER_PROFILE), or N bare brokers. */
  newCluster: { profile: string } | { brokers: number };
  /** Run the engine on this process's event loop rather than in a child process. */
  inProcess?: boolean;
  /**
   * TLS and SASL on the Kafka listeners (main/kafka/listener-security.ts): PEM files and a users file, or a
   * certificate made in the data directory (main/kafka/self-signed-tls.ts).
   */
  kafkaSecurity?: { tlsCert?: string; tlsKey?: string; tlsSelfSigned?: boolean; tlsClientCa?: string; saslUsers?: string };
  /** Serve the Schema Registry on this port (0: a free one); absent: no registry. */
  schemaRegistryPort?: number;
  /** Static broker configs (`--broker-config KEY=VALUE`, server.properties), kept with the cluster. */
  brokerConfigs?: Record<string, string>;
}

/** The running cluster, wherever its engine lives. */
export interface ServedCluster {
  readonly service: EngineService;
  /** True when this run created the cluster (the data directory held none). */
  readonly created: boolean;
  /** Resolves true once every broker runs (and a new cluster's profile is applied), false after a timeout. */
  ready(): Promise<boolean>;
  /** Orderly close (controlled shutdown of every broker, storage closed). */
  close(): Promise<void>;
}

/** Parse the arguments; throws a one-line message on a bad one. */
export function parseServeArgs(argv: string[]): ServeArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      data: { type: 'string', default: '.data/default' },
      port: { type: 'string', default: '0' },
      'kafka-port': { type: 'string' },
      bind: { type: 'string' },
      'advertised-host': { type: 'string' },
      static: { type: 'string' },
      config: { type: 'string' },
      profile: { type: 'string' },
      brokers: { type: 'string' },
      'in-process': { type: 'boolean', default: false },
      'kafka-tls-cert': { type: 'string' },
      'kafka-tls-key': { type: 'string' },
      'kafka-tls-self-signed': { type: 'boolean', default: false },
      'kafka-tls-client-ca': { type: 'string' },
      'kafka-sasl-users': { type: 'string' },
      'schema-registry-port': { type: 'string' },
      'broker-config': { type: 'string', multiple: true },
    },
    strict: true,
    allowPositionals: false,
  });
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || !Number.isInteger(port) || port > 65_535) throw new Error(`--port must be an integer 0–65535, got ${JSON.stringify(values.port)}`);
  const kafka = values['kafka-port'];
  if (kafka !== undefined && (!/^\d+$/.test(kafka) || Number(kafka) > 65_535)) throw new Error(`--kafka-port must be an integer 0–65535, got ${JSON.stringify(kafka)}`);
  const bind = values.bind;
  if (bind !== undefined && isIP(bind) === 0) throw new Error(`--bind must be an IP address of this machine (e.g. 127.0.0.2, 0.0.0.0), got ${JSON.stringify(bind)}`);
  const advertised = values['advertised-host'];
  if (advertised !== undefined && !/^[A-Za-z0-9]([A-Za-z0-9.-]{0,252}[A-Za-z0-9])?$/.test(advertised) && isIP(advertised) === 0) {
    throw new Error(`--advertised-host must be a host name or an IP address, got ${JSON.stringify(advertised)}`);
  }
  const registryPort = values['schema-registry-port'];
  if (registryPort !== undefined && (!/^\d+$/.test(registryPort) || Number(registryPort) > 65_535)) throw new Error(`--schema-registry-port must be an integer 0–65535, got ${JSON.stringify(registryPort)}`);
  if (values.profile !== undefined && values.brokers !== undefined) throw new Error('--profile and --brokers are two ways to start a new cluster: give one');
  let newCluster: ServeArgs['newCluster'] = { profile: NEW_CLUSTER_PROFILE };
  if (values.brokers !== undefined) {
    const brokers = Number(values.brokers);
    if (!/^\d+$/.test(values.brokers) || brokers < 1 || brokers > 64) throw new Error(`--brokers must be an integer 1–64, got ${JSON.stringify(values.brokers)}`);
    newCluster = { brokers };
  } else if (values.profile !== undefined) {
    const profiles: readonly string[] = BUILT_IN_PROFILE_NAMES;
    if (!profiles.includes(values.profile)) throw new Error(`--profile must name a built-in profile (${profiles.join(', ')}), got ${JSON.stringify(values.profile)}`);
    newCluster = { profile: values.profile };
  }
  const tlsCert = values['kafka-tls-cert'];
  const tlsKey = values['kafka-tls-key'];
  const saslUsers = values['kafka-sasl-users'];
  if ((tlsCert === undefined) !== (tlsKey === undefined)) throw new Error('--kafka-tls-cert and --kafka-tls-key go together');
  const selfSigned = values['kafka-tls-self-signed'];
  if (selfSigned && tlsCert !== undefined) throw new Error('--kafka-tls-self-signed makes the certificate: give it or --kafka-tls-cert/--kafka-tls-key, not both');
  const clientCa = values['kafka-tls-client-ca'];
  if (clientCa !== undefined && tlsCert === undefined && !selfSigned) throw new Error('--kafka-tls-client-ca makes the listeners ask for client certificates over TLS: give it with --kafka-tls-cert/--kafka-tls-key or --kafka-tls-self-signed');
  const kafkaSecurity = {
    ...(selfSigned ? { tlsSelfSigned: true } : {}),
    ...(clientCa !== undefined ? { tlsClientCa: resolve(clientCa) } : {}),
    ...(tlsCert !== undefined ? { tlsCert: resolve(tlsCert) } : {}),
    ...(tlsKey !== undefined ? { tlsKey: resolve(tlsKey) } : {}),
    ...(saslUsers !== undefined ? { saslUsers: resolve(saslUsers) } : {}),
  };
  const brokerConfigs = parseBrokerConfigs(values['broker-config'] ?? []);
  return {
    ...(Object.keys(kafkaSecurity).length > 0 ? { kafkaSecurity } : {}),
    ...(registryPort !== undefined ? { schemaRegistryPort: Number(registryPort) } : {}),
    ...(Object.keys(brokerConfigs).length > 0 ? { brokerConfigs } : {}),
    dataDir: resolve(values.data),
    port,
    kafkaPort: kafka === undefined ? 'default' : Number(kafka),
    ...(bind !== undefined ? { kafkaBind: bind } : {}),
    ...(advertised !== undefined ? { advertisedHost: advertised } : {}),
    configDir: values.config !== undefined ? resolve(values.config) : defaultConfigDir(),
    newCluster,
    ...(values.static !== undefined ? { staticDir: resolve(values.static) } : existsSync(BUILT_RENDERER) ? { staticDir: BUILT_RENDERER } : {}),
    ...(values['in-process'] ? { inProcess: true } : {}),
  };
}

/** `KEY=VALUE` pairs of `--broker-config`, each a broker config of the catalogue with a valid value (static configs may be read-only ones). */
export function parseBrokerConfigs(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const i = pair.indexOf('=');
    if (i <= 0) throw new Error(`--broker-config takes KEY=VALUE, got ${JSON.stringify(pair)}`);
    out[pair.slice(0, i).trim()] = pair.slice(i + 1);
  }
  try {
    validateConfigs('broker', out, { static: true });
    authorizerConfig(out);
  } catch (e) {
    throw new Error(`--broker-config: ${(e as Error).message}`);
  }
  return out;
}

/**
 * Start cluster and host; resolves with both once the host listens (and the CA to trust for a
 * self-signed certificate). The engine's process is forked before this one loads the HTTP host and
 * the connection list, so the two load on two cores at once.
 */
export async function serve(args: ServeArgs): Promise<{ cluster: ServedCluster; host: HttpHost; connections: ConnectionsService; trustCaFile?: string; schemaRegistry?: SchemaRegistryServer }> {
  const how = 'brokers' in args.newCluster ? { brokers: args.newCluster.brokers } : { profile: args.newCluster.profile };
  // The engine (a child process, or this one) reads the listeners' security from its environment (main/kafka/listener-security.ts).
  let sec = args.kafkaSecurity;
  let trustCaFile: string | undefined;
  if (sec?.tlsSelfSigned) {
    const { ensureSelfSignedTls } = await import('../kafka/self-signed-tls.js');
    const made = await ensureSelfSignedTls(args.dataDir);
    sec = { ...sec, tlsCert: made.certFile, tlsKey: made.keyFile };
    trustCaFile = made.caFile;
  }
  if (sec?.tlsCert) process.env['REPLICA_STUDIO_KAFKA_TLS_CERT'] = sec.tlsCert;
  if (sec?.tlsKey) process.env['REPLICA_STUDIO_KAFKA_TLS_KEY'] = sec.tlsKey;
  if (sec?.tlsClientCa) {
    const { readClientCa } = await import('../kafka/listener-security.js');
    readClientCa(sec.tlsClientCa); // a bad file is said here, not by the engine's process
    process.env['REPLICA_STUDIO_KAFKA_TLS_CLIENT_CA'] = sec.tlsClientCa;
  }
  if (sec?.saslUsers) process.env['REPLICA_STUDIO_KAFKA_SASL_USERS'] = sec.saslUsers;
  const opening = openServedCluster(args, args.dataDir, { ...how, kafkaPort: args.kafkaPort, ...(args.brokerConfigs ? { staticConfigs: args.brokerConfigs } : {}) });
  const loading = Promise.all([import('../http/http-host.js'), import('../../app/service/connections/host-connections.js'), import('../../app/service/embedded-driver/embedded-driver.js'), import('../../app/kafka-client/kafkajs-codecs.js')]);
  const [opened, loaded] = await Promise.allSettled([opening, loading]);
  if (opened.status === 'rejected') throw opened.reason;
  const cluster = opened.value;
  if (loaded.status === 'rejected') {
    await cluster.close();
    throw loaded.reason;
  }
  const [{ startHttpHost }, { createHostConnections }, { embeddedDriver }, { useZstdCompressor }] = loaded.value;
  // The Kafka driver's zstd batches: the engine's WebAssembly compressor, loaded on first use.
  useZstdCompressor(() => import('../engine/zstd-compressor.js').then((m) => m.loadZstdCompressor()));
  const connections = createHostConnections({
    configDir: args.configDir,
    host: () => ({ dataDir: args.dataDir, driver: cluster.service }),
    async openLocal(dataDir, how) {
      const local = await openServedCluster(args, dataDir, how);
      await local.ready();
      return embeddedDriver(local.service, () => local.close());
    },
  });
  try {
    const token = loadOrCreateToken(args.dataDir);
    const host = await startHttpHost({ service: connections, port: args.port, host: '127.0.0.1', token, ...(args.staticDir ? { staticDir: args.staticDir } : {}) });
    let schemaRegistry: SchemaRegistryServer | undefined;
    if (args.schemaRegistryPort !== undefined) {
      const { startSchemaRegistry } = await import('../schema-registry/schema-registry-server.js');
      const { readSaslUsers } = await import('../kafka/listener-security.js');
      const users = sec?.saslUsers ? readSaslUsers(sec.saslUsers).users : undefined;
      // On the Kafka listeners' footing: the address they bind, the name they advertise.
      const registryHost = args.kafkaBind ?? '127.0.0.1';
      schemaRegistry = await startSchemaRegistry({
        service: cluster.service,
        port: args.schemaRegistryPort,
        host: registryHost,
        ...(args.advertisedHost !== undefined ? { advertisedHost: args.advertisedHost } : {}),
        ...(users ? { users } : {}),
      }).catch(async (e: unknown) => {
        await host.close();
        throw new Error(`the Schema Registry cannot listen on ${registryHost}:${args.schemaRegistryPort}: ${(e as Error).message}`);
      });
    }
    return { cluster, host, connections, ...(trustCaFile ? { trustCaFile } : {}), ...(schemaRegistry ? { schemaRegistry } : {}) };
  } catch (e) {
    await connections.close();
    await cluster.close();
    throw e;
  }
}

/** The cluster in `dataDir` (created as `how` says when new), wherever its engine runs. */
async function openServedCluster(
  args: Pick<ServeArgs, 'inProcess' | 'kafkaBind' | 'advertisedHost'>,
  dataDir: string,
  how: NewLocalCluster & { kafkaPort?: KafkaPortChoice },
): Promise<ServedCluster> {
  const newCluster = {
    ...(how.brokers !== undefined ? { brokers: how.brokers } : { initialProfile: how.profile ?? NEW_CLUSTER_PROFILE }),
    kafkaPort: how.kafkaPort ?? 'default',
    ...(args.kafkaBind !== undefined ? { kafkaBind: args.kafkaBind } : {}),
    ...(args.advertisedHost !== undefined ? { kafkaAdvertisedHost: args.advertisedHost } : {}),
    ...(how.staticConfigs ? { staticConfigs: how.staticConfigs } : {}),
  };
  if (args.inProcess) {
    const { openCluster } = await import('../engine/open-cluster.js');
    const cluster = openCluster({ dataDir, ...newCluster });
    return { service: cluster.service, created: cluster.created, ready: () => cluster.ready(READY_TIMEOUT_MS), close: () => Promise.resolve(cluster.close()) };
  }
  const remote = await startRemoteService({ dataDir, ...newCluster });
  return {
    service: remote,
    created: remote.created,
    ready: () => remote.ready(),
    async close() {
      const code = await remote.close();
      if (code !== 0) throw new Error(`the engine process exited with ${code}`);
    },
  };
}

/** 127.0.0.0/8 and ::1: addresses no other machine can reach. */
function isLoopback(address: string): boolean {
  return address === '::1' || /^127\./.test(address);
}

/**
 * What `--bind ADDR` exposes, said on stderr at start: who can now reach every broker and what
 * they can do there, and what to turn on against it.
 */
export function bindWarning(address: string, security: ServeArgs['kafkaSecurity'], schemaRegistry = false): string {
  const reach = isLoopback(address)
    ? `any process on this machine that connects to ${address}`
    : `anyone who can reach this machine on ${address === '0.0.0.0' || address === '::' ? 'any of its addresses' : address} (other machines on the network, containers)`;
  const auth = security?.saslUsers
    ? 'they must authenticate with SASL first'
    : 'with no authentication they can create, read, write and delete every topic and group (PLAINTEXT: add --kafka-sasl-users FILE, and TLS, to require a password)';
  const registry = !schemaRegistry
    ? ''
    : security?.saslUsers
      ? ' The Schema Registry listens there too, with HTTP basic auth for the same users.'
      : ' The Schema Registry listens there too, with no authentication: they can register and delete every schema and change compatibility.';
  return `WARNING: --bind ${address}: the Kafka listeners of every broker accept connections from ${reach}; ${auth}.${registry} The console's HTTP host stays on 127.0.0.1.`;
}

function oneLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').trim();
}

async function main(): Promise<void> {
  let args: ServeArgs;
  try {
    args = parseServeArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`replica-studio serve: ${oneLine(e)}\n${USAGE}\n`);
    process.exit(2);
  }
  if (args.kafkaBind !== undefined) process.stderr.write(`replica-studio serve: ${bindWarning(args.kafkaBind, args.kafkaSecurity, args.schemaRegistryPort !== undefined)}\n`);
  let running: Awaited<ReturnType<typeof serve>>;
  const loading = reportLoading(args.dataDir, (line) => process.stderr.write(`replica-studio serve: ${line}\n`));
  try {
    running = await serve(args);
  } catch (e) {
    process.stderr.write(`replica-studio serve: cannot start on ${args.dataDir}: ${oneLine(e)}\n`);
    process.exit(1);
  } finally {
    loading.stop();
  }
  const asked = process.argv.slice(2).find((a) => /^--(profile|brokers)(=|$)/.test(a));
  if (!running.cluster.created && asked) {
    const flag = 'brokers' in args.newCluster ? `--brokers ${args.newCluster.brokers}` : `--profile ${args.newCluster.profile}`;
    process.stderr.write(`replica-studio serve: ${args.dataDir} holds a cluster already; ${flag} applies only to a new one\n`);
  }
  // The URL goes out once the brokers have registered: a script may create a topic at once.
  const progress = reportOpening(running.cluster.service, args.dataDir, (line) => process.stderr.write(`replica-studio serve: ${line}\n`));
  const ready = await running.cluster.ready();
  progress.stop();
  if (!ready) {
    process.stderr.write(`replica-studio serve: no broker changed state for ${READY_TIMEOUT_MS / 1000} s and not every broker is running; the console shows which\n`);
  }
  if (running.trustCaFile) {
    process.stderr.write(`replica-studio serve: the Kafka listeners use TLS with a self-signed certificate for 127.0.0.1 and localhost; clients trust the CA in ${running.trustCaFile}\n`);
  }
  if (running.schemaRegistry) {
    const auth = args.kafkaSecurity?.saslUsers ? ' (HTTP basic auth with the SASL users)' : '';
    process.stderr.write(`replica-studio serve: Schema Registry on ${running.schemaRegistry.url}${auth}\n`);
  }
  process.stdout.write(`${running.host.url}\n`);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      // A second signal: no more waiting. The engine's process, left without its parent, closes its cluster itself.
      process.stderr.write(`replica-studio serve: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    process.stderr.write(`replica-studio serve: ${signal}, shutting down\n`);
    Promise.resolve(running.schemaRegistry?.close())
      .then(() => running.host.close())
      .then(() => running.connections.close())
      .then(() => running.cluster.close())
      .then(() => process.exit(0))
      .catch((e: unknown) => {
        process.stderr.write(`replica-studio serve: shutdown failed: ${oneLine(e)}\n`);
        process.exit(1);
      });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

if (esMain(import.meta)) void main();
