/**
 * The security of the local host's Kafka listeners (issue 14: so that connection tests and the
 * Kafka driver can be exercised over TLS and SASL against our own listener). PLAINTEXT by default;
 * TLS with a certificate and key from PEM files; SASL (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512; sasl-gate.ts) with
 * the users of a JSON file — together SASL_SSL, as Kafka names the protocols.
 *
 * Set for every broker of a host from the command line (`npm run serve -- --kafka-tls-cert FILE
 * --kafka-tls-key FILE [--kafka-tls-client-ca FILE] --kafka-sasl-users FILE`); the CLI hands them
 * to the engine's process in REPLICA_STUDIO_KAFKA_TLS_CERT / _TLS_KEY / _TLS_CLIENT_CA /
 * _SASL_USERS, which `fromEnvironment` reads. A client CA makes the listeners require a client
 * certificate it signed (mutual TLS: Kafka's `ssl.client.auth=required`); a client without one,
 * or with one another CA signed, fails the TLS handshake.
 * The users file: `{ "mechanisms": ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"], "users": { "alice": "secret" } }`;
 * the mechanisms are the listeners' (PLAIN alone when the list is left out); the users only seed
 * a new cluster's SCRAM credentials (both mechanisms, as `kafka-storage.sh format --add-scram`
 * does): from then on the credentials live in the cluster's metadata log, where
 * AlterUserScramCredentials changes them, and every login is checked against them.
 *
 * A connection's principal (the authorizer's subject): `User:<name>` after SASL; on an SSL
 * listener without SASL, the client certificate's distinguished name mapped by
 * `ssl.principal.mapping.rules` (principal-mapper.ts); otherwise User:ANONYMOUS.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { TLSSocket } from 'node:tls';
import type { ClientSession } from '../../app/protocol/api-handler.js';
import type { Dispatcher } from '../../app/protocol/dispatcher.js';
import { distinguishedName, type PrincipalMapper } from './principal-mapper.js';
import { SASL_MECHANISMS as MECHANISMS, saslGate, type SaslMechanism, type SaslServerConfig } from './sasl-gate.js';

export interface ListenerSecurity {
  /** `clientCa`: require a client certificate signed by it (ssl.client.auth=required). */
  tls?: { cert: Buffer; key: Buffer; clientCa?: Buffer };
  /** The users file: its mechanisms, and its users (a new cluster's seed; a gate without a cluster checks them). */
  sasl?: SaslServerConfig & { users: Record<string, string> };
}

/** Read a users file; a malformed one is an error naming the file. */
export function readSaslUsers(file: string): SaslServerConfig & { users: Record<string, string> } {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { mechanisms?: unknown; users?: unknown };
  const mechanisms = Array.isArray(raw.mechanisms) ? raw.mechanisms : ['PLAIN'];
  const bad = mechanisms.find((m) => !MECHANISMS.includes(m as SaslMechanism));
  if (bad !== undefined) throw new Error(`${file}: SASL mechanism ${JSON.stringify(bad)} is not offered (only ${MECHANISMS.join(', ')})`);
  const users = raw.users;
  if (typeof users !== 'object' || users === null || Object.values(users).some((p) => typeof p !== 'string')) throw new Error(`${file}: "users" must map user names to passwords`);
  return { mechanisms: mechanisms as SaslMechanism[], users: users as Record<string, string> };
}

/** The CA that signs the clients' certificates, read and checked; a file that is not a PEM certificate is an error naming it. */
export function readClientCa(file: string): Buffer {
  let pem: Buffer;
  try {
    pem = readFileSync(file);
    new X509Certificate(pem);
  } catch (e) {
    throw new Error(`--kafka-tls-client-ca ${file}: not a readable PEM certificate (${(e as Error).message})`);
  }
  return pem;
}

/** The security the CLI asked for, from the environment of the engine's process. */
export function securityFromEnvironment(env: NodeJS.ProcessEnv = process.env): ListenerSecurity {
  const cert = env['REPLICA_STUDIO_KAFKA_TLS_CERT'];
  const key = env['REPLICA_STUDIO_KAFKA_TLS_KEY'];
  const clientCa = env['REPLICA_STUDIO_KAFKA_TLS_CLIENT_CA'];
  const users = env['REPLICA_STUDIO_KAFKA_SASL_USERS'];
  if ((cert === undefined) !== (key === undefined)) throw new Error('TLS needs both --kafka-tls-cert and --kafka-tls-key');
  if (clientCa && !cert) throw new Error('--kafka-tls-client-ca needs TLS on the listeners (--kafka-tls-cert/--kafka-tls-key or --kafka-tls-self-signed)');
  return {
    ...(cert && key ? { tls: { cert: readFileSync(cert), key: readFileSync(key), ...(clientCa ? { clientCa: readClientCa(clientCa) } : {}) } } : {}),
    ...(users ? { sasl: readSaslUsers(users) } : {}),
  };
}

/** Kafka's name of the protocol a listener speaks. */
export function securityProtocol(security: ListenerSecurity | undefined): 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL' {
  if (security?.sasl) return security.tls ? 'SASL_SSL' : 'SASL_PLAINTEXT';
  return security?.tls ? 'SSL' : 'PLAINTEXT';
}

/** A TCP server, or a TLS one; `onSocket` gets each connection once its handshake is done. */
export function createListenerServer(security: ListenerSecurity | undefined, onSocket: (socket: Socket) => void): Server {
  const tls = security?.tls;
  if (tls) {
    const clientAuth = tls.clientCa ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true } : {};
    return createTlsServer({ cert: tls.cert, key: tls.key, ...clientAuth }, onSocket);
  }
  return createTcpServer({ noDelay: true }, onSocket);
}

/** What one connection's frames go through: the broker's dispatcher, behind a SASL gate when SASL is on, with the connection's session. */
export function connectionDispatcher(dispatcher: Pick<Dispatcher, 'dispatch'>, sasl: SaslServerConfig | undefined, session: ClientSession): Pick<Dispatcher, 'dispatch'> {
  return sasl ? saslGate(dispatcher, sasl, session) : { dispatch: (frame) => dispatcher.dispatch(frame, session) };
}

/** The address a client connects from, as Kafka prints InetAddress.getHostAddress (an IPv4-mapped IPv6 address as IPv4). */
export function clientHostOf(socket: Socket): string {
  const address = socket.remoteAddress ?? '127.0.0.1';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/**
 * A new connection's session: User:ANONYMOUS until SASL says otherwise, or on an SSL listener
 * without SASL the mapped name of the client's certificate (none: ANONYMOUS). Throws when no
 * mapping rule applies to the certificate (Kafka fails that connection).
 */
export function connectionSession(socket: Socket, security: ListenerSecurity | undefined, mapper: PrincipalMapper | undefined): ClientSession {
  const session: ClientSession = { principal: 'User:ANONYMOUS', clientHost: clientHostOf(socket) };
  if (security?.tls && !security.sasl) {
    const cert = (socket as TLSSocket).getPeerX509Certificate?.();
    if (cert) {
      const dn = distinguishedName(cert.subject);
      session.principal = `User:${mapper ? mapper.nameOf(dn) : dn}`;
    }
  }
  return session;
}
