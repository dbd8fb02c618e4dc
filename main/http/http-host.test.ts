import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { EngineEvent } from '../../app/api/contract.js';
import { startHttpHost, type HttpHost } from './http-host.js';
import { openCluster, type OpenCluster } from '../engine/open-cluster.js';
import { loadOrCreateToken } from './token.js';

let dir: string;
let cluster: OpenCluster;
let host: HttpHost;
let token: string;
const sockets: WebSocket[] = [];
const quiet = { error: () => {} };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rs-host-'));
  cluster = openCluster({ dataDir: dir, logger: quiet });
  token = loadOrCreateToken(dir);
  expect(await cluster.ready(10_000)).toBe(true);
  host = await startHttpHost({ service: cluster.service, port: 0, host: '127.0.0.1', token, logger: quiet });
});

afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  await host.close();
  cluster.close();
  rmSync(dir, { recursive: true, force: true });
});

function api(method: string, body: unknown, headers: Record<string, string> = { Authorization: `Bearer ${token}` }): Promise<Response> {
  return fetch(`${host.origin}/api/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
}

/** A request with headers fetch will not let us forge (Host, Origin). */
function raw(path: string, headers: Record<string, string>, method = 'POST', body = '{}'): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, method, headers, timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end(body);
  });
}

describe('the HTTP host', () => {
  it('binds the loopback address only', () => {
    const address = host.server.address();
    expect(typeof address === 'object' && address?.address).toBe('127.0.0.1');
    expect(host.url).toBe(`http://127.0.0.1:${host.port}/?token=${token}`);
  });

  it('refuses a request without the token or with a wrong one (401) and accepts the Bearer token', async () => {
    const none = await api('cluster.describe', {}, {});
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('INVALID_REQUEST');
    expect((await api('cluster.describe', {}, { Authorization: `Bearer ${'0'.repeat(64)}` })).status).toBe(401);
    const ok = await api('cluster.describe', {});
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { ok: boolean; value: { brokers: unknown[] } };
    expect(body.ok).toBe(true);
    expect(body.value.brokers).toHaveLength(3);
  });

  it('trades ?token= for an HttpOnly SameSite=Strict cookie that then authorises requests', async () => {
    expect((await fetch(`${host.origin}/?token=wrong`, { redirect: 'manual' })).status).toBe(401);
    const res = await fetch(host.url, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const pair = cookie.split(';')[0]!;
    const page = await fetch(`${host.origin}/`, { headers: { Cookie: pair } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Replica Studio');
    expect((await api('cluster.describe', {}, { Cookie: pair })).status).toBe(200);
    expect((await fetch(`${host.origin}/`)).status).toBe(401);
  });

  it('refuses a foreign Host (DNS rebinding) or a foreign Origin with 403', async () => {
    const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    expect((await raw('/api/cluster.describe', { ...auth, Host: `127.0.0.1:${host.port}` })).status).toBe(200);
    expect((await raw('/api/cluster.describe', { ...auth, Host: `localhost:${host.port}`, Origin: `http://localhost:${host.port}` })).status).toBe(200);
    expect((await raw('/api/cluster.describe', { ...auth, Host: `evil.example:${host.port}` })).status).toBe(403);
    expect((await raw('/api/cluster.describe', { ...auth, Host: '127.0.0.1' })).status).toBe(403);
    expect((await raw('/api/cluster.describe', { ...auth, Host: `127.0.0.1:${host.port}`, Origin: 'http://evil.example' })).status).toBe(403);
    expect((await raw('/api/cluster.describe', { ...auth, Host: `127.0.0.1:${host.port}`, Origin: 'null' })).status).toBe(403);
    // A foreign Host is refused even with the token in a ?token= link.
    expect((await raw(`/?token=${token}`, { Host: `evil.example:${host.port}` }, 'GET', '')).status).toBe(403);
  });

  it('never sends an Access-Control-Allow-Origin header', async () => {
    const res = await raw('/api/cluster.describe', { Authorization: `Bearer ${token}`, Host: `127.0.0.1:${host.port}`, Origin: `http://127.0.0.1:${host.port}` });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await raw('/api/cluster.describe', { Host: `127.0.0.1:${host.port}`, Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' }, 'OPTIONS', '');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers 404 with a coded body for an unknown method', async () => {
    const res = await api('topics.explode', {});
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
  });

  it('answers 400 for a body that is not JSON, and 400 INVALID_INPUT naming the field for a schema-invalid one', async () => {
    const bad = await api('topics.create', '{"name": ');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    const invalid = await api('topics.create', { name: 'orders', partitions: 'three', replicationFactor: 1 });
    expect(invalid.status).toBe(400);
    const body = (await invalid.json()) as { ok: false; error: { code: string; message: string } };
    expect(body.error.code).toBe('INVALID_INPUT');
    expect(body.error.message).toContain('partitions');
  });

  it('answers 413 for a body over the limit', async () => {
    const res = await api('topics.create', JSON.stringify({ name: 'x'.repeat(11 * 1024 * 1024) }));
    expect(res.status).toBe(413);
    // The host keeps serving.
    expect((await api('cluster.describe', {})).status).toBe(200);
  });

  it("keeps an engine error's Kafka code: replication factor 4 on 3 brokers", async () => {
    const res = await api('topics.create', { name: 'too-wide', partitions: 1, replicationFactor: 4 });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: false, error: { code: 'INVALID_REPLICATION_FACTOR' } });
  });

  it('round-trips records: topics.create → records.produce (acks=all) → records.consume', async () => {
    const created = await api('topics.create', { name: 'orders', partitions: 1, replicationFactor: 3 });
    expect(await created.json()).toMatchObject({ ok: true, value: { name: 'orders' } });
    // Leaders are elected in real time: retry while the partition has no leader yet.
    let produced: { ok: boolean; value?: { errorCode: string; baseOffset: number } } | undefined;
    for (let attempt = 0; attempt < 100; attempt++) {
      produced = (await (await api('records.produce', { topic: 'orders', partition: 0, acks: 'all', records: [{ key: 'k', value: 'hello' }, { value: 'world' }] })).json()) as typeof produced;
      if (produced?.ok && produced.value?.errorCode === 'NONE') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(produced).toMatchObject({ ok: true, value: { errorCode: 'NONE', baseOffset: 0 } });
    const consumed = (await (await api('records.consume', { topic: 'orders', partition: 0, offset: 0 })).json()) as {
      ok: boolean;
      value: { records: { offset: number; key: string | null; value: string | null }[]; highWatermark: number };
    };
    expect(consumed.ok).toBe(true);
    expect(consumed.value.highWatermark).toBe(2);
    expect(consumed.value.records.map((r) => [r.offset, r.key, r.value])).toEqual([
      [0, 'k', 'hello'],
      [1, null, 'world'],
    ]);
  });

  it('streams engine events on the /events WebSocket, each message an array of events in order (a burst in few messages)', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/events`, { headers: { Authorization: `Bearer ${token}` } });
    sockets.push(ws);
    const events: EngineEvent[] = [];
    const messages: unknown[] = [];
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as unknown;
      messages.push(message);
      if (Array.isArray(message)) events.push(...(message as EngineEvent[]));
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const waitFor = async (what: (e: EngineEvent) => boolean): Promise<EngineEvent | undefined> => {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && !events.some(what)) await new Promise((r) => setTimeout(r, 20));
      return events.find(what);
    };
    type Value<T> = { ok: boolean; value: T };
    const created = (await (await api('topics.create', { name: 'watched', partitions: 1, replicationFactor: 3 })).json()) as Value<{ partitions: { leader: number }[] }>;
    expect(created.ok).toBe(true);
    expect(await waitFor((e) => e.type === 'topic.created')).toMatchObject({ type: 'topic.created', topic: 'watched', partitions: 1, replicationFactor: 3 });

    // A produce moves the high watermark: the UI hears of it (coalesced, at most one per window).
    for (let i = 0; i < 5; i++) {
      const r = (await (await api('records.produce', { topic: 'watched', partition: 0, acks: 'all', records: [{ value: `v${i}` }] })).json()) as Value<{ errorCode: string }>;
      expect(r.value.errorCode).toBe('NONE');
    }
    expect(await waitFor((e) => e.type === 'highWatermark.advanced' && e.topic === 'watched' && e.highWatermark === 5)).toBeDefined();

    // Stopping the leader moves leadership: a leader.changed event arrives.
    const leader = created.value.partitions[0]!.leader;
    expect(await (await api('brokers.stop', { brokerId: leader })).json()).toMatchObject({ ok: true });
    expect(await waitFor((e) => e.type === 'leader.changed' && e.topic === 'watched')).toMatchObject({ previousLeader: leader });

    // 40 topics in one call: their events come in far fewer messages than there are events.
    const before = { messages: messages.length, events: events.length };
    const topics = Array.from({ length: 40 }, (_, i) => ({ name: `burst-${i}`, partitions: 2, replicationFactor: 2 }));
    expect(await (await api('topics.createMany', { topics })).json()).toMatchObject({ ok: true });
    await waitFor((e) => e.type === 'topic.created' && e.topic === 'burst-39');
    const burst = events.slice(before.events).filter((e) => e.type === 'topic.created' && e.topic.startsWith('burst-'));
    expect(burst.map((e) => (e as { topic: string }).topic)).toEqual(topics.map((t) => t.name));
    expect(messages.length - before.messages).toBeLessThan(burst.length / 4);
    expect(messages.every((m) => Array.isArray(m) && m.length > 0)).toBe(true);
  });

  it("serves the console's files with its CSP (this port's WebSocket allowed), a client-side route as index.html, and nothing outside its folder", async () => {
    const site = join(dir, 'site');
    mkdirSync(join(site, 'assets'), { recursive: true });
    writeFileSync(join(site, 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(site, 'assets', 'app.js'), 'export {}');
    const served = await startHttpHost({ service: cluster.service, port: 0, host: '127.0.0.1', token, staticDir: site, logger: quiet });
    try {
      const get = (path: string, method = 'GET') => fetch(`${served.origin}${path}`, { method, headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
      const page = await get('/');
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>console</title>');
      const csp = page.headers.get('content-security-policy')!;
      expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${served.port} ws://localhost:${served.port}`);
      expect(csp).toContain("script-src 'self'");
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('access-control-allow-origin')).toBeNull();
      expect((await get('/assets/app.js')).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(await (await get('/topics/orders')).text()).toContain('<title>console</title>');
      const head = await get('/', 'HEAD');
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      const missing = await get('/assets/missing.js');
      expect(missing.status).toBe(404);
      expect(await missing.json()).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
      expect((await get('/..%2f..%2f..%2fetc%2fpasswd')).status).toBe(404);
      expect((await get('/', 'DELETE')).status).toBe(405);
    } finally {
      await served.close();
    }
  });

  it('refuses a WebSocket without the token (401) or from a foreign Origin (403)', async () => {
    const statusOf = (headers: Record<string, string>) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${host.port}/events`, { headers });
        sockets.push(ws);
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('open', () => resolve(101));
        ws.once('error', () => resolve(-1));
      });
    expect(await statusOf({})).toBe(401);
    expect(await statusOf({ Authorization: `Bearer ${token}`, Origin: 'http://evil.example' })).toBe(403);
  });

  it('answers a request that offers an h2c upgrade (Java\'s HttpClient, curl --http2) over HTTP/1.1, the body read as usual, and several on one connection', async () => {
    const h2c = { Host: `127.0.0.1:${host.port}`, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Connection: 'Upgrade, HTTP2-Settings', Upgrade: 'h2c', 'HTTP2-Settings': 'AAMAAABkAAQAAP__' };
    const created = await raw('/api/topics.create', h2c, 'POST', JSON.stringify({ name: 'via-h2c', partitions: 1, replicationFactor: 1 }));
    expect(created.status).toBe(200);
    expect(JSON.parse(created.body)).toMatchObject({ ok: true, value: { name: 'via-h2c' } });
    // Two requests on one kept-alive socket, each offering the upgrade.
    const answers = await new Promise<string>((resolve, reject) => {
      const socket = connect(host.port, '127.0.0.1');
      let text = '';
      const req = (body: string) =>
        `POST /api/cluster.describe HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nAuthorization: Bearer ${token}\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      socket.on('data', (d: Buffer) => {
        text += d.toString();
        if ((text.match(/HTTP\/1\.1 200/g) ?? []).length === 1 && !text.includes('second')) {
          text += '\n-- second --\n';
          socket.write(req('{}'));
        } else if ((text.match(/HTTP\/1\.1 200/g) ?? []).length === 2 && text.trimEnd().endsWith('}')) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on('error', reject);
      socket.write(req('{}'));
      setTimeout(() => reject(new Error(`no second answer: ${text}`)), 10_000);
    });
    expect(answers.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
  });

  it('close() ends within a bound whatever its connections do: an h2c keep-alive, a WebSocket, a request never finished', async () => {
    await raw('/api/cluster.describe', { Host: `127.0.0.1:${host.port}`, Authorization: `Bearer ${token}`, Connection: 'Upgrade', Upgrade: 'h2c' });
    // A client that keeps its side open after the answer (as an HTTP/2 client waiting to upgrade does).
    const kept = connect({ port: host.port, host: '127.0.0.1', allowHalfOpen: true }).resume();
    kept.write(`POST /api/cluster.describe HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nConnection: Upgrade\r\nUpgrade: h2c\r\nContent-Length: 100\r\n\r\n{`);
    const half = connect(host.port, '127.0.0.1').resume();
    half.write('GET / HTTP/1.1\r\nHost: 127.0.0.1');
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/events?token=${token}`);
    sockets.push(ws);
    await new Promise((r) => ws.once('open', r));
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    await Promise.race([host.close(), new Promise((r) => setTimeout(r, 5_000))]);
    expect(Date.now() - started).toBeLessThan(3_000);
    // The server ended every socket: each client side sees its end.
    const ended = (s: typeof kept) => new Promise((r) => (s.readableEnded || s.destroyed ? r(null) : s.once('end', r).once('close', r)));
    await Promise.all([ended(kept), ended(half), new Promise((r) => (ws.readyState === WebSocket.CLOSED ? r(null) : ws.once('close', r)))]);
  });
});
