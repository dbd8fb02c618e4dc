/**
 * An external cluster's Schema Registry by URL: Confluent's REST API over fetch, with basic auth
 * or a bearer token. A registry error answers INVALID_REQUEST with Confluent's code in
 * `details.registryErrorCode` (as the local registry's do); a registry that cannot be reached is
 * NETWORK_EXCEPTION naming the URL; refused credentials (401/403) say so.
 */
import { KafkaError } from '../../api/errors.js';

export interface ExternalRegistryConfig {
  url: string;
  username?: string;
  password?: string;
  token?: string;
}

const MEDIA = 'application/vnd.schemaregistry.v1+json';
const TIMEOUT_MS = 15_000;

export class RegistryClient {
  private readonly base: string;
  private readonly auth: string | null;

  constructor(readonly config: ExternalRegistryConfig) {
    this.base = config.url.replace(/\/+$/, '');
    this.auth =
      config.username !== undefined
        ? `Basic ${base64(`${config.username}:${config.password ?? ''}`)}`
        : config.token !== undefined
          ? `Bearer ${config.token}`
          : null;
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, {
        method,
        headers: { Accept: MEDIA, ...(body !== undefined ? { 'Content-Type': MEDIA } : {}), ...(this.auth ? { Authorization: this.auth } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (e) {
      const cause = (e as { cause?: { message?: string } }).cause?.message ?? (e as Error).message;
      throw new KafkaError('NETWORK_EXCEPTION', `Could not reach the Schema Registry at ${this.base}: ${cause}`, { url: this.base });
    }
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (res.ok) return json as T;
    if (res.status === 401 || res.status === 403) {
      throw new KafkaError('INVALID_REQUEST', `The Schema Registry at ${this.base} refused the credentials (HTTP ${res.status}): check the connection's registry username and password or token.`, { status: res.status, url: this.base });
    }
    const err = json as { error_code?: number; message?: string } | null;
    const code = typeof err?.error_code === 'number' ? err.error_code : res.status;
    throw new KafkaError('INVALID_REQUEST', `${err?.message ?? `HTTP ${res.status}`} (Schema Registry error ${code})`, { registryErrorCode: code, status: res.status, url: this.base });
  }
}

/** The registry code of a failure from RegistryClient, or null. */
export function registryCode(e: unknown): number | null {
  const code = e instanceof KafkaError ? (e.details as { registryErrorCode?: unknown } | undefined)?.registryErrorCode : undefined;
  return typeof code === 'number' ? code : null;
}

function base64(text: string): string {
  let binary = '';
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary);
}
