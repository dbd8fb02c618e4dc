/**
 * SASL on a Kafka listener (KIP-43, KIP-152), one gate per connection in front of the broker's
 * dispatcher. The grammar of a connection, as Kafka's SaslServerAuthenticator enforces it:
 *
 *   ApiVersions*  SaslHandshake(v1, mechanism)  SaslAuthenticate+  <any request>*
 *
 * - ApiVersions passes through (it lists SaslHandshake 0–1 and SaslAuthenticate 0–2 here);
 *   anything else before authentication closes the connection (Kafka: "unexpected request").
 * - SaslHandshake names a mechanism; one not enabled is UNSUPPORTED_SASL_MECHANISM (33) with the
 *   enabled list. v0 (raw tokens without SaslAuthenticate framing) is not served: closed.
 * - PLAIN: one SaslAuthenticate with `authzid NUL username NUL password`.
 *   SCRAM-SHA-256 (RFC 7677) and SCRAM-SHA-512 (the same exchange over SHA-512, 64-byte keys, as
 *   Kafka's ScramMechanism defines it), RFC 5802: client-first `n,,n=user,r=cnonce` →
 *   `r=nonce,s=salt,i=4096`; client-final `c=biws,r=nonce,p=proof` → `v=serverSignature`. The proof
 *   is checked against the StoredKey derived from the configured password (PBKDF2-HMAC-<hash>).
 *   Every user of the users file may use every mechanism the file enables: the credentials of
 *   both SCRAM mechanisms are derived from the one password (Kafka stores them per mechanism).
 * - A failed authentication answers SASL_AUTHENTICATION_FAILED (58) with Kafka's message
 *   ("Authentication failed: Invalid username or password"); the connection then accepts nothing
 *   more (the next frame closes it), so a client sees the error, then a closed socket.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { type Dispatcher, type DispatchOutcome, encodeResponse } from '../../app/protocol/dispatcher.js';
import { type ApiHandler } from '../../app/protocol/api-handler.js';
import { apiDefinition, ApiKey, readRequestHeader, requestHeaderVersion } from '../../app/protocol/generated/index.js';
import { Reader } from '../../app/protocol/runtime/index.js';

export type SaslMechanism = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
export const SASL_MECHANISMS: readonly SaslMechanism[] = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];

/** The hash of each SCRAM mechanism and its key length (the hash's output size). */
const SCRAM: Record<Exclude<SaslMechanism, 'PLAIN'>, { hash: 'sha256' | 'sha512'; keyLength: number }> = {
  'SCRAM-SHA-256': { hash: 'sha256', keyLength: 32 },
  'SCRAM-SHA-512': { hash: 'sha512', keyLength: 64 },
};

/** Who may connect: the enabled mechanisms and each user's password. */
export interface SaslServerConfig {
  mechanisms: SaslMechanism[];
  users: Record<string, string>;
  /** The server's nonce suffix and a user's salt; random unless a test pins them to a published vector. */
  random?: { nonce(): string; salt(): Buffer };
}

const UNSUPPORTED_SASL_MECHANISM = 33;
const ILLEGAL_SASL_STATE = 34;
const SASL_AUTHENTICATION_FAILED = 58;
const FAILED = 'Authentication failed: Invalid username or password';
const ITERATIONS = 4096;

/** ApiVersions must list the SASL APIs on this listener: handlers the gate answers before they are reached. */
export const SASL_ADVERTISED_HANDLERS: readonly ApiHandler[] = [
  { apiKey: ApiKey.SaslHandshake, advertised: [0, 1], handle: () => ({ errorCode: ILLEGAL_SASL_STATE, mechanisms: [] }), errorResponse: (_r: unknown, code: number) => ({ errorCode: code, mechanisms: [] }) },
  {
    apiKey: ApiKey.SaslAuthenticate,
    advertised: [0, 2],
    handle: () => ({ errorCode: ILLEGAL_SASL_STATE, errorMessage: 'Already authenticated', authBytes: new Uint8Array(), sessionLifetimeMs: 0n }),
    errorResponse: (_r: unknown, code: number) => ({ errorCode: code, errorMessage: null, authBytes: new Uint8Array(), sessionLifetimeMs: 0n }),
  },
] as unknown as readonly ApiHandler[];

type State = { kind: 'handshake' } | { kind: 'authenticate'; mechanism: SaslMechanism; scram?: ScramExchange } | { kind: 'done' } | { kind: 'failed' };

interface ScramExchange {
  user: string;
  nonce: string;
  clientFirstBare: string;
  serverFirst: string;
}

const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
const hmac = (hash: string, key: Buffer, data: string): Buffer => createHmac(hash, key).update(data).digest();
const digest = (hash: string, data: Buffer): Buffer => createHash(hash).update(data).digest();
const RANDOM = { nonce: () => randomBytes(18).toString('base64'), salt: () => randomBytes(16) };

