/** Profiles for tests: a small valid document, and a way to build validated variants of it. */
import { validateProfile } from '../validate.js';
import { formatProfileIssue } from '../validate.js';
import type { Profile } from '../types.js';

/** A valid version-1 profile document (plain JSON value). */
export function sampleDocument(): Record<string, unknown> {
  return {
    version: 1,
    name: 'sample',
    description: 'A test profile.',
    cluster: { brokers: 3, racks: ['r1', 'r2', 'r3'] },
    brokerConfigs: { 'min.insync.replicas': '2', 'unclean.leader.election.enable': 'false' },
    topicDefaults: { partitions: 6, replicationFactor: 3, configs: { 'min.insync.replicas': '2', 'retention.ms': '86400000' } },
    producer: { acks: 'all', 'enable.idempotence': 'true', 'linger.ms': '10' },
    consumer: { 'isolation.level': 'read_committed' },
    notes: { 'producer.acks': 'all: every in-sync replica has the record before the ack.' },
  };
}

/** Validate `doc`, failing the test with every issue if it is not valid. */
export function mustValidate(doc: unknown): Profile {
  const r = validateProfile(doc);
  if (!r.ok) throw new Error(`expected a valid profile:\n${r.errors.map(formatProfileIssue).join('\n')}`);
  return r.profile;
}

/** The sample document with top-level fields replaced, validated. */
export function sampleProfile(patch: Record<string, unknown> = {}): Profile {
  return mustValidate({ ...sampleDocument(), ...patch });
}
