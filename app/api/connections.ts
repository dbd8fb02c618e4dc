/**
 * Connections: the clusters one console manages. A connection is either a local cluster (a data
 * directory the app runs itself) or an external Kafka cluster reached over the Kafka protocol
 * (bootstrap servers, TLS, SASL). The list lives in the app's configuration directory, never in
 * a cluster's data directory.
 *
 * Addressing: every method that targets a cluster takes an optional `connection` (a connection's
 * id) beside its own input; absent, the call goes to the host's own cluster, so every caller that
 * predates connections keeps working. It travels inside the input because the input is what every
 * transport carries unchanged (the HTTP body, the preload's one function per method, the engine
 * process's messages): a window bound to a cluster just adds it to what it sends, and two windows
 * bound to two clusters share one host. The `connections.*` methods themselves target no cluster.
 *
 * Secrets (a SASL password, a client key's passphrase) go in with `connections.addExternal` /
 * `connections.updateExternal` and never come out: views only say whether one is saved.
 *
 * This module imports only zod and capabilities.ts, so contract.ts can build on it.
 */
import { z } from 'zod';
import type { CapabilityView } from './capabilities.js';

/** How the client reaches the brokers (Kafka's `security.protocol`). */
export const securityProtocolSchema = z.enum(['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL']);
export type SecurityProtocolView = z.infer<typeof securityProtocolSchema>;

/** SASL mechanisms a connection may use (Kafka's `sasl.mechanism`). */
export const saslMechanismSchema = z.enum(['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512']);
export type SaslMechanismView = z.infer<typeof saslMechanismSchema>;

/** `host:port`, a bootstrap server. IPv6 literals in brackets (`[::1]:9092`). */
export const bootstrapServerSchema = z.string().regex(/^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+):\d{1,5}$/, 'expected host:port');

/** A connection's name as the user sees it. */
export const connectionNameSchema = z.string().trim().min(1).max(100);

/** A connection id (what `connection` and `id` fields carry). */
export const connectionIdSchema = z.string().min(1).max(100);

/** SASL settings as entered: the password is a secret (stored, never returned). */
export const saslInputSchema = z.strictObject({
  mechanism: saslMechanismSchema,
  username: z.string().min(1),
  /** Absent on update: keep the saved one. */
  password: z.string().min(1).optional(),
});

/** TLS settings as entered: files on this machine (PEM); the key's passphrase is a secret. */
export const tlsInputSchema = z.strictObject({
  /** CA certificates to trust (PEM); absent: the system's trusted CAs. */
  caFile: z.string().min(1).optional(),
  /** Client certificate (PEM) for mutual TLS. */
  certFile: z.string().min(1).optional(),
  /** Client private key (PEM) for mutual TLS. */
  keyFile: z.string().min(1).optional(),
  /** Absent on update: keep the saved one. */
  keyPassphrase: z.string().min(1).optional(),
  /** The name the server's certificate must carry, when it differs from the bootstrap host. */
  serverName: z.string().min(1).optional(),
});

/**
 * The cluster's Schema Registry (Confluent's REST API) by URL: basic auth with `username` and
 * `password`, or a bearer `token`; the password and token are secrets (absent on update: keep).
 * `auth` says which outright: `none` drops a saved password and token (without it, a URL alone
 * keeps a saved token); `basic` needs the username; `none` and `bearer` take no username.
 */
export const registryInputSchema = z
  .strictObject({
    url: z.string().regex(/^https?:\/\/[^\s/?#]+(?:\/[^\s?#]*)?$/, 'expected an http:// or https:// URL'),
    auth: z.enum(['none', 'basic', 'bearer']).optional(),
    username: z.string().min(1).optional(),
    password: z.string().min(1).optional(),
    token: z.string().min(1).optional(),
  })
  .superRefine((r, ctx) => {
    if (r.auth === 'none' && (r.username !== undefined || r.password !== undefined || r.token !== undefined)) ctx.addIssue({ code: 'custom', message: "auth 'none' takes no username, password or token" });
    if (r.auth === 'basic' && (r.username === undefined || r.token !== undefined)) ctx.addIssue({ code: 'custom', message: "auth 'basic' needs the username and takes no token" });
    if (r.auth === 'bearer' && (r.username !== undefined || r.password !== undefined)) ctx.addIssue({ code: 'custom', message: "auth 'bearer' takes no username or password" });
  });

/** An external cluster's settings, as `connections.addExternal` and `connections.test` take them. */
export const externalSettingsSchema = z.strictObject({
  bootstrapServers: z.array(bootstrapServerSchema).min(1),
  security: securityProtocolSchema.optional(),
  sasl: saslInputSchema.optional(),
  tls: tlsInputSchema.optional(),
  schemaRegistry: registryInputSchema.optional(),
});
export type ExternalSettingsInput = z.infer<typeof externalSettingsSchema>;

/** An external connection's settings as views show them: no secrets, only whether one is saved. */
export interface ExternalSettingsView {
  bootstrapServers: string[];
  security: SecurityProtocolView;
  sasl?: { mechanism: SaslMechanismView; username: string; passwordSaved: boolean };
  tls?: { caFile?: string; certFile?: string; keyFile?: string; serverName?: string; keyPassphraseSaved: boolean };
  schemaRegistry?: { url: string; username?: string; passwordSaved: boolean; tokenSaved: boolean };
}

/** One connection of the list. */
export interface ConnectionView {
  id: string;
  name: string;
  kind: 'local' | 'external';
  /** A local cluster: its data directory. */
  dataDir?: string;
  /** An external cluster: how it is reached (secrets never included). */
  external?: ExternalSettingsView;
  /** The cluster this host serves: calls without `connection` go here. */
  isDefault: boolean;
  /** Running (a local cluster's engine) or connected (an external cluster's client) now. */
  open: boolean;
  /** What this connection can and cannot do, with the reasons. */
  capabilities: CapabilityView[];
  /** A twin (a local cluster made from another connection's topology): where it came from. */
  twinOf?: TwinOriginView;
}

/** Where a twin came from (app/api/twin-contract.ts; kept with the connection, across restarts). */
export interface TwinOriginView {
  /** The source connection's id and name when the twin was made or last refreshed. */
  sourceId: string;
  sourceName: string;
  /** The source cluster's id (a refresh from a connection that now reaches another cluster says so). */
  sourceClusterId: string;
  createdAtMs: number;
  refreshedAtMs: number;
}

/** What `connections.delete` did. */
export interface DeletedConnectionView {
  id: string;
  name: string;
  /** A local cluster: its data directory was deleted. */
  dataDeleted: boolean;
  /** Said when something was left in place (a data directory outside the app's folder keeps files we did not write). */
  note?: string;
}

/** Why a connection test failed, by where it failed. */
export type ConnectionFailureStage = 'dns' | 'refused' | 'tls' | 'sasl' | 'timeout' | 'protocol' | 'config';

/** What `connections.test` found: the cluster, or the exact failure. */
export type ConnectionTestView =
  | {
      ok: true;
      clusterId: string | null;
      controllerId: number | null;
      brokerCount: number;
      brokers: { id: number; host: string; port: number; rack: string | null }[];
      /** Kafka's release guessed from the ApiVersions ranges ("3.9 or newer"). */
      kafkaVersion: string;
      /** How many APIs the answering broker advertised. */
      apiCount: number;
      elapsedMs: number;
    }
  | {
      ok: false;
      stage: ConnectionFailureStage;
      /** The failure in words, naming the server and what it answered. */
      message: string;
      elapsedMs: number;
    };
