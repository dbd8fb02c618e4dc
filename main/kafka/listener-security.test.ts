/**
 * Mutual TLS on the Kafka listeners (`--kafka-tls-client-ca FILE`, Kafka's
 * `ssl.client.auth=required`): the listener's TLS server asks every client for a certificate and
 * accepts only one the given CA signed. A client with such a certificate gets through; one with no
 * certificate, or with one another CA signed, fails the handshake. Certificates are made here with
 * the `selfsigned` library (a CA, a server certificate for 127.0.0.1, client certificates).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../cli/cli.js';
import { createListenerServer, readClientCa, securityFromEnvironment, securityProtocol } from './listener-security.js';

interface Pem {
  cert: string;
  key: string;
}

async function authority(name: string): Promise<Pem> {
  const ca = await generate([{ name: 'commonName', value: name }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  return { cert: ca.cert, key: ca.private };
}

async function signed(ca: Pem, name: string, usage: 'serverAuth' | 'clientAuth'): Promise<Pem> {
  const altNames = usage === 'serverAuth' ? [{ name: 'subjectAltName' as const, altNames: [{ type: 7 as const, ip: '127.0.0.1' }] }] : [];
  const made = await generate([{ name: 'commonName', value: name }], {
    keySize: 2048,
    algorithm: 'sha256',
    ca: { key: ca.key, cert: ca.cert },
    extensions: [{ name: 'basicConstraints', cA: false }, { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true }, { name: 'extKeyUsage', [usage]: true }, ...altNames],
  });
  return { cert: made.cert, key: made.private };
}

describe('mutual TLS on the Kafka listeners (--kafka-tls-client-ca)', () => {
  let dir: string;
  let ca: Pem;
  let server: Pem;
  let client: Pem;
  let stranger: Pem;
  let listener: Server;
  let port: number;
  const refusals: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rs-mtls-'));
    ca = await authority('Replica Studio test CA');
    const other = await authority('Some other CA');
    [server, client, stranger] = await Promise.all([signed(ca, 'localhost', 'serverAuth'), signed(ca, 'alice', 'clientAuth'), signed(other, 'alice', 'clientAuth')]);
    for (const [file, text] of [['ca.pem', ca.cert], ['server.pem', server.cert], ['server.key', server.key]] as const) writeFileSync(join(dir, file), text);
    const security = securityFromEnvironment({ REPLICA_STUDIO_KAFKA_TLS_CERT: join(dir, 'server.pem'), REPLICA_STUDIO_KAFKA_TLS_KEY: join(dir, 'server.key'), REPLICA_STUDIO_KAFKA_TLS_CLIENT_CA: join(dir, 'ca.pem') });
    expect(securityProtocol(security)).toBe('SSL');
    // What the broker's connection sees: the subject of the certificate the client presented.
    listener = createListenerServer(security, (socket) => {
      const peer = (socket as import('node:tls').TLSSocket).getPeerCertificate();
      socket.end(`hello ${peer.subject?.CN ?? '?'}`);
    });
    listener.on('tlsClientError', (e: Error) => refusals.push(e.message));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as AddressInfo).port;
  }, 60_000);
  afterAll(() => {
    listener?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The server's greeting, or the error that ended the connection. */
  function handshake(pem?: Pem): Promise<string> {
    return new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, ca: ca.cert, ...(pem ? { cert: pem.cert, key: pem.key } : {}) });
      let text = '';
      let error = '';
      socket.on('data', (d: Buffer) => (text += d.toString()));
      socket.once('error', (e: NodeJS.ErrnoException) => (error = `error: ${e.code ?? ''} ${e.message}`));
      socket.on('close', () => resolve(error || text));
    });
  }

  it('lets in a client whose certificate the client CA signed, and the connection knows who it is', async () => {
    expect(await handshake(client)).toBe('hello alice');
  });

  it('refuses a client without a certificate, and one whose certificate another CA signed', async () => {
    // The server refuses both during the handshake (a 'tlsClientError'); neither client is greeted.
    expect(await handshake()).toMatch(/^error: .*certificate/i);
    await expect.poll(() => refusals.length).toBe(1);
    expect(refusals[0]).toMatch(/peer did not return a certificate/i);
    expect(await handshake(stranger)).not.toMatch(/hello/);
    await expect.poll(() => refusals.length).toBe(2);
    // (Node reports this one as the socket hanging up: OpenSSL fails the verify and drops the connection.)
  });

  it('is asked for with a TLS certificate of the listeners, and a file that is not a certificate is refused by name', () => {
    expect(parseServeArgs(['--kafka-tls-self-signed', '--kafka-tls-client-ca', 'clients.pem']).kafkaSecurity).toMatchObject({ tlsSelfSigned: true, tlsClientCa: expect.stringMatching(/clients\.pem$/) });
    expect(() => parseServeArgs(['--kafka-tls-client-ca', 'clients.pem'])).toThrow(/--kafka-tls-client-ca .*TLS/);
    writeFileSync(join(dir, 'junk.pem'), 'not a certificate');
    expect(() => readClientCa(join(dir, 'junk.pem'))).toThrow(/junk\.pem: not a readable PEM certificate/);
    expect(() => securityFromEnvironment({ REPLICA_STUDIO_KAFKA_TLS_CLIENT_CA: join(dir, 'ca.pem') })).toThrow(/needs TLS/);
  });
});
