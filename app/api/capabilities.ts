/**
 * What a connection can offer. The embedded cluster offers everything; a real Kafka cluster
 * reached over the Kafka protocol cannot offer what only a cluster we run ourselves can show or
 * do (fault drills, each follower's log end offset, the controller's timeline, a faster clock).
 * A method that needs a missing capability answers UNSUPPORTED_FOR_CONNECTION naming it and the
 * reason (`details: { capability, reason }`); a view that would hold such data says why instead
 * of holding nothing (`TopicView.unavailable`). The console reads the list to grey out what a
 * connection cannot do, with the reason beside it.
 *
 * This module imports nothing, so every other contract module may build on it.
 */

/** Every capability, with what it means to a user. */
export const CAPABILITY_TITLES = {
  faults: 'Fault drills: stop, kill, power-loss, isolate, heal, stall and start brokers',
  brokerMembership: 'Adding and removing brokers',
  replicaStates: "Each replica's log end offset, high watermark and flushed offset",
  timeline: "The controller's timeline of recent events",
  liveEvents: 'Live events: ISR changes, elections and high watermarks as they happen',
  clockScale: "Running the cluster's clock faster than real time",
  metrics: 'Produce, consume and replication throughput per broker',
  consumerGroups: 'Consumer groups: members, committed offsets and lag, offset resets, deletion',
  inAppConsumers: 'In-app consumer groups the console runs for drills',
  featureUpdates: 'Upgrading and downgrading feature levels (kafka-features.sh)',
  eligibleLeaderReplicas: "Each partition's eligible leader replicas and last known ELR (KIP-966)",
  schemaRegistry: "The cluster's own Schema Registry: subjects, versions, compatibility checks and schema ids in records",
  quotaThrottles: 'The throttle each client gets from its quotas, per broker, now',
  compaction: "The log cleaner's state of each replica: its checkpoint, dirty ratio, last cleaning and why it waits",
} as const;

/** A capability's name. */
export type Capability = keyof typeof CAPABILITY_TITLES;

/** Every capability name, in a stable order. */
export const CAPABILITIES = Object.keys(CAPABILITY_TITLES) as Capability[];

/** One capability of a connection: available, or not with the reason. */
export interface CapabilityView {
  name: Capability;
  /** What it means, in words. */
  title: string;
  available: boolean;
  /** Why it is not available (absent when it is). */
  reason?: string;
}

/** What an UNSUPPORTED_FOR_CONNECTION error carries in `details`. */
export interface UnsupportedDetailsView {
  capability: Capability;
  reason: string;
  /** The connection's id. */
  connection?: string;
}

/** The capability list of a connection that lacks `missing` (name → reason) and has the rest. */
export function capabilityViews(missing: Partial<Record<Capability, string>> = {}): CapabilityView[] {
  return CAPABILITIES.map((name) => {
    const reason = missing[name];
    return reason === undefined ? { name, title: CAPABILITY_TITLES[name], available: true } : { name, title: CAPABILITY_TITLES[name], available: false, reason };
  });
}
