/**
 * Confluent's Schema Registry REST resources mapped onto `SchemaRegistry`: paths, query
 * parameters and answers as Confluent's registry gives them, so its serializers, the two npm
 * clients and curl recipes work unchanged. Errors are `RegistryError`s, answered by the server
 * as `{"error_code", "message"}` with their status.
 */
import type { SchemaRegistry, SchemaInput } from '../../app/schemas/registry.js';
import * as E from '../../app/schemas/registry-errors.js';
import { SCHEMA_TYPES } from '../../app/schemas/schema-types.js';

export interface RouteRequest {
  method: string;
  /** Path segments, decoded. */
  segments: string[];
  query: URLSearchParams;
  /** The parsed JSON body (undefined without one). */
  body: unknown;
}

type Handler = (r: SchemaRegistry, req: RouteRequest, p: string[]) => Promise<unknown>;

const flag = (q: URLSearchParams, name: string): boolean => q.get(name)?.toLowerCase() === 'true';

function id(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 0x7fffffff) throw E.schemaNotFound();
  return n;
}

function schemaBody(body: unknown): SchemaInput {
  if (typeof body !== 'object' || body === null) throw E.badRequest('The body is a JSON object with a "schema"');
  const b = body as Record<string, unknown>;
  if (typeof b['schema'] !== 'string') throw E.invalidSchema('Empty schema');
  if (b['references'] !== undefined && !Array.isArray(b['references'])) throw E.invalidSchema('"references" is a list of {name, subject, version}');
  return {
    schema: b['schema'],
    ...(typeof b['schemaType'] === 'string' ? { schemaType: b['schemaType'] } : {}),
    ...(Array.isArray(b['references']) ? { references: b['references'] as SchemaInput['references'] } : {}),
  };
}

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

async function compatibility(r: SchemaRegistry, req: RouteRequest, subject: string, version?: string) {
  const problems = await r.check(subject, schemaBody(req.body), version).catch((e: unknown) => {
    // A subject without versions: anything is compatible with nothing (Confluent says so too).
    if (e instanceof E.RegistryError && e.code === 40401 && (version === undefined || version === 'latest')) return [];
    throw e;
  });
  return { is_compatible: problems.length === 0, ...(flag(req.query, 'verbose') ? { messages: problems } : {}) };
}

/** [method, path pattern ('*' is one segment), handler]; the first match answers. */
const ROUTES: [string, string, Handler][] = [
  ['GET', '', async () => ({})],
  ['GET', 'schemas/types', async () => [...SCHEMA_TYPES]],
  ['GET', 'schemas/ids/*', (r, q, [i]) => r.schemaById(id(i!), q.query.get('subject') ?? undefined, q.query.get('format') ?? undefined)],
  ['GET', 'schemas/ids/*/schema', async (r, q, [i]) => (await r.schemaById(id(i!), q.query.get('subject') ?? undefined)).schema],
  ['GET', 'schemas/ids/*/subjects', async (r, _q, [i]) => [...new Set((await r.idUses(id(i!))).map((u) => u.subject))]],
  ['GET', 'schemas/ids/*/versions', (r, _q, [i]) => r.idUses(id(i!))],
  ['GET', 'subjects', (r, q) => r.subjects(flag(q.query, 'deleted'), q.query.get('subjectPrefix') ?? '')],
  ['GET', 'subjects/*/versions', (r, q, [s]) => r.versions(s!, flag(q.query, 'deleted'))],
  ['POST', 'subjects/*/versions', (r, q, [s]) => r.register(s!, schemaBody(q.body))],
  ['GET', 'subjects/*/versions/*', (r, q, [s, v]) => r.version(s!, v!, flag(q.query, 'deleted'), q.query.get('format') ?? undefined)],
  ['GET', 'subjects/*/versions/*/schema', async (r, q, [s, v]) => (await r.version(s!, v!, flag(q.query, 'deleted'))).schema],
  ['GET', 'subjects/*/versions/*/referencedby', (r, _q, [s, v]) => r.referencedBy(s!, v!)],
  ['DELETE', 'subjects/*/versions/*', (r, q, [s, v]) => r.deleteVersion(s!, v!, flag(q.query, 'permanent'))],
  ['POST', 'subjects/*', (r, q, [s]) => r.lookup(s!, schemaBody(q.body), flag(q.query, 'deleted'))],
  ['DELETE', 'subjects/*', (r, q, [s]) => r.deleteSubject(s!, flag(q.query, 'permanent'))],
  ['POST', 'compatibility/subjects/*/versions', (r, q, [s]) => compatibility(r, q, s!)],
  ['POST', 'compatibility/subjects/*/versions/*', (r, q, [s, v]) => compatibility(r, q, s!, v!)],
  ['GET', 'config', (r) => r.getConfig(null)],
  ['PUT', 'config', (r, q) => r.setConfig(null, field(q.body, 'compatibility'))],
  ['DELETE', 'config', (r) => r.deleteConfig(null)],
  ['GET', 'config/*', (r, q, [s]) => r.getConfig(s!, flag(q.query, 'defaultToGlobal'))],
  ['PUT', 'config/*', (r, q, [s]) => r.setConfig(s!, field(q.body, 'compatibility'))],
  ['DELETE', 'config/*', (r, _q, [s]) => r.deleteConfig(s!)],
  ['GET', 'mode', (r) => r.getMode(null)],
  ['PUT', 'mode', (r, q) => r.setMode(null, field(q.body, 'mode'))],
  ['GET', 'mode/*', (r, q, [s]) => r.getMode(s!, flag(q.query, 'defaultToGlobal'))],
  ['PUT', 'mode/*', (r, q, [s]) => r.setMode(s!, field(q.body, 'mode'))],
  ['DELETE', 'mode/*', (r, _q, [s]) => r.deleteMode(s!)],
];

/** The handler for `req`, with the path's `*` segments; a 404 (or 405) RegistryError when none. */
export function route(req: RouteRequest): (r: SchemaRegistry) => Promise<unknown> {
  let pathMatched = false;
  for (const [method, pattern, handler] of ROUTES) {
    const parts = pattern === '' ? [] : pattern.split('/');
    if (parts.length !== req.segments.length) continue;
    const params: string[] = [];
    if (!parts.every((p, i) => (p === '*' ? (params.push(req.segments[i]!), true) : p === req.segments[i]))) continue;
    pathMatched = true;
    if (method === req.method) return (r) => handler(r, req, params);
  }
  if (pathMatched) throw new E.RegistryError(405, 405, `HTTP 405 Method Not Allowed: ${req.method}`);
  throw E.notFound(`/${req.segments.join('/')}`);
}
