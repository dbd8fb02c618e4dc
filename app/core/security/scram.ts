/**
 * SCRAM credentials in the metadata log (KIP-554), as KRaft's ScramControlManager validates an
 * AlterUserScramCredentials and ScramImage answers a DescribeUserScramCredentials. A credential is
 * what RFC 5802 lets a server keep: the salt, the iteration count, StoredKey = H(HMAC(salted,
 * "Client Key")) and ServerKey = HMAC(salted, "Server Key"), never the password nor the salted
 * password. The keys are derived outside the engine (the core has no hashing); the controller
 * only validates and stores them.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { MetadataRecord } from '../metadata/records.js';
import type { ScramCredential, ScramMechanism } from './types.js';

export type { ScramCredential, ScramMechanism } from './types.js';
/** Kafka's ScramMechanism type codes (org.apache.kafka.clients.admin.ScramMechanism). */
export const SCRAM_MECHANISM_TYPES = { UNKNOWN: 0, 'SCRAM-SHA-256': 1, 'SCRAM-SHA-512': 2 } as const;
export const SCRAM_MECHANISMS: readonly ScramMechanism[] = ['SCRAM-SHA-256', 'SCRAM-SHA-512'];
/** The fewest iterations either mechanism accepts (ScramMechanism.minIterations) and the most the controller does (ScramControlManager.MAX_ITERATIONS). */
export const SCRAM_MIN_ITERATIONS = 4096;
export const SCRAM_MAX_ITERATIONS = 16384;

export function mechanismOfType(type: number): ScramMechanism | 'UNKNOWN' {
  return type === 1 ? 'SCRAM-SHA-256' : type === 2 ? 'SCRAM-SHA-512' : 'UNKNOWN';
}

/** An upsertion with its keys derived from the client's salted password. */
export interface ScramUpsertion {
  name: string;
  mechanism: ScramMechanism | 'UNKNOWN';
  iterations: number;
  salt: string;
  storedKey: string;
  serverKey: string;
}

export interface ScramDeletion {
  name: string;
  mechanism: ScramMechanism | 'UNKNOWN';
}

export interface ScramAlterResult {
  user: string;
  errorCode: KafkaErrorName;
  errorMessage: string | null;
}

const credentialKey = (name: string, mechanism: string): string => `${mechanism}\u0000${name}`;

type Failure = { code: KafkaErrorName; message: string };

function validateNameAndMechanism(name: string, mechanism: string): Failure | null {
  if (name === '') return { code: 'UNACCEPTABLE_CREDENTIAL', message: 'Username must not be empty' };
  if (mechanism === 'UNKNOWN') return { code: 'UNSUPPORTED_SASL_MECHANISM', message: 'Unknown SCRAM mechanism' };
  return null;
}

/**
 * ScramControlManager.alterCredentials: each user may appear once across deletions and
 * upsertions (else DUPLICATE_RESOURCE); a deletion needs an existing credential
 * (RESOURCE_NOT_FOUND); an upsertion 4096–16384 iterations (UNACCEPTABLE_CREDENTIAL). The valid
 * ones become records, all committed together; results list deletions, then upsertions, then
 * errors.
 */
