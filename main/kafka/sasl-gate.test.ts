/**
 * The SASL gate in Kafka's bytes: what passes before authentication, the handshake's answers, a
 * PLAIN exchange, SCRAM-SHA-256 on RFC 7677's published exchange, SCRAM-SHA-512 against a client
 * computed here from RFC 5802's definitions with node:crypto, and a connection that failed or
 * skipped authentication being closed.
 */
import { createHash, createHmac, pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DispatchOutcome } from '../../app/protocol/dispatcher.js';
import { ApiKey } from '../../app/protocol/generated/index.js';
import { readResponse, requestFrame } from '../../app/protocol/test-support/frames.js';
import { saslGate, type SaslMechanism } from './sasl-gate.js';

const inner = { dispatch: async (): Promise<DispatchOutcome> => ({ kind: 'none' }) };
const body = (f: Uint8Array): Uint8Array => f.subarray(4);
const config = { mechanisms: ['PLAIN' as const], users: { alice: 'secret' } };

async function answer<K extends typeof ApiKey.SaslHandshake | typeof ApiKey.SaslAuthenticate>(gate: ReturnType<typeof saslGate>, key: K, version: number, req: never) {
  const out = await gate.dispatch(body(requestFrame(key, version, req)));
  if (out.kind !== 'respond') throw new Error(JSON.stringify(out));
  return readResponse(key, version, out.parts).body;
}

