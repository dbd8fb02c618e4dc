import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { EVENT_CHANNEL, INVOKE_CHANNEL } from './ipc-bridge.js';
import { appPathname, CONTENT_SECURITY_POLICY, isAllowedExternal, isAllowedNavigation, serveAppRequest } from './security.js';
import { createSecureWindow, type WindowDeps } from './window.js';

describe('app:// responses', () => {
  const root = mkdtempSync(join(tmpdir(), 'rs-renderer-'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><p>hi</p>');
  mkdirSync(join(root, 'etc'));
  writeFileSync(join(root, 'etc', 'passwd'), 'inside the folder');

  it('serve the built renderer with the CSP on every response', async () => {
    const ok = await serveAppRequest(root, 'app://replica-studio/index.html');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(ok.headers.get('content-type')).toMatch(/text\/html/);
    const missing = await serveAppRequest(root, 'app://replica-studio/nope.js');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
  });

  it('refuse paths outside the renderer folder and foreign hosts', async () => {
    // The traversal rules themselves are tested once, in main/http/static-files.test.ts.
    expect((await serveAppRequest(root, 'app://replica-studio/..%2f..%2fetc%2fpasswd')).status).toBe(404);
    // The URL parser folds dot segments first, so this one stays inside the folder.
    expect(appPathname('app://replica-studio/%2e%2e/%2e%2e/etc/passwd')).toBe('/etc/passwd');
    const inside = await serveAppRequest(root, 'app://replica-studio/%2e%2e/%2e%2e/etc/passwd');
    expect(await inside.text()).toBe('inside the folder');
    expect(appPathname('app://other/index.html')).toBeUndefined();
    const foreign = await serveAppRequest(root, 'app://other/index.html');
    expect(foreign.status).toBe(404);
    expect(foreign.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(await (await serveAppRequest(root, 'app://replica-studio/')).text()).toBe('<!doctype html><p>hi</p>');
  });

  it('forbid inline script and eval in the CSP', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*unsafe/);
    expect(CONTENT_SECURITY_POLICY).toContain("object-src 'none'");
  });
});

describe('navigation and external links', () => {
  it('allow navigation only within app://replica-studio', () => {
    expect(isAllowedNavigation('app://replica-studio/index.html#/topics')).toBe(true);
    expect(isAllowedNavigation('https://evil.example/')).toBe(false);
    expect(isAllowedNavigation('file:///etc/passwd')).toBe(false);
  });

  it('open only allow-listed https links externally', () => {
    expect(isAllowedExternal('https://kafka.apache.org/documentation/')).toBe(true);
    expect(isAllowedExternal('http://kafka.apache.org/')).toBe(false);
    expect(isAllowedExternal('https://evil.example/')).toBe(false);
  });
});

describe('the window factory', () => {
  function fakeElectron() {
    const handlers: Record<string, (...a: unknown[]) => void> = {};
    let openHandler: ((d: { url: string }) => { action: string }) | undefined;
    const created: Array<{ webPreferences: Record<string, unknown> }> = [];
    class FakeWindow {
      webContents = {
        setWindowOpenHandler: (h: typeof openHandler) => (openHandler = h),
        on: (name: string, h: (...a: unknown[]) => void) => (handlers[name] = h),
      };
      constructor(options: { webPreferences: Record<string, unknown> }) {
        created.push(options);
      }
      once() {}
      show() {}
      loadURL = vi.fn(async () => {});
    }
    const shell = { openExternal: vi.fn(async () => {}) };
    const deps = { BrowserWindow: FakeWindow, shell } as unknown as WindowDeps;
    return { deps, handlers, created, shell, open: (url: string) => openHandler!({ url }) };
  }

  it('creates a sandboxed, isolated window without node or webview, that denies window.open and off-origin navigation', () => {
    const f = fakeElectron();
    createSecureWindow(f.deps, { preloadPath: '/x/preload.cjs' });
    expect(f.created[0]!.webPreferences).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false, webviewTag: false, webSecurity: true, disableBlinkFeatures: 'Auxclick', preload: '/x/preload.cjs', devTools: false });
    expect(f.open('https://evil.example/')).toEqual({ action: 'deny' });
    expect(f.open('https://kafka.apache.org/')).toEqual({ action: 'deny' });
    expect(f.shell.openExternal).toHaveBeenCalledOnce();
    const blocked = { preventDefault: vi.fn() };
    f.handlers['will-navigate']!(blocked, 'https://evil.example/');
    expect(blocked.preventDefault).toHaveBeenCalled();
    const allowed = { preventDefault: vi.fn() };
    f.handlers['will-navigate']!(allowed, 'app://replica-studio/index.html');
    expect(allowed.preventDefault).not.toHaveBeenCalled();
  });
});

describe('the preload', () => {
  it('uses the same two channels as the main-side bridge (it may not import them)', async () => {
    const source = await readFile(join(import.meta.dirname, '..', 'preload', 'preload.ts'), 'utf8');
    expect(source).toContain(`'${INVOKE_CHANNEL}'`);
    expect(source).toContain(`'${EVENT_CHANNEL}'`);
  });
});
