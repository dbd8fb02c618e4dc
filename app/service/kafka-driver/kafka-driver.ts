/**
 * The Kafka driver: the contract over an external Kafka cluster, through the admin client of
 * app/kafka-client. Every view is computed from a fresh read of the cluster (snapshot.ts) by the
 * same code the embedded service uses where it can (health counts, the balancer, the leader
 * balance, the durability explainer, profile diffs), so a local and a real cluster in the same
 * state read the same.
 *
 * What a real cluster cannot offer answers UNSUPPORTED_FOR_CONNECTION with the reason
 * (`KAFKA_MISSING`), never an empty answer; `capabilities()` lists the same reasons.
 *
 * Guarantees as the embedded service's: `call` checks the input (`checkCall`), never throws or
 * rejects; Kafka's errors keep Kafka's names; anything else is INTERNAL, logged.
 */
import type { Capability, CapabilityView } from '../../api/capabilities.js';
import { capabilityViews } from '../../api/capabilities.js';
import type { ClusterMethodName, Result } from '../../api/contract.js';
import { KafkaError } from '../../api/errors.js';
import { checkCall, type ErrorLogger } from '../../api/service.js';
import { KafkaAdminClient } from '../../kafka-client/admin-client.js';
import type { KafkaConnectionConfig } from '../../kafka-client/config.js';
import { failureEnvelope, requireCapability, unsupported, type ClusterDriver } from '../cluster-driver.js';
import { kafkaAdminMethods } from './admin-methods.js';
import type { ImportedProfiles, KafkaMethods } from './kafka-methods.js';
import { kafkaClusterMethods } from './cluster-methods.js';
import { kafkaGroupBackend } from './group-methods.js';
import { groupIdsOver, groupMethodsOver } from '../embedded-driver/group-methods.js';
import { impactMethods } from '../impact-methods.js';
import { readImpactSource } from './impact-source.js';
import { kafkaSecurityMethods } from './security-methods.js';
import { kafkaTxnMethods } from './txn-backend.js';
import { RegistryClient, type ExternalRegistryConfig } from './registry-client.js';
import { externalSchemas, externalSchemasMethods } from './schemas-methods.js';
import { kafkaRecordSource } from './kafka-record-source.js';
import { clientTxnMethods } from '../client-transactions.js';

/** What a Kafka cluster reached over the Kafka protocol cannot offer, and why. */
export const KAFKA_MISSING: Partial<Record<Capability, string>> = {
  faults:
    "A real cluster's brokers are processes on its own machines: stopping, killing or isolating one is done there (systemctl, kill, a firewall), not through the Kafka protocol.",
  brokerMembership:
    'Brokers join a real cluster when they are started against its controllers and leave when they are shut down and unregistered (kafka-cluster.sh unregister); the Kafka admin protocol has no request to add one.',
  replicaStates:
    "The Kafka protocol reports a partition's leader, ISR, high watermark and log start offset, but not each follower's log end offset, high watermark or flushed offset: brokers publish those only as JMX metrics.",
  timeline: "The controller's metadata log cannot be read through the Kafka admin protocol; the console keeps a timeline only for clusters it runs itself.",
  liveEvents: 'A Kafka cluster pushes no events to its clients: the console re-reads it every few seconds instead.',
  clockScale: 'A real cluster runs on real time.',
  metrics: 'Produce, consume and replication throughput per broker are JMX metrics, which the Kafka protocol does not carry.',
  // Kafka has this (UpdateFeatures): not built yet for external clusters.
  inAppConsumers: "The console's in-app consumers are a drill tool of the clusters it runs; against a real cluster, run your own consumers.",
  schemaRegistry: "A real cluster's Schema Registry is a server of its own: give its URL in the connection's settings (schemaRegistry) to see its subjects and decode records framed by it.",
  quotaThrottles:
    "A real cluster reports each client's throttle as JMX metrics (kafka.server type Produce, Fetch and Request, by user and client id), which the Kafka protocol does not carry; its quotas themselves are read and changed here.",
  compaction:
    "A Kafka broker's log cleaner shows its state (checkpoints, dirty ratios, cleanings) only in JMX metrics and its log, not over the Kafka protocol; a topic's cleanup policy and compaction configs, and its log-dir sizes, are shown with its configs.",
};

