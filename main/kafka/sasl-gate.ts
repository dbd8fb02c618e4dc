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
 * - PLAIN: one SaslAuthenticate with `authzid NUL username NUL password`, checked against the
 *   user's stored SCRAM credential (SCRAM-SHA-512's, else SCRAM-SHA-256's): the password salted
 *   as the credential says must give its StoredKey.
 *   SCRAM-SHA-256 (RFC 7677) and SCRAM-SHA-512 (the same exchange over SHA-512, 64-byte keys, as
 *   Kafka's ScramMechanism defines it), RFC 5802: client-first `n,,n=user,r=cnonce` →
 *   `r=nonce,s=salt,i=iterations` (the credential's) ; client-final `c=biws,r=nonce,p=proof` →
 *   `v=serverSignature`. The proof is checked against the credential's StoredKey, the signature
 *   made with its ServerKey, as Kafka's ScramSaslServer does. User names in SCRAM messages escape
 *   `,` and `=` as `=2C` and `=3D`.
 * - Credentials come from the cluster's metadata (each broker's own copy, read at every login),
 *   so a user created through AlterUserScramCredentials logs in at once and a deleted one cannot;
 *   a config with `users` (passwords) derives them instead, for a gate without a cluster.
 * - Success makes the connection's principal `User:<name>`.
 * - A failed authentication answers SASL_AUTHENTICATION_FAILED (58) with Kafka's message
 *   ("Authentication failed: Invalid username or password"); the connection then accepts nothing
 *   more (the next frame closes it), so a client sees the error, then a closed socket.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ScramCredential, ScramMechanism } from '../../app/core/security/types.js';
import { type Dispatcher, type DispatchOutcome, encodeResponse } from '../../app/protocol/dispatcher.js';
import { type ApiHandler, type ClientSession } from '../../app/protocol/api-handler.js';
import { DEFAULT_SCRAM_ITERATIONS, hashOf, passwordMatches, saltedPassword, scramKeys } from '../../app/service/scram-keys.js';
import { apiDefinition, ApiKey, readRequestHeader, requestHeaderVersion } from '../../app/protocol/generated/index.js';
import { Reader } from '../../app/protocol/runtime/index.js';

export type SaslMechanism = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
export const SASL_MECHANISMS: readonly SaslMechanism[] = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];

/** Who may connect: the enabled mechanisms and where each user's credential is. */
export interface SaslServerConfig {
  mechanisms: SaslMechanism[];
  /** A user's stored credential for a SCRAM mechanism (the cluster's metadata). */
  credential?: (name: string, mechanism: ScramMechanism) => ScramCredential | undefined;
  /** Passwords instead of stored credentials (each derived once, with `random.salt()` and 4096 iterations). */
  users?: Record<string, string>;
  /** The server's nonce suffix and a salt; random unless a test pins them to a published vector. */
  random?: { nonce(): string; salt(): Buffer };
}

const UNSUPPORTED_SASL_MECHANISM = 33;
const ILLEGAL_SASL_STATE = 34;
const SASL_AUTHENTICATION_FAILED = 58;
const FAILED = 'Authentication failed: Invalid username or password';

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
  /** Undefined for an unknown user: the exchange goes on with a made-up salt and fails at the end, as for a wrong password. */
  credential: ScramCredential | undefined;
}

const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
const hmac = (hash: string, key: Uint8Array, data: string): Buffer => createHmac(hash, key).update(data).digest();
const digest = (hash: string, data: Buffer): Buffer => createHash(hash).update(data).digest();
const RANDOM = { nonce: () => randomBytes(18).toString('base64'), salt: () => randomBytes(16) };

/** SCRAM's saslname: `=2C` is `,` and `=3D` is `=` (RFC 5802 §5.1). */
const unescapeName = (name: string): string => name.replace(/=2C/g, ',').replace(/=3D/g, '=');

/** Credentials derived from passwords, each once per gate (a gate without the cluster's metadata). */
function passwordCredentials(users: Record<string, string>, salt: () => Buffer): (name: string, mechanism: ScramMechanism) => ScramCredential | undefined {
  const made = new Map<string, ScramCredential>();
  return (name, mechanism) => {
    const password = Object.hasOwn(users, name) ? users[name] : undefined;
    if (password === undefined) return undefined;
    const key = `${mechanism}\u0000${name}`;
    let c = made.get(key);
    if (!c) {
      const s = salt();
      made.set(key, (c = { name, mechanism, iterations: DEFAULT_SCRAM_ITERATIONS, ...scramKeys(mechanism, s, saltedPassword(mechanism, password, s, DEFAULT_SCRAM_ITERATIONS)) }));
    }
    return c;
  };
}

