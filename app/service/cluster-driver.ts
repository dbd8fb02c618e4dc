/**
 * The driver seam: one interface for every cluster the console manages, whatever runs it.
 *
 *   embedded  a cluster this app runs itself (the engine in this process or in an engine
 *             process): every capability.
 *   kafka     a Kafka cluster reached over the Kafka protocol (app/service/kafka-driver over the
 *             client adapter in app/kafka-client): the admin surface Kafka has, and no fault
 *             drills, follower log states, controller timeline or clock of ours.
 *
 * A driver is an `EngineService` (the hosts already speak to nothing else) that also says what it
 * can do. A method whose capability a driver lacks answers UNSUPPORTED_FOR_CONNECTION with the
 * capability and the reason, never an empty answer: `requireCapability` is the one place that
 * check happens, so the list the console reads and the errors the methods answer cannot disagree.
 */
import { KafkaError, type ErrorView } from '../api/errors.js';
import type { Capability, CapabilityView, UnsupportedDetailsView } from '../api/capabilities.js';
import type { ClusterMethodName } from '../api/contract.js';
import type { EngineService, ErrorLogger } from '../api/service.js';

export interface ClusterDriver extends EngineService {
  readonly kind: 'embedded' | 'kafka';
  /** What this driver can and cannot do, with the reasons. */
  capabilities(): CapabilityView[];
  /** Release what it holds (a client's connections, a local engine). Idempotent. */
  close(): Promise<void>;
}

/** The capability each method needs beyond the admin surface every driver has. */
export const METHOD_CAPABILITY: Partial<Record<ClusterMethodName, Capability>> = {
  'brokers.stop': 'faults',
  'brokers.start': 'faults',
  'brokers.kill': 'faults',
  'brokers.powerLoss': 'faults',
  'brokers.isolate': 'faults',
  'brokers.heal': 'faults',
  'brokers.stallFollower': 'faults',
  'brokers.cutLink': 'faults',
  'brokers.add': 'brokerMembership',
  'brokers.remove': 'brokerMembership',
  'events.recent': 'timeline',
  'clock.setScale': 'clockScale',
  'metrics.get': 'metrics',
  'groups.list': 'consumerGroups',
  'groups.describe': 'consumerGroups',
  'groups.resetOffsets': 'consumerGroups',
  'groups.delete': 'consumerGroups',
  'consumers.start': 'inAppConsumers',
  'consumers.stop': 'inAppConsumers',
  'consumers.list': 'inAppConsumers',
  'cluster.updateFeatures': 'featureUpdates',
  'schemas.list': 'schemaRegistry',
  'schemas.check': 'schemaRegistry',
  'schemas.register': 'schemaRegistry',
  'schemas.usage': 'schemaRegistry',
  'quotas.throttles': 'quotaThrottles',
  'topics.compaction': 'compaction',
};

/**
 * The envelope of a failed call: a KafkaError as it is (Kafka's code, the caller's mistake or the
 * cluster's state), anything else INTERNAL, logged with its stack and never blamed on the input.
 */
export function failureEnvelope(method: string, error: unknown, logger: ErrorLogger): { ok: false; error: ErrorView } {
  if (error instanceof KafkaError && error.code !== 'INTERNAL') return { ok: false, error: error.toView() };
  logger.error(`Internal error in ${method}`, error);
  return { ok: false, error: { code: 'INTERNAL', message: `Internal error in ${method}: ${error instanceof Error ? error.message : String(error)}`, retriable: false } };
}

/** The UNSUPPORTED_FOR_CONNECTION error for `capability`, with the reason a driver gave. */
export function unsupported(capability: Capability, reason: string, connection?: string): KafkaError {
  const details: UnsupportedDetailsView = { capability, reason, ...(connection !== undefined ? { connection } : {}) };
  return new KafkaError('UNSUPPORTED_FOR_CONNECTION', `Not available for this connection: ${reason}`, details);
}

/** Throws UNSUPPORTED_FOR_CONNECTION when `method` needs a capability `capabilities` lacks. */
export function requireCapability(method: string, capabilities: readonly CapabilityView[], connection?: string): void {
  const needed = METHOD_CAPABILITY[method as ClusterMethodName];
  if (needed === undefined) return;
  const cap = capabilities.find((c) => c.name === needed);
  if (cap && !cap.available) throw unsupported(needed, cap.reason ?? `${cap.title} is not available.`, connection);
}
