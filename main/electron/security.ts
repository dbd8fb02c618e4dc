/**
 * The security module (docs/architecture.md#the-hosts-guards): the app:// scheme (served by the
 * console's file rules in main/http/static-files.ts, shared with the HTTP host) and its CSP, the
 * default-deny permission handlers, the off-origin navigation test and the openExternal
 * allow-list. Electron objects are passed in (type-only import), so the policy itself is
 * unit-tested without the Electron binary; `main.ts` is the only file that imports electron values.
 */
import type { CustomScheme, Protocol, Session } from 'electron';
import { contentSecurityPolicy, securityHeaders, serveStatic } from '../http/static-files.js';
import { APP_ORIGIN, originOf } from './ipc-bridge.js';

export const APP_SCHEME = 'app';
export const APP_HOST = 'replica-studio';
/** The page the window loads. */
export const APP_START_URL = `${APP_ORIGIN}/index.html`;

/**
 * Content Security Policy of every app:// response (main/http/static-files.ts, shared with the HTTP
 * host): no network beyond the app itself, as the engine is reached over IPC, not fetch.
 */
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

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

/** The pathname an app:// URL asks for, or undefined (not a URL, another scheme or host). */
export function appPathname(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === `${APP_SCHEME}:` && u.host === APP_HOST ? u.pathname : undefined;
  } catch {
    return undefined;
  }
}

/** Shown when the renderer has not been built yet, so the window says why it is empty. */
const PLACEHOLDER_HTML = `<!doctype html><meta charset="utf-8"><title>Replica Studio</title>
<body style="font-family:system-ui;padding:2em"><h1>Replica Studio</h1>
<p>The UI has not been built. Build the renderer, then reload (Ctrl+R).</p></body>`;

/** Answer one app:// request from `root` by the console's file rules, with the CSP on every response. */
export async function serveAppRequest(root: string, url: string): Promise<Response> {
  const headers = securityHeaders(CONTENT_SECURITY_POLICY);
  const pathname = appPathname(url);
  const answer = pathname === undefined ? undefined : await serveStatic({ root, placeholder: PLACEHOLDER_HTML }, pathname);
  if (!answer?.ok) return new Response(answer?.message ?? 'Not found.', { status: answer?.status ?? 404, headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' } });
  return new Response(new Uint8Array(answer.body), { status: 200, headers: { ...headers, 'Content-Type': answer.type } });
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
