/**
 * SCRAM's key derivation (RFC 5802, as Kafka's ScramFormatter computes it), for everything that
 * turns a password or a salted password into a stored credential or checks a login against one:
 * the console's Users page, the users file that seeds a new cluster, AlterUserScramCredentials on
 * the wire and the listeners' SASL gate.
 *
 *   SaltedPassword = Hi(password, salt, i)   (PBKDF2 with HMAC-SHA-256 or -512)
 *   ClientKey = HMAC(SaltedPassword, "Client Key")   StoredKey = H(ClientKey)
 *   ServerKey = HMAC(SaltedPassword, "Server Key")
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ScramCredential, ScramMechanism } from '../core/security/types.js';

const HASH: Record<ScramMechanism, { hash: 'sha256' | 'sha512'; keyLength: number }> = {
  'SCRAM-SHA-256': { hash: 'sha256', keyLength: 32 },
  'SCRAM-SHA-512': { hash: 'sha512', keyLength: 64 },
};

/** The iterations a credential made from a password gets (Kafka's minimum, what kafka-configs.sh uses by default). */
export const DEFAULT_SCRAM_ITERATIONS = 4096;

export function hashOf(mechanism: ScramMechanism): 'sha256' | 'sha512' {
  return HASH[mechanism].hash;
}

export function saltedPassword(mechanism: ScramMechanism, password: string, salt: Uint8Array, iterations: number): Buffer {
  const { hash, keyLength } = HASH[mechanism];
  return pbkdf2Sync(password, salt, iterations, keyLength, hash);
}

/** StoredKey and ServerKey of a salted password, with the salt, in base64. */
export function scramKeys(mechanism: ScramMechanism, salt: Uint8Array, salted: Uint8Array): { salt: string; storedKey: string; serverKey: string } {
  const hash = HASH[mechanism].hash;
  const clientKey = createHmac(hash, salted).update('Client Key').digest();
  return {
    salt: Buffer.from(salt).toString('base64'),
    storedKey: createHash(hash).update(clientKey).digest('base64'),
    serverKey: createHmac(hash, salted).update('Server Key').digest('base64'),
  };
}

/** A new credential for `name` from a password: a random 16-byte salt, `iterations` rounds. */
export function credentialFromPassword(name: string, mechanism: ScramMechanism, password: string, iterations = DEFAULT_SCRAM_ITERATIONS): ScramCredential {
  const salt = randomBytes(16);
  return { name, mechanism, iterations, ...scramKeys(mechanism, salt, saltedPassword(mechanism, password, salt, iterations)) };
}

/** Whether `password` is the one `credential` was made from (a SASL/PLAIN login checked against a SCRAM credential). */
export function passwordMatches(credential: ScramCredential, password: string): boolean {
  const salted = saltedPassword(credential.mechanism, password, Buffer.from(credential.salt, 'base64'), credential.iterations);
  const computed = Buffer.from(scramKeys(credential.mechanism, Buffer.alloc(0), salted).storedKey, 'base64');
  const stored = Buffer.from(credential.storedKey, 'base64');
  return computed.length === stored.length && timingSafeEqual(computed, stored);
}