/**
 * One connection's gate over the broker's dispatcher. `session` is the connection's: its
 * principal becomes `User:<name>` once authenticated, and every request passes it on.
 */
export function saslGate(
  inner: Pick<Dispatcher, 'dispatch'>,
  config: SaslServerConfig,
  session: ClientSession = { principal: 'User:ANONYMOUS', clientHost: '127.0.0.1' },
): Pick<Dispatcher, 'dispatch'> {
  let state: State = { kind: 'handshake' };
  const random = config.random ?? RANDOM;
  const fromPasswords = config.users ? passwordCredentials(config.users, () => random.salt()) : undefined;
  const credentialOf = (name: string, mechanism: ScramMechanism): ScramCredential | undefined => config.credential?.(name, mechanism) ?? fromPasswords?.(name, mechanism);
  const succeeded = (user: string): void => {
    state = { kind: 'done' };
    session.principal = `User:${user}`;
  };

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
      if (user === undefined || password === undefined || user === '') return fail();
      const credential = credentialOf(user, 'SCRAM-SHA-512') ?? credentialOf(user, 'SCRAM-SHA-256');
      if (!credential || !passwordMatches(credential, password)) return fail();
      succeeded(user);
      return auth(version, correlationId, 0, null);
    }
    const scramMechanism = mechanism as ScramMechanism;
    const s = state.kind === 'authenticate' ? state : null;
    if (!s?.scram) {
      // client-first: gs2 header "n,," then n=user,r=nonce
      const message = text(bytes);
      const bare = message.startsWith('n,,') ? message.slice(3) : null;
      const attrs = bare ? attributes(bare) : null;
      const name = attrs?.get('n');
      const cnonce = attrs?.get('r');
      if (!bare || !name || !cnonce) return fail();
      const user = unescapeName(name);
      const credential = credentialOf(user, scramMechanism);
      const salt = credential ? credential.salt : random.salt().toString('base64');
      const nonce = cnonce + random.nonce();
      const serverFirst = `r=${nonce},s=${salt},i=${credential?.iterations ?? DEFAULT_SCRAM_ITERATIONS}`;
      state = { kind: 'authenticate', mechanism, scram: { user, nonce, clientFirstBare: bare, serverFirst, credential } };
      return auth(version, correlationId, 0, null, Buffer.from(serverFirst));
    }
    const { user, nonce, clientFirstBare, serverFirst, credential } = s.scram;
    const final = text(bytes);
    const attrs = attributes(final);
    const proof = attrs.get('p');
    if (attrs.get('r') !== nonce || !proof || !credential) return fail();
    const hash = hashOf(scramMechanism);
    const withoutProof = final.slice(0, final.lastIndexOf(',p='));
    const storedKey = Buffer.from(credential.storedKey, 'base64');
    const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
    const signature = hmac(hash, storedKey, authMessage);
    const given = Buffer.from(proof, 'base64');
    if (given.length !== signature.length) return fail();
    const recovered = Buffer.from(given.map((b, i) => b ^ signature[i]!));
    if (!timingSafeEqual(digest(hash, recovered), storedKey)) return fail();
    succeeded(user);
    const serverSignature = hmac(hash, Buffer.from(credential.serverKey, 'base64'), authMessage).toString('base64');
    return auth(version, correlationId, 0, null, Buffer.from(`v=${serverSignature}`));
  }

  return {
    async dispatch(frame: Uint8Array): Promise<DispatchOutcome> {
      if (state.kind === 'done') return inner.dispatch(frame, session);
      if (state.kind === 'failed') return { kind: 'close', reason: 'SASL authentication failed' };
      if (frame.length < 8) return { kind: 'close', reason: 'a frame too short for a request header' };
      const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
      const apiKey = view.getInt16(0);
      const version = view.getInt16(2);
      const correlationId = view.getInt32(4);
      if (apiKey === ApiKey.ApiVersions) return inner.dispatch(frame, session);
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
