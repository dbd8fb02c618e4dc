/**
 * The SASL gate in Kafka's bytes: what passes before authentication, the handshake's answers, a
 * PLAIN exchange, and a connection that failed or skipped authentication being closed.
 */
import { describe, expect, it } from 'vitest';
import type { DispatchOutcome } from '../../app/protocol/dispatcher.js';
import { ApiKey } from '../../app/protocol/generated/index.js';
import { readResponse, requestFrame } from '../../app/protocol/test-support/frames.js';
import { saslGate } from './sasl-gate.js';

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
});
