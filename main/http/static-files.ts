/**
 * The console's files, served by one set of rules to both the HTTP host (`GET /…`) and the
 * Electron window's `app://` handler (main/electron/security.ts): each adapts the answer to its
 * own response type.
 *
 * Rules, for a URL pathname (still percent-encoded) under the built renderer folder `root`:
 *   - a bad percent-escape or a NUL byte → 400;
 *   - a path that resolves outside `root` (`..`, encoded slashes) → 404;
 *   - a folder → its index.html;
 *   - a missing file without an extension → `root/index.html` (a client-side route); a missing
 *     file with one (an asset) → 404;
 *   - no built console (no `root`, or no `root/index.html`): `/` and `/index.html` answer the
 *     host's placeholder page, saying why the window is empty;
 *   - the type comes from the extension (unknown: application/octet-stream), and every response
 *     carries `securityHeaders` with the host's Content-Security-Policy.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';

/** Content types by file extension (lower case, with the dot). */
export const MIME_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
};

/**
 * The Content Security Policy of the console: only our own scripts (no inline script, no eval),
 * no plugins, no framing, no forms, no network beyond the console's own origin plus `connect`
 * (the HTTP host's WebSocket). `style-src 'unsafe-inline'` is kept for the styles Vue and
 * Naive UI inject at run time.
 */
export function contentSecurityPolicy(connect: readonly string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    ["connect-src 'self'", ...connect].join(' '),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "frame-src 'none'",
  ].join('; ');
}

/** Headers of every console response, found or not. */
export function securityHeaders(csp: string): Record<string, string> {
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  };
}

/** What a host serves the console from. */
export interface StaticSite {
  /** The built renderer (absolute or relative); undefined when there is none. */
  root: string | undefined;
  /** The page `/` shows when the console is not built, in the host's own words. */
  placeholder: string;
}

/** A file to send, or why not. */
export type StaticAnswer = { ok: true; status: 200; type: string; body: Uint8Array } | { ok: false; status: 400 | 404; message: string };

/** The file under `root` that `pathname` names, 'bad' for an undecodable path, undefined outside `root`. */
export function fileInRoot(root: string, pathname: string): string | 'bad' | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return 'bad';
  }
  if (decoded.includes('\0')) return 'bad';
  const base = resolve(root);
  const file = resolve(base, `.${decoded.startsWith('/') ? '' : '/'}${decoded}`);
  return file === base || file.startsWith(base + sep) ? file : undefined;
}

const NOT_FOUND: StaticAnswer = { ok: false, status: 404, message: 'Not found.' };
const isFile = (file: string): Promise<boolean> => stat(file).then((s) => s.isFile(), () => false);
const isDirectory = (file: string): Promise<boolean> => stat(file).then((s) => s.isDirectory(), () => false);

/** Answer one request for `pathname` by the rules above. */
export async function serveStatic(site: StaticSite, pathname: string): Promise<StaticAnswer> {
  const root = site.root === undefined ? undefined : resolve(site.root);
  if (root === undefined || !(await isFile(resolve(root, 'index.html')))) {
    if (pathname === '/' || pathname === '/index.html') return { ok: true, status: 200, type: MIME_TYPES['.html']!, body: Buffer.from(site.placeholder) };
    return NOT_FOUND;
  }
  const found = fileInRoot(root, pathname);
  if (found === 'bad') return { ok: false, status: 400, message: 'Bad path.' };
  if (found === undefined) return NOT_FOUND;
  let file = (await isDirectory(found)) ? resolve(found, 'index.html') : found;
  if (!(await isFile(file))) {
    if (extname(found) !== '') return NOT_FOUND;
    file = resolve(root, 'index.html');
  }
  return { ok: true, status: 200, type: MIME_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream', body: await readFile(file) };
}