export function alterScramCredentials(
  exists: (name: string, mechanism: ScramMechanism) => boolean,
  deletions: readonly ScramDeletion[],
  upsertions: readonly ScramUpsertion[],
): { records: MetadataRecord[]; results: ScramAlterResult[] } {
  const toDelete = new Map<string, ScramDeletion>();
  const toUpsert = new Map<string, ScramUpsertion>();
  const errors = new Map<string, Failure>();
  const twice: Failure = { code: 'DUPLICATE_RESOURCE', message: 'A user credential cannot be altered twice in the same request' };
  for (const d of deletions) {
    if (errors.has(d.name)) continue;
    if (toDelete.delete(d.name)) {
      errors.set(d.name, twice);
      continue;
    }
    const bad = validateNameAndMechanism(d.name, d.mechanism);
    if (bad) errors.set(d.name, bad);
    else if (!exists(d.name, d.mechanism as ScramMechanism)) errors.set(d.name, { code: 'RESOURCE_NOT_FOUND', message: 'Attempt to delete a user credential that does not exist' });
    else toDelete.set(d.name, d);
  }
  for (const u of upsertions) {
    if (errors.has(u.name)) continue;
    if (toDelete.delete(u.name) || toUpsert.delete(u.name)) {
      errors.set(u.name, twice);
      continue;
    }
    const bad =
      validateNameAndMechanism(u.name, u.mechanism) ??
      (u.iterations < SCRAM_MIN_ITERATIONS
        ? { code: 'UNACCEPTABLE_CREDENTIAL' as const, message: 'Too few iterations' }
        : u.iterations > SCRAM_MAX_ITERATIONS
          ? { code: 'UNACCEPTABLE_CREDENTIAL' as const, message: 'Too many iterations' }
          : null);
    if (bad) errors.set(u.name, bad);
    else toUpsert.set(u.name, u);
  }
  const records: MetadataRecord[] = [];
  const results: ScramAlterResult[] = [];
  for (const d of toDelete.values()) {
    records.push({ type: 'RemoveUserScramCredential', name: d.name, mechanism: d.mechanism as ScramMechanism });
    results.push({ user: d.name, errorCode: 'NONE', errorMessage: null });
  }
  for (const u of toUpsert.values()) {
    const { name, iterations, salt, storedKey, serverKey } = u;
    records.push({ type: 'UserScramCredential', credential: { name, mechanism: u.mechanism as ScramMechanism, salt, storedKey, serverKey, iterations } });
    results.push({ user: name, errorCode: 'NONE', errorMessage: null });
  }
  for (const [user, e] of errors) results.push({ user, errorCode: e.code, errorMessage: e.message });
  return { records, results };
}

export interface ScramDescribeResult {
  user: string;
  errorCode: KafkaErrorName;
  errorMessage: string | null;
  credentialInfos: { mechanism: ScramMechanism; iterations: number }[];
}

/**
 * ScramImage.describe: every user with a credential when `users` is null or empty, else each
 * named user once (DUPLICATE_RESOURCE when named twice, RESOURCE_NOT_FOUND without credentials);
 * iterations per mechanism, never the keys.
 */
export function describeScramCredentials(credentials: Iterable<ScramCredential>, users: readonly string[] | null): ScramDescribeResult[] {
  const byUser = new Map<string, ScramCredential[]>();
  for (const c of credentials) {
    const list = byUser.get(c.name);
    if (list) list.push(c);
    else byUser.set(c.name, [c]);
  }
  const asked = new Map<string, boolean>();
  if (!users || users.length === 0) for (const name of [...byUser.keys()].sort()) asked.set(name, false);
  else for (const name of users) asked.set(name, asked.has(name));
  const out: ScramDescribeResult[] = [];
  for (const [user, duplicate] of asked) {
    if (duplicate) {
      out.push({ user, errorCode: 'DUPLICATE_RESOURCE', errorMessage: `Cannot describe SCRAM credentials for the same user twice in a single request: ${user}`, credentialInfos: [] });
      continue;
    }
    const creds = byUser.get(user);
    if (!creds) {
      out.push({ user, errorCode: 'RESOURCE_NOT_FOUND', errorMessage: `Attempt to describe a user credential that does not exist: ${user}`, credentialInfos: [] });
      continue;
    }
    const infos = SCRAM_MECHANISMS.flatMap((m) => creds.filter((c) => c.mechanism === m).map((c) => ({ mechanism: m, iterations: c.iterations })));
    out.push({ user, errorCode: 'NONE', errorMessage: null, credentialInfos: infos });
  }
  return out;
}

export { credentialKey };
