/**
 * A certificate for the local host's Kafka listeners when TLS is asked for without one
 * (`npm run serve -- --kafka-tls-self-signed`), made with the `selfsigned` library.
 *
 * Invariant: `<data dir>/tls` holds
 *   ca.pem      the CA a client trusts (a public certificate; print its path, hand it to clients),
 *   server.pem  the listeners' certificate, signed by that CA, for IP 127.0.0.1 and DNS localhost,
 *   server.key  its private key, mode 0600.
 * The CA's own private key is never written: it signs this one certificate and is dropped, so
 * trusting ca.pem trusts nothing else. The files are kept across restarts while they still hold
 * together (the key matches, the CA issued the certificate, it covers 127.0.0.1) and the
 * certificate has more than a day to run; otherwise all three are made anew (a new CA to trust).
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface SelfSignedTls {
  caFile: string;
  certFile: string;
  keyFile: string;
  /** True when this call made them (the CA to trust is new). */
  created: boolean;
}

const DAY_MS = 86_400_000;
/** Below the 825 days macOS and browsers accept for a server certificate. */
const VALID_DAYS = 800;

/** The data directory's self-signed TLS files, made when missing, broken or about to expire. */
export async function ensureSelfSignedTls(dataDir: string, now: Date = new Date()): Promise<SelfSignedTls> {
  const dir = join(dataDir, 'tls');
  const files = { caFile: join(dir, 'ca.pem'), certFile: join(dir, 'server.pem'), keyFile: join(dir, 'server.key') };
  if (usable(files, now)) return { ...files, created: false };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const notAfterDate = new Date(now.getTime() + VALID_DAYS * DAY_MS);
  const ca = await generate([{ name: 'commonName', value: 'Replica Studio local Kafka CA' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const server = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] },
    ],
  });
  // The key first: a run cut short leaves files that do not hold together, so the next one remakes them.
  writeFileSync(files.keyFile, server.private, { mode: 0o600 });
  chmodSync(files.keyFile, 0o600); // the mode above applies only to a new file
  writeFileSync(files.certFile, server.cert);
  writeFileSync(files.caFile, ca.cert);
  return { ...files, created: true };
}

function usable(files: { caFile: string; certFile: string; keyFile: string }, now: Date): boolean {
  if (![files.caFile, files.certFile, files.keyFile].every((f) => existsSync(f))) return false;
  try {
    const cert = new X509Certificate(readFileSync(files.certFile));
    const ca = new X509Certificate(readFileSync(files.caFile));
    return (
      cert.checkIssued(ca) &&
      cert.verify(ca.publicKey) &&
      cert.checkPrivateKey(createPrivateKey(readFileSync(files.keyFile))) &&
      cert.checkIP('127.0.0.1') !== undefined &&
      Date.parse(cert.validTo) - now.getTime() > DAY_MS
    );
  } catch {
    return false;
  }
}
