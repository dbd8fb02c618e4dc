/**
 * The security module (CONVENTIONS rule 11, second place): the app:// scheme and its CSP, the
 * default-deny permission handlers, the off-origin navigation test and the openExternal
 * allow-list. Electron objects are passed in (type-only import), so the policy itself is
 * unit-tested without the Electron binary; `main.ts` is the only file that imports electron values.
 */
import { readFile } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import type { CustomScheme, Protocol, Session } from 'electron';
import { APP_ORIGIN, originOf } from './ipc-bridge.js';

export const APP_SCHEME = 'app';
export const APP_HOST = 'replica-studio';
/** The page the window loads. */
export const APP_START_URL = `${APP_ORIGIN}/index.html`;

/**
 * Content Security Policy of every app:// response: only our own scripts, no eval, no plugins,
 * no framing, no network beyond the app itself (the engine is reached over IPC, not fetch).
 * `style-src 'unsafe-inline'` is kept for Vue's scoped style injection in development builds.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "frame-src 'none'",
].join('; ');

/** app:// is standard and secure (so it has an origin and gets a real CSP), before app ready. */
export const APP_SCHEME_PRIVILEGES: CustomScheme = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: false, stream: true },
};

/** Hosts `shell.openExternal` may open (documentation links); everything else is refused. */
export const EXTERNAL_ALLOW_LIST = ['kafka.apache.org', 'github.com', 'www.electronjs.org'];

/** Whether an external link may be handed to the OS browser. */
export function isAllowedExternal(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' && EXTERNAL_ALLOW_LIST.includes(u.hostname);
  } catch {
    return false;
  }
}

/** Whether the window may navigate to `url` (only within the app's own origin). */
export function isAllowedNavigation(url: string): boolean {
  return originOf(url) === APP_ORIGIN;
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

/** Map an app:// URL to a file under `root`, or undefined (wrong host, traversal, bad escape). */
export function resolveAppFile(root: string, url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== `${APP_SCHEME}:` || u.host !== APP_HOST) return undefined;
  let pathname: string;
  try {
    pathname = decodeURIComponent(u.pathname);
  } catch {
    return undefined;
  }
  if (pathname.includes('\0')) return undefined;
  const base = resolve(root);
  const file = resolve(base, `.${pathname === '/' ? '/index.html' : pathname}`);
  return file === base || file.startsWith(base + sep) ? file : undefined;
}

/** Shown when the renderer has not been built yet, so the window says why it is empty. */
const PLACEHOLDER_HTML = `<!doctype html><meta charset="utf-8"><title>Replica Studio</title>
<body style="font-family:system-ui;padding:2em"><h1>Replica Studio</h1>
<p>The UI has not been built. Build the renderer, then reload (Ctrl+R).</p></body>`;

/** Answer one app:// request from `root` with the CSP header on every response. */
export async function serveAppRequest(root: string, url: string): Promise<Response> {
  const headers = { 'Content-Security-Policy': CONTENT_SECURITY_POLICY, 'X-Content-Type-Options': 'nosniff' };
  const file = resolveAppFile(root, url);
  if (!file) return new Response('Not found', { status: 404, headers });
  try {
    const body = await readFile(file);
    return new Response(new Uint8Array(body), { status: 200, headers: { ...headers, 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream' } });
  } catch {
    if (file.endsWith(`${sep}index.html`)) return new Response(PLACEHOLDER_HTML, { status: 200, headers: { ...headers, 'Content-Type': MIME['.html']! } });
    return new Response('Not found', { status: 404, headers });
  }
}

/** Serve the built renderer on app:// in `session` (call after app ready). */
export function registerAppProtocol(protocol: Protocol, rendererDir: string): void {
  protocol.handle(APP_SCHEME, (request) => serveAppRequest(rendererDir, request.url));
}

/** Deny every permission request and check (camera, notifications, geolocation, …). */
export function installPermissionPolicy(session: Session): void {
  session.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
}