describe('the SASL gate', () => {
  it('passes ApiVersions, closes the connection on any other request before authentication', async () => {
    const gate = saslGate(inner, config);
    expect(await gate.dispatch(body(requestFrame(ApiKey.ApiVersions, 2, {})))).toEqual({ kind: 'none' });
    const metadata = await gate.dispatch(body(requestFrame(ApiKey.Metadata, 8, { topics: null })));
    expect(metadata.kind).toBe('close');
  });

  it('answers UNSUPPORTED_SASL_MECHANISM with the enabled list, then authenticates PLAIN and lets requests through', async () => {
    const gate = saslGate(inner, config);
    expect(await answer(gate, ApiKey.SaslHandshake, 1, { mechanism: 'SCRAM-SHA-512' } as never)).toEqual({ errorCode: 33, mechanisms: ['PLAIN'] });
    expect(await answer(gate, ApiKey.SaslHandshake, 1, { mechanism: 'PLAIN' } as never)).toEqual({ errorCode: 0, mechanisms: ['PLAIN'] });
    const ok = await answer(gate, ApiKey.SaslAuthenticate, 1, { authBytes: Buffer.from('\u0000alice\u0000secret') } as never);
    expect(ok).toMatchObject({ errorCode: 0, errorMessage: null });
    expect(await gate.dispatch(body(requestFrame(ApiKey.Metadata, 8, { topics: null })))).toEqual({ kind: 'none' });
  });

  it('a wrong password is SASL_AUTHENTICATION_FAILED with Kafka’s message, and the next frame closes the connection', async () => {
    const gate = saslGate(inner, config);
    await answer(gate, ApiKey.SaslHandshake, 1, { mechanism: 'PLAIN' } as never);
    const bad = await answer(gate, ApiKey.SaslAuthenticate, 0, { authBytes: Buffer.from('\u0000alice\u0000nope') } as never);
    expect(bad).toMatchObject({ errorCode: 58, errorMessage: 'Authentication failed: Invalid username or password' });
    expect((await gate.dispatch(body(requestFrame(ApiKey.ApiVersions, 2, {})))).kind).toBe('close');
  });

  const authBytes = (b: unknown): string => Buffer.from((b as { authBytes: Uint8Array }).authBytes).toString('utf8');
  const authenticate = (gate: ReturnType<typeof saslGate>, message: string) => answer(gate, ApiKey.SaslAuthenticate, 2, { authBytes: Buffer.from(message) } as never);

  it('SCRAM-SHA-256 answers RFC 7677’s example exchange byte for byte (user "user", password "pencil")', async () => {
    // RFC 7677 §3: the server's nonce suffix and the salt pinned to the published ones.
    const gate = saslGate(inner, {
      mechanisms: ['SCRAM-SHA-256'],
      users: { user: 'pencil' },
      random: { nonce: () => '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0', salt: () => Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64') },
    });
    await answer(gate, ApiKey.SaslHandshake, 1, { mechanism: 'SCRAM-SHA-256' } as never);
    const first = await authenticate(gate, 'n,,n=user,r=rOprNGfwEbeRWgbNEkqO');
    expect(authBytes(first)).toBe('r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096');
    const final = await authenticate(gate, 'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=');
    expect(final).toMatchObject({ errorCode: 0, errorMessage: null });
    expect(authBytes(final)).toBe('v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
  });

  /** A SCRAM client written from RFC 5802 §3: the proof it sends and the server signature it expects. */
  function scramClient(hash: 'sha256' | 'sha512', password: string, clientFirstBare: string, serverFirst: string) {
    const attrs = Object.fromEntries(serverFirst.split(',').map((a) => [a.slice(0, 1), a.slice(2)]));
    const salted = pbkdf2Sync(password, Buffer.from(attrs['s']!, 'base64'), Number(attrs['i']), hash === 'sha256' ? 32 : 64, hash);
    const clientKey = createHmac(hash, salted).update('Client Key').digest();
    const storedKey = createHash(hash).update(clientKey).digest();
    const withoutProof = `c=biws,r=${attrs['r']}`;
    const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
    const signature = createHmac(hash, storedKey).update(authMessage).digest();
    const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]!)).toString('base64');
    const serverKey = createHmac(hash, salted).update('Server Key').digest();
    return { final: `${withoutProof},p=${proof}`, serverFinal: `v=${createHmac(hash, serverKey).update(authMessage).digest('base64')}` };
  }

  async function scram(mechanism: SaslMechanism, hash: 'sha256' | 'sha512', password: string) {
    const gate = saslGate(inner, { mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'], users: { alice: 'alice-secret' } });
    expect(await answer(gate, ApiKey.SaslHandshake, 1, { mechanism } as never)).toEqual({ errorCode: 0, mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] });
    const bare = 'n=alice,r=fyko+d2lbbFgONRv9qkxdawL';
    const serverFirst = authBytes(await authenticate(gate, `n,,${bare}`));
    expect(serverFirst).toMatch(/^r=fyko\+d2lbbFgONRv9qkxdawL.+,s=.+,i=4096$/);
    const client = scramClient(hash, password, bare, serverFirst);
    return { gate, client, final: await authenticate(gate, client.final) };
  }

  it('SCRAM-SHA-512: a client deriving 64-byte keys with SHA-512 authenticates and gets the server signature it computes', async () => {
    const { gate, client, final } = await scram('SCRAM-SHA-512', 'sha512', 'alice-secret');
    expect(final).toMatchObject({ errorCode: 0, errorMessage: null });
    expect(authBytes(final)).toBe(client.serverFinal);
    expect(Buffer.from(client.serverFinal.slice(2), 'base64')).toHaveLength(64);
    expect(await gate.dispatch(body(requestFrame(ApiKey.Metadata, 8, { topics: null })))).toEqual({ kind: 'none' });
  });

  it('SCRAM-SHA-512 refuses a wrong password and a SHA-256 proof (the mechanisms do not share keys); SCRAM-SHA-256 still takes its own', async () => {
    for (const [hash, password] of [['sha512', 'wrong'], ['sha256', 'alice-secret']] as const) {
      const { gate, final } = await scram('SCRAM-SHA-512', hash, password);
      expect(final).toMatchObject({ errorCode: 58, errorMessage: 'Authentication failed: Invalid username or password' });
      expect((await gate.dispatch(body(requestFrame(ApiKey.Metadata, 8, { topics: null })))).kind).toBe('close');
    }
    const { final, client } = await scram('SCRAM-SHA-256', 'sha256', 'alice-secret');
    expect(authBytes(final)).toBe(client.serverFinal);
  });
});
