/**
 * The local cluster's Schema Registry: Confluent's REST API on 127.0.0.1 (or the address the Kafka
 * listeners bind, `npm run serve -- --bind`), for clients that know nothing of the console's
 * token — the same footing as the Kafka listeners. No auth by default;
 * HTTP basic auth when the cluster's listeners have SASL users (the same users and passwords,
 * so a serializer's `basic.auth.user.info` is a Kafka user's). Its state lives in the cluster's
 * `_schemas` topic (schemas-topic.ts), read and written through the contract.
 *
 * Answers are `application/vnd.schemaregistry.v1+json`; errors `{"error_code", "message"}` with
 * Confluent's status and code (app/schemas/registry-errors.ts). Request bodies are JSON (any of
 * the content types Confluent's clients send) up to 16 MiB.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { isIPv6, type AddressInfo } from 'node:net';
import type { EngineService } from '../../app/api/service.js';
import { SchemaRegistry } from '../../app/schemas/registry.js';
import { RegistryError, badRequest, storeError, unauthorized } from '../../app/schemas/registry-errors.js';
import { route } from './registry-routes.js';
import { schemasTopic, SchemasTopicError } from '../../app/schemas/schemas-topic.js';

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';

export interface SchemaRegistryOptions {
  /** The cluster (its `_schemas` topic is read and written through `call`). */
  service: Pick<EngineService, 'call'>;
  /** 0: a free port. */
  port: number;
  /** The address to listen on (the Kafka listeners' `--bind`); 127.0.0.1 when absent. */
  host?: string;
  /** The host name `url` gives clients (the brokers' advertised host); else the address listened on, 127.0.0.1 for a wildcard. */
  advertisedHost?: string;
  /** When `port` is taken, listen on a free one instead (the desktop app's 8081). */
  fallbackToFreePort?: boolean;
  /** Basic auth with these users (the listeners' SASL users); absent: no auth. */
  users?: Readonly<Record<string, string>>;
  logger?: { error(message: string, error: unknown): void };
}

export interface SchemaRegistryServer {
  readonly url: string;
  readonly port: number;
  readonly registry: SchemaRegistry;
  /** Forget what was read: the service now reaches another cluster (the desktop app switched). */
  reset(): void;
  close(): Promise<void>;
}

export async function startSchemaRegistry(options: SchemaRegistryOptions): Promise<SchemaRegistryServer> {
  let registry = new SchemaRegistry(schemasTopic(options.service));
  const logger = options.logger ?? { error: (m: string, e: unknown) => console.error(m, e) };
  const server = createServer((req, res) => {
    void handle(registry, options.users, req, res).catch((e: unknown) => {
      logger.error('Schema Registry: unexpected failure', e);
      if (!res.headersSent) send(res, 500, { error_code: 50001, message: 'Internal error' });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  const host = options.host ?? '127.0.0.1';
  try {
    await listen(server, options.port, host);
  } catch (e) {
    if (!options.fallbackToFreePort || (e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    await listen(server, 0, host);
  }
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${urlHost(options.advertisedHost ?? (host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host))}:${port}`,
    port,
    get registry() {
      return registry;
    },
    reset() {
      registry = new SchemaRegistry(schemasTopic(options.service));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** An IPv6 address in a URL is bracketed. */
function urlHost(host: string): string {
  return isIPv6(host) ? `[${host}]` : host;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function handle(registry: SchemaRegistry, users: Readonly<Record<string, string>> | undefined, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    if (users && !authorized(users, req.headers.authorization)) {
      res.setHeader('WWW-Authenticate', 'Basic realm="SchemaRegistry"');
      throw unauthorized();
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const segments = url.pathname.split('/').filter((s) => s !== '').map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        throw badRequest(`Bad path segment ${s}`);
      }
    });
    const run = route({ method: req.method ?? 'GET', segments, query: url.searchParams, body: await readBody(req) });
    send(res, 200, await run(registry));
  } catch (e) {
    if (e instanceof RegistryError) return send(res, e.status, { error_code: e.code, message: e.message });
    if (e instanceof SchemasTopicError) {
      const timeout = e.error.code === 'REQUEST_TIMED_OUT' || e.error.code === 'NOT_ENOUGH_REPLICAS';
      const err = storeError(`Error while reading or writing the _schemas topic: ${e.message}`);
      return send(res, 500, { error_code: timeout ? 50002 : err.code, message: err.message });
    }
    throw e;
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'Content-Type': CONTENT_TYPE, 'Content-Length': text.length, 'Cache-Control': 'no-store' });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new RegistryError(413, 413, `Request body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new RegistryError(400, 50005, 'Unrecognized JSON body');
  }
}

/** `Authorization: Basic base64(user:password)` naming one of `users` with its password. */
export function authorized(users: Readonly<Record<string, string>>, header: string | undefined): boolean {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m) return false;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const user = decoded.slice(0, colon);
  if (!Object.hasOwn(users, user)) return false;
  const given = Buffer.from(decoded.slice(colon + 1));
  const expected = Buffer.from(users[user]!);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