/** What an external connection cannot do: the registry too, unless the connection names one. */
export function kafkaMissing(hasRegistry: boolean): Partial<Record<Capability, string>> {
  if (!hasRegistry) return KAFKA_MISSING;
  const { schemaRegistry: _registry, ...rest } = KAFKA_MISSING;
  return rest;
}

export interface KafkaDriverOptions {
  /** The cluster's Schema Registry by URL (schemas.*, decoding framed records). */
  schemaRegistry?: ExternalRegistryConfig;
  /** The connection's id, named in UNSUPPORTED_FOR_CONNECTION details. */
  connection?: string;
  logger?: ErrorLogger;
  /** Folder of the built-in profiles (default resources/profiles). */
  profilesDir?: string;
  /** Imported profiles (kept with the connection list, not in any cluster). */
  importedProfiles?: ImportedProfiles;
}

export interface KafkaDriver extends ClusterDriver {
  readonly client: KafkaAdminClient;
}

const defaultLogger: ErrorLogger = { error: (message, error) => console.error(message, error) };

/** A driver over `config`'s cluster; it connects on its first call. */
export function createKafkaDriver(config: KafkaConnectionConfig, options: KafkaDriverOptions = {}): KafkaDriver {
  const client = new KafkaAdminClient(config);
  return kafkaDriverOver(client, options);
}

/** The driver over an admin client. */
export function kafkaDriverOver(client: KafkaAdminClient, options: KafkaDriverOptions = {}): KafkaDriver {
  const logger = options.logger ?? defaultLogger;
  const notHere = kafkaMissing(options.schemaRegistry !== undefined);
  const capabilities: CapabilityView[] = capabilityViews(notHere);
  const missing = (capability: Capability): never => {
    throw unsupported(capability, notHere[capability]!, options.connection);
  };
  const registry = options.schemaRegistry ? new RegistryClient(options.schemaRegistry) : null;
  const schemas = registry ? externalSchemas(registry) : null;
  const groups = kafkaGroupBackend(client);
  const methods: KafkaMethods = {
    ...kafkaClusterMethods(client, missing, options.connection, schemas),
    ...(registry ? externalSchemasMethods(registry, kafkaRecordSource(client)) : {}),
    ...groupMethodsOver(groups),
    ...kafkaSecurityMethods(client, missing),
    ...kafkaTxnMethods(client),
    ...clientTxnMethods(() => client.config),
    ...kafkaAdminMethods(client, { ...(options.profilesDir ? { profilesDir: options.profilesDir } : {}), ...(options.importedProfiles ? { importedProfiles: options.importedProfiles } : {}) }),
    ...impactMethods(
      () => readImpactSource(client),
      () => groupIdsOver(groups),
    ),
  };
  let connecting: Promise<void> | undefined;
  let closed = false;

  async function call(method: string, input: unknown): Promise<Result<unknown>> {
    const checked = checkCall(method, input);
    if (!checked.ok) return checked;
    if (checked.connection !== undefined) {
      return { ok: false, error: { code: 'CONNECTION_NOT_FOUND', message: `This driver serves one cluster; connection ${JSON.stringify(checked.connection)} is routed by the host.`, retriable: false } };
    }
    try {
      if (checked.method.startsWith('connections.')) throw new KafkaError('INVALID_REQUEST', `${checked.method} is answered by the host's connection list.`);
      requireCapability(checked.method, capabilities, options.connection);
      if (closed) throw new KafkaError('NETWORK_EXCEPTION', 'This connection was closed.');
      if (!client.isConnected()) {
        connecting ??= client.connect().finally(() => (connecting = undefined));
        await connecting;
      }
      const run = methods[checked.method as ClusterMethodName] as (input: unknown) => unknown;
      return { ok: true, value: await run(checked.input) };
    } catch (error) {
      return failureEnvelope(method, error, logger);
    }
  }

  return {
    kind: 'kafka',
    client,
    call: call as ClusterDriver['call'],
    // A Kafka cluster pushes nothing: there are no events to relay.
    subscribe: () => () => {},
    capabilities: () => capabilities.map((c) => ({ ...c })),
    async close() {
      closed = true;
      await client.close().catch((e: unknown) => logger.error('Closing a Kafka connection failed', e));
    },
  };
}
