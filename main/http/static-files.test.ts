import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { contentSecurityPolicy, fileInRoot, securityHeaders, serveStatic, type StaticAnswer } from './static-files.js';

const root = mkdtempSync(join(tmpdir(), 'rs-static-'));
writeFileSync(join(root, 'index.html'), '<!doctype html><title>console</title>');
mkdirSync(join(root, 'assets'));
writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)');
writeFileSync(join(root, 'assets', 'app.css'), 'body{}');
writeFileSync(join(root, 'assets', 'font.woff2'), 'w');
writeFileSync(join(root, 'icon.svg'), '<svg/>');
writeFileSync(join(root, 'blob.bin'), 'x');
mkdirSync(join(root, 'docs'));
writeFileSync(join(root, 'docs', 'index.html'), '<p>docs</p>');
const outside = mkdtempSync(join(tmpdir(), 'rs-static-outside-'));
writeFileSync(join(outside, 'secret.txt'), 'secret');
const site = { root, placeholder: '<p>placeholder</p>' };

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const text = (a: StaticAnswer) => (a.ok ? Buffer.from(a.body).toString('utf8') : a.message);

describe('the console files', () => {
  it('serve each file with the content type of its extension', async () => {
    expect(await serveStatic(site, '/')).toMatchObject({ ok: true, type: 'text/html; charset=utf-8' });
    expect(await serveStatic(site, '/assets/app.js')).toMatchObject({ ok: true, type: 'text/javascript; charset=utf-8' });
    expect(await serveStatic(site, '/assets/app.css')).toMatchObject({ ok: true, type: 'text/css; charset=utf-8' });
    expect(await serveStatic(site, '/assets/font.woff2')).toMatchObject({ ok: true, type: 'font/woff2' });
    expect(await serveStatic(site, '/icon.svg')).toMatchObject({ ok: true, type: 'image/svg+xml' });
    expect(await serveStatic(site, '/blob.bin')).toMatchObject({ ok: true, type: 'application/octet-stream' });
    expect(text(await serveStatic(site, '/assets/app.js'))).toBe('console.log(1)');
  });

  it("serve a folder's index.html, and the console's index.html for a client-side route but not for a missing asset", async () => {
    expect(text(await serveStatic(site, '/docs'))).toBe('<p>docs</p>');
    expect(text(await serveStatic(site, '/topics/orders'))).toContain('<title>console</title>');
    expect(await serveStatic(site, '/assets/missing.js')).toEqual({ ok: false, status: 404, message: 'Not found.' });
  });

  it('never leave the renderer folder: dot segments and encoded slashes are 404, bad escapes and NUL bytes 400', async () => {
    const relative = `/../${outside.split(/[\\/]/).pop()}/secret.txt`;
    expect(await serveStatic(site, relative)).toMatchObject({ ok: false, status: 404 });
    expect(await serveStatic(site, '/..%2f..%2fetc%2fpasswd')).toMatchObject({ ok: false, status: 404 });
    expect(await serveStatic(site, `/..%2F${encodeURIComponent(outside.split(/[\\/]/).pop()!)}%2Fsecret.txt`)).toMatchObject({ ok: false, status: 404 });
    expect(await serveStatic(site, '/%E0%A4%A')).toEqual({ ok: false, status: 400, message: 'Bad path.' });
    expect(await serveStatic(site, '/index.html%00.js')).toEqual({ ok: false, status: 400, message: 'Bad path.' });
    expect(fileInRoot(root, '/assets/../index.html')).toBe(join(root, 'index.html'));
    expect(fileInRoot(root, '/../x')).toBeUndefined();
  });

  it("answer the host's placeholder at / when the console is not built, and 404 elsewhere", async () => {
    const empty = mkdtempSync(join(tmpdir(), 'rs-static-empty-'));
    try {
      for (const unbuilt of [{ root: undefined, placeholder: 'not built' }, { root: empty, placeholder: 'not built' }]) {
        expect(await serveStatic(unbuilt, '/')).toMatchObject({ ok: true, type: 'text/html; charset=utf-8' });
        expect(text(await serveStatic(unbuilt, '/index.html'))).toBe('not built');
        expect(await serveStatic(unbuilt, '/assets/app.js')).toMatchObject({ ok: false, status: 404 });
      }
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('the console policy', () => {
  it('forbids inline script, eval, plugins, framing and forms, and reaches only its own origin plus what the host names', () => {
    const csp = contentSecurityPolicy(['ws://127.0.0.1:8080']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'none'");
    expect(csp).toContain("connect-src 'self' ws://127.0.0.1:8080;");
    expect(contentSecurityPolicy()).toContain("connect-src 'self';");
  });

  it('sends the policy with nosniff, no referrer, no framing and no caching on every response', () => {
    expect(securityHeaders('x')).toEqual({
      'Content-Security-Policy': 'x',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Cache-Control': 'no-store',
    });
  });
});
