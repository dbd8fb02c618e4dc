/**
 * How the client reaches a cluster: bootstrap servers, `security.protocol`, TLS files and SASL
 * credentials, turned into one kafkajs cluster (its connections, authentication, metadata and
 * controller lookup) that the admin client, the producer and our codec requests all share.
 *
 * TLS: `SSL`/`SASL_SSL` verify the server's certificate against `caFile` (else the system's CAs)
 * and its name against the bootstrap host (or `serverName`); it is never turned off. A client
 * certificate and key (PEM) give mutual TLS. Files are read when the client is created, so a
 * missing or unreadable one fails there, naming the file.
 */
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { Cluster, ISocketFactory, RetryOptions, SASLOptions } from 'kafkajs';
import ClusterClass from 'kafkajs/src/cluster/index.js';
import { createLogger, LEVELS } from 'kafkajs/src/loggers/index.js';
import defaultSocketFactory from 'kafkajs/src/network/socketFactory.js';
import type { ConnectionOptions } from 'node:tls';
import { KafkaError } from '../api/errors.js';
import type { SaslMechanismView, SecurityProtocolView } from '../api/connections.js';

export interface KafkaConnectionConfig {
  bootstrapServers: string[];
  security: SecurityProtocolView;
  sasl?: { mechanism: SaslMechanismView; username: string; password: string };
  tls?: { caFile?: string; certFile?: string; keyFile?: string; keyPassphrase?: string; serverName?: string };
  /** Kafka's client.id (default `replica-studio`). */
  clientId?: string;
  /** TCP + TLS connect timeout per broker (default 10 000 ms). */
  connectionTimeoutMs?: number;
  /** Per request (default 30 000 ms). */
  requestTimeoutMs?: number;
  /** kafkajs's retries for retriable errors (default 2; 0 for a connection test). */
  retries?: number;
}

/** The kafkajs root logger: silent (every failure reaches the caller as an error). */
export function quietLogger(): unknown {
  return createLogger({ level: LEVELS.NOTHING, logCreator: () => () => {} });
}

function readPem(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new KafkaError('INVALID_CONFIG', `Cannot read the ${what} ${file}: ${(e as Error).message}`, { stage: 'config' });
  }
}

function tlsOptions(config: KafkaConnectionConfig): ConnectionOptions | undefined {
  if (config.security !== 'SSL' && config.security !== 'SASL_SSL') return undefined;
  const t = config.tls ?? {};
  if ((t.certFile === undefined) !== (t.keyFile === undefined)) {
    throw new KafkaError('INVALID_CONFIG', 'A client certificate needs its key, and a key its certificate (give both, or neither).', { stage: 'config' });
  }
  return {
    rejectUnauthorized: true,
    ...(t.caFile !== undefined ? { ca: [readPem(t.caFile, 'CA file')] } : {}),
    ...(t.certFile !== undefined ? { cert: readPem(t.certFile, 'client certificate') } : {}),
    ...(t.keyFile !== undefined ? { key: readPem(t.keyFile, 'client key') } : {}),
    ...(t.keyPassphrase !== undefined ? { passphrase: t.keyPassphrase } : {}),
    ...(t.serverName !== undefined ? { servername: t.serverName } : {}),
  };
}

function saslOptions(config: KafkaConnectionConfig): SASLOptions | undefined {
  if (config.security !== 'SASL_PLAINTEXT' && config.security !== 'SASL_SSL') return undefined;
  const s = config.sasl;
  if (!s) throw new KafkaError('INVALID_CONFIG', `${config.security} needs SASL settings (mechanism, username, password).`, { stage: 'config' });
  const mechanism = s.mechanism === 'PLAIN' ? 'plain' : s.mechanism === 'SCRAM-SHA-256' ? 'scram-sha-256' : 'scram-sha-512';
  return { mechanism, username: s.username, password: s.password } as SASLOptions;
}

/**
 * A kafkajs cluster for `config` (not connected yet), and what destroys every socket it opened:
 * kafkajs's disconnect leaves a connection that is still waiting for its first answer open.
 */
export function createKafkajsCluster(config: KafkaConnectionConfig, logger: unknown): { cluster: Cluster; retry: RetryOptions; destroySockets: () => void } {
  const sockets = new Set<Socket>();
  const base = defaultSocketFactory();
  const socketFactory: ISocketFactory = (args) => {
    const socket = base(args);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    return socket;
  };
  const retry: RetryOptions = { retries: config.retries ?? 2, initialRetryTime: 200, maxRetryTime: 5_000 };
  const ssl = tlsOptions(config);
  const sasl = saslOptions(config);
  const cluster = new ClusterClass({
    logger,
    retry,
    socketFactory,
    brokers: config.bootstrapServers,
    ...(ssl ? { ssl } : {}),
    ...(sasl ? { sasl } : {}),
    clientId: config.clientId ?? 'replica-studio',
    connectionTimeout: config.connectionTimeoutMs ?? 10_000,
    requestTimeout: config.requestTimeoutMs ?? 30_000,
    enforceRequestTimeout: true,
    // Metadata is read fresh for every view; the client's cache only routes requests.
    metadataMaxAge: 60_000,
    allowAutoTopicCreation: false,
    maxInFlightRequests: null,
    isolationLevel: 0,
  });
  return {
    cluster,
    retry,
    destroySockets: () => {
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
  };
}
