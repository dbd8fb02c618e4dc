/**
 * The self-signed certificate of `--kafka-tls-self-signed`: what a client does with it. A TLS
 * server on 127.0.0.1 with server.pem/server.key is trusted by a client given ca.pem (for
 * 127.0.0.1 and localhost), refused without it and for another name; the key is 0600; the files
 * are kept across restarts and made anew when they no longer hold together.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer, type Server } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../cli/cli.js';
import { ensureSelfSignedTls, type SelfSignedTls } from './self-signed-tls.js';

const dirs: string[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'rs-self-signed-'));
  dirs.push(d);
  return d;
}

async function listen(tls: SelfSignedTls): Promise<number> {
  const server = createServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, (socket) => socket.end('hello'));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** What a client trusting `ca` (or the system's CAs) sees: the server's greeting, or the TLS error. */
function handshake(port: number, options: { ca?: Buffer; servername?: string }): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, ...options }, () => socket.once('data', (d: Buffer) => (resolve(d.toString()), socket.destroy())));
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

describe('the self-signed TLS certificate of the Kafka listeners', () => {
  it('is trusted through ca.pem for 127.0.0.1 and localhost, and refused without it or for another name', async () => {
    const tls = await ensureSelfSignedTls(dataDir());
    expect(tls.created).toBe(true);
    expect(statSync(tls.keyFile).mode & 0o777).toBe(0o600);
    const port = await listen(tls);
    const ca = readFileSync(tls.caFile);
    expect(await handshake(port, { ca })).toBe('hello');
    expect(await handshake(port, { ca, servername: 'localhost' })).toBe('hello');
    expect(await handshake(port, {})).toMatch(/SELF_SIGNED|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY/);
    expect(await handshake(port, { ca, servername: 'kafka.example.com' })).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    // The CA's private key is not kept: only the three files are there.
    expect(readFileSync(tls.caFile, 'utf8')).not.toMatch(/PRIVATE KEY/);
  }, 30_000);

  it('is kept across restarts, and made anew (a new CA) when the files no longer hold together', async () => {
    const dir = dataDir();
    const first = await ensureSelfSignedTls(dir);
    const again = await ensureSelfSignedTls(dir);
    expect(again.created).toBe(false);
    expect(readFileSync(again.caFile, 'utf8')).toBe(readFileSync(first.caFile, 'utf8'));
    // A key that is not the certificate's: remade, and the new CA is the one that works.
    const oldCa = readFileSync(first.caFile);
    writeFileSync(first.keyFile, randomBytes(64).toString('base64'));
    const remade = await ensureSelfSignedTls(dir);
    expect(remade.created).toBe(true);
    expect(statSync(remade.keyFile).mode & 0o777).toBe(0o600);
    const port = await listen(remade);
    expect(await handshake(port, { ca: readFileSync(remade.caFile) })).toBe('hello');
    expect(await handshake(port, { ca: oldCa })).not.toBe('hello');
  }, 30_000);

  it('is made anew when the certificate has a day or less to run', async () => {
    const dir = dataDir();
    await ensureSelfSignedTls(dir);
    const later = new Date(Date.now() + 800 * 86_400_000);
    expect((await ensureSelfSignedTls(dir, later)).created).toBe(true);
  }, 30_000);
});

describe('npm run serve -- --kafka-tls-self-signed', () => {
  it('asks for the certificate to be made, and is refused beside a certificate of one’s own', () => {
    expect(parseServeArgs(['--kafka-tls-self-signed']).kafkaSecurity).toEqual({ tlsSelfSigned: true });
    expect(parseServeArgs([]).kafkaSecurity).toBeUndefined();
    expect(() => parseServeArgs(['--kafka-tls-self-signed', '--kafka-tls-cert', 'c.pem', '--kafka-tls-key', 'k.pem'])).toThrow(/not both/);
  });
});
