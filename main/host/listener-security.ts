/**
 * The security of the local host's Kafka listeners (issue 14: so that connection tests and the
 * Kafka driver can be exercised over TLS and SASL against our own listener). PLAINTEXT by default;
 * TLS with a certificate and key from PEM files; SASL (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512; sasl-gate.ts) with
 * the users of a JSON file — together SASL_SSL, as Kafka names the protocols.
 *
 * Set for every broker of a host from the command line (`npm run serve -- --kafka-tls-cert FILE
 * --kafka-tls-key FILE --kafka-sasl-users FILE`); the CLI hands them to the engine's process in
 * REPLICA_STUDIO_KAFKA_TLS_CERT / _TLS_KEY / _SASL_USERS, which `fromEnvironment` reads.
 * The users file: `{ "mechanisms": ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"], "users": { "alice": "secret" } }`;
 * every user may use every mechanism listed (PLAIN alone when the list is left out).
 */
import { readFileSync } from 'node:fs';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { Dispatcher } from '../../app/protocol/dispatcher.js';
import { SASL_MECHANISMS as MECHANISMS, saslGate, type SaslMechanism, type SaslServerConfig } from './sasl-gate.js';

export interface ListenerSecurity {
  tls?: { cert: Buffer; key: Buffer };
  sasl?: SaslServerConfig;
}

/** Read a users file; a malformed one is an error naming the file. */
export function readSaslUsers(file: string): SaslServerConfig {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { mechanisms?: unknown; users?: unknown };
  const mechanisms = Array.isArray(raw.mechanisms) ? raw.mechanisms : ['PLAIN'];
  const bad = mechanisms.find((m) => !MECHANISMS.includes(m as SaslMechanism));
  if (bad !== undefined) throw new Error(`${file}: SASL mechanism ${JSON.stringify(bad)} is not offered (only ${MECHANISMS.join(', ')})`);
  const users = raw.users;
  if (typeof users !== 'object' || users === null || Object.values(users).some((p) => typeof p !== 'string')) throw new Error(`${file}: "users" must map user names to passwords`);
  return { mechanisms: mechanisms as SaslMechanism[], users: users as Record<string, string> };
}

/** The security the CLI asked for, from the environment of the engine's process. */
export function securityFromEnvironment(env: NodeJS.ProcessEnv = process.env): ListenerSecurity {
  const cert = env['REPLICA_STUDIO_KAFKA_TLS_CERT'];
  const key = env['REPLICA_STUDIO_KAFKA_TLS_KEY'];
  const users = env['REPLICA_STUDIO_KAFKA_SASL_USERS'];
  if ((cert === undefined) !== (key === undefined)) throw new Error('TLS needs both --kafka-tls-cert and --kafka-tls-key');
  return {
    ...(cert && key ? { tls: { cert: readFileSync(cert), key: readFileSync(key) } } : {}),
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
  if (security?.tls) return createTlsServer({ cert: security.tls.cert, key: security.tls.key }, onSocket);
  return createTcpServer({ noDelay: true }, onSocket);
}

/** What one connection's frames go through: the broker's dispatcher, behind a SASL gate when SASL is on. */
export function connectionDispatcher(dispatcher: Pick<Dispatcher, 'dispatch'>, security: ListenerSecurity | undefined): Pick<Dispatcher, 'dispatch'> {
  return security?.sasl ? saslGate(dispatcher, security.sasl) : dispatcher;
}