/** One connection's gate over the broker's dispatcher. */
export function saslGate(inner: Pick<Dispatcher, 'dispatch'>, config: SaslServerConfig): Pick<Dispatcher, 'dispatch'> {
  let state: State = { kind: 'handshake' };
  const salts = new Map<string, Buffer>();
  const random = config.random ?? RANDOM;

  function respond(apiKey: number, version: number, correlationId: number, body: unknown): DispatchOutcome {
    return { kind: 'respond', parts: encodeResponse(apiDefinition(apiKey)!, version, correlationId, body) };
  }
  const auth = (version: number, correlationId: number, errorCode: number, errorMessage: string | null, bytes = new Uint8Array()): DispatchOutcome =>
    respond(ApiKey.SaslAuthenticate, version, correlationId, { errorCode, errorMessage, authBytes: bytes, sessionLifetimeMs: 0n });

  function authenticate(mechanism: SaslMechanism, bytes: Uint8Array, version: number, correlationId: number): DispatchOutcome {
    const fail = (): DispatchOutcome => {
      state = { kind: 'failed' };
      return auth(version, correlationId, SASL_AUTHENTICATION_FAILED, FAILED);
    };
    if (mechanism === 'PLAIN') {
      const [, user, password] = text(bytes).split('\u0000');
      const expected = user === undefined ? undefined : config.users[user];
      if (expected === undefined || password === undefined || !same(password, expected)) return fail();
      state = { kind: 'done' };
      return auth(version, correlationId, 0, null);
    }
    const s = state.kind === 'authenticate' ? state : null;
    if (!s?.scram) {
      // client-first: gs2 header "n,," then n=user,r=nonce
      const message = text(bytes);
      const bare = message.startsWith('n,,') ? message.slice(3) : null;
      const attrs = bare ? attributes(bare) : null;
      const user = attrs?.get('n');
      const cnonce = attrs?.get('r');
      if (!bare || !user || !cnonce) return fail();
      const salt = salts.get(user) ?? random.salt();
      salts.set(user, salt);
      const nonce = cnonce + random.nonce();
      const serverFirst = `r=${nonce},s=${salt.toString('base64')},i=${ITERATIONS}`;
      state = { kind: 'authenticate', mechanism, scram: { user, nonce, clientFirstBare: bare, serverFirst } };
      return auth(version, correlationId, 0, null, Buffer.from(serverFirst));
    }
    const { user, nonce, clientFirstBare, serverFirst } = s.scram;
    const final = text(bytes);
    const attrs = attributes(final);
    const proof = attrs.get('p');
    const password = config.users[user];
    if (attrs.get('r') !== nonce || !proof || password === undefined) return fail();
    const { hash, keyLength } = SCRAM[mechanism];
    const withoutProof = final.slice(0, final.lastIndexOf(',p='));
    const salted = pbkdf2Sync(password, salts.get(user)!, ITERATIONS, keyLength, hash);
    const storedKey = digest(hash, hmac(hash, salted, 'Client Key'));
    const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
    const signature = hmac(hash, storedKey, authMessage);
    const given = Buffer.from(proof, 'base64');
    if (given.length !== signature.length) return fail();
    const recovered = Buffer.from(given.map((b, i) => b ^ signature[i]!));
    if (!timingSafeEqual(digest(hash, recovered), storedKey)) return fail();
    state = { kind: 'done' };
    const serverSignature = hmac(hash, hmac(hash, salted, 'Server Key'), authMessage).toString('base64');
    return auth(version, correlationId, 0, null, Buffer.from(`v=${serverSignature}`));
  }

  return {
    async dispatch(frame: Uint8Array): Promise<DispatchOutcome> {
      if (state.kind === 'done') return inner.dispatch(frame);
      if (state.kind === 'failed') return { kind: 'close', reason: 'SASL authentication failed' };
      if (frame.length < 8) return { kind: 'close', reason: 'a frame too short for a request header' };
      const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
      const apiKey = view.getInt16(0);
      const version = view.getInt16(2);
      const correlationId = view.getInt32(4);
      if (apiKey === ApiKey.ApiVersions) return inner.dispatch(frame);
      const def = apiDefinition(apiKey);
      const expected = state.kind === 'handshake' ? ApiKey.SaslHandshake : ApiKey.SaslAuthenticate;
      if (!def || apiKey !== expected) return { kind: 'close', reason: `unexpected request ${def?.name ?? apiKey} before SASL authentication` };
      if ((apiKey === ApiKey.SaslHandshake && version !== 1) || version < def.lowest || version > def.highest) {
        return { kind: 'close', reason: `${def.name} v${version} is not served (SaslHandshake v1 with SaslAuthenticate only)` };
      }
      let body: unknown;
      try {
        const r = new Reader(frame);
        readRequestHeader(r, requestHeaderVersion(def, version));
        body = def.readRequest(r, version);
      } catch (e) {
        return { kind: 'close', reason: `malformed ${def.name}: ${(e as Error).message}` };
      }
      if (state.kind === 'handshake') {
        const mechanism = (body as { mechanism: string }).mechanism;
        if (!(config.mechanisms as string[]).includes(mechanism)) {
          return respond(apiKey, version, correlationId, { errorCode: UNSUPPORTED_SASL_MECHANISM, mechanisms: config.mechanisms });
        }
        state = { kind: 'authenticate', mechanism: mechanism as SaslMechanism };
        return respond(apiKey, version, correlationId, { errorCode: 0, mechanisms: config.mechanisms });
      }
      return authenticate(state.mechanism, (body as { authBytes: Uint8Array }).authBytes, version, correlationId);
    },
  };
}

/** `k=v,k=v` attributes of a SCRAM message. */
function attributes(message: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of message.split(',')) {
    const i = part.indexOf('=');
    if (i > 0) out.set(part.slice(0, i), part.slice(i + 1));
  }
  return out;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
