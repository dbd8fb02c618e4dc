/**
 * The `connections.*` methods of the contract (spread into `contract` in contract.ts): they act
 * on the list of clusters a console manages, not on a cluster, so they take no `connection`.
 * What a connection is, and how calls address one, is in connections.ts.
 */
import { z } from 'zod';
import { method, returns } from './contract-kit.js';
import { rehearsalMethods } from './rehearsal-contract.js';
import { twinMethods } from './twin-contract.js';
import { connectionIdSchema, connectionNameSchema, externalSettingsSchema, type ConnectionTestView, type ConnectionView, type DeletedConnectionView } from './connections.js';

export const connectionMethods = {
  /** Every connection: local clusters and external Kafka clusters, with their capabilities (never a secret). */
  'connections.list': method(z.strictObject({}), returns<ConnectionView[]>()),
  /** One connection. */
  'connections.get': method(z.strictObject({ id: connectionIdSchema }), returns<ConnectionView>()),
  /** Save an external Kafka cluster (bootstrap servers, TLS, SASL); its secrets are stored and never returned. */
  'connections.addExternal': method(z.strictObject({ name: connectionNameSchema, settings: externalSettingsSchema }), returns<ConnectionView>()),
  /** Change an external connection: a secret left out keeps the saved one. Its client reconnects. */
  'connections.updateExternal': method(
    z.strictObject({ id: connectionIdSchema, name: connectionNameSchema.optional(), settings: externalSettingsSchema }),
    returns<ConnectionView>(),
  ),
  /**
   * Create a local cluster in a data directory of its own (in the app's folder) from a built-in
   * profile (default `balanced`), or of `brokers` bare brokers; it starts and registers.
   */
  'connections.createLocal': method(
    z.strictObject({ name: connectionNameSchema, profile: z.string().min(1).optional(), brokers: z.int().min(1).max(64).optional() }),
    returns<ConnectionView>(),
  ),
  /** Add the local cluster stored in an existing data directory (or a new one there). */
  'connections.openLocal': method(z.strictObject({ name: connectionNameSchema, dataDir: z.string().min(1) }), returns<ConnectionView>()),
  /** Rename a connection. */
  'connections.rename': method(z.strictObject({ id: connectionIdSchema, name: connectionNameSchema }), returns<ConnectionView>()),
  /**
   * Delete a connection; `confirm` must repeat its name exactly. A local cluster stops and its
   * data directory is deleted; an external one is forgotten with its secrets (the cluster is untouched).
   */
  'connections.delete': method(z.strictObject({ id: connectionIdSchema, confirm: z.string() }), returns<DeletedConnectionView>()),
  /**
   * Try an external cluster: a saved one (`id`), or settings being entered (`settings`; with `id`
   * too, secrets left out come from the saved connection). Reports the cluster found (id,
   * controller, brokers, Kafka version from ApiVersions) or the exact failure (DNS, refused, TLS,
   * SASL, timeout) as the value; nothing is saved.
   */
  'connections.test': method(
    z
      .strictObject({ id: connectionIdSchema.optional(), settings: externalSettingsSchema.optional() })
      .refine((x) => x.id !== undefined || x.settings !== undefined, { message: 'give id or settings' }),
    returns<ConnectionTestView>(),
  ),
  // connections.createTwin / refreshTwin: a local twin of another connection's topology (twin-contract.ts).
  ...twinMethods,
  // connections.rehearseStop / rehearsePlan / twinReport: predicted beside observed, and the report (rehearsal-contract.ts).
  ...rehearsalMethods,
} as const;
