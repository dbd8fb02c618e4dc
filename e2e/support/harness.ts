/**
 * End-to-end harness: a real `npm run serve` process (the CLI under tsx, engine in its own child
 * process, a real SQLite data directory) and a headless Chromium driven by playwright-core (which
 * one: `browser.ts` — the system's where installed, else the one npm brought).
 * Screenshots go to e2e/artifacts/<suite>/ (kept by CI as artifacts, ignored by git).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';

export { launchBrowser } from './browser.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ARTIFACTS = join(ROOT, 'e2e', 'artifacts');

/**
 * The console the host serves: dist/renderer by default (npm test builds it first); E2E_STATIC
 * names another build, so several people can build and test at once without clobbering it.
 */
function staticArgs(): string[] {
  return process.env.E2E_STATIC ? ['--static', process.env.E2E_STATIC] : [];
}

export interface ServedHost {
  url: string;
  origin: string;
  token: string;
  dataDir: string;
  process: ChildProcess;
  /** What the host has written to stderr so far. */
  stderr(): string;
  stop(): Promise<number | null>;
}

/** Start `main/cli/cli.ts` on a free port; resolves with its printed start URL. */
export async function startServe(options: { dataDir?: string; extraArgs?: string[] } = {}): Promise<ServedHost> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'rs-e2e-'));
  // Free Kafka ports unless the test names some: suites run side by side, 9092 is for people.
  const kafkaPort = options.extraArgs?.includes('--kafka-port') ? [] : ['--kafka-port', '0'];
  // Connections and secrets a test saves stay with its data directory (so a restart on the same
  // directory finds them), never in the person's own ~/.config/replica-studio.
  const config = options.extraArgs?.includes('--config') ? [] : ['--config', join(dataDir, 'console-config')];
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'main/cli/cli.ts'), '--data', dataDir, '--port', '0', ...kafkaPort, ...config, ...staticArgs(), ...(options.extraArgs ?? [])], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`serve did not print its URL in 60 s; stderr: ${stderr}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) {
        clearTimeout(timer);
        resolve(line.trim());
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}: ${stderr}`));
    });
  });
  // The host prints its URL once every broker has registered: tests start from a ready cluster.
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get('token') ?? '',
    dataDir,
    process: child,
    stderr: () => stderr,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        // An orderly close (controlled shutdown of every broker, storage closed) can take a while on a
        // loaded machine; the SIGKILL is for a hung host only (and its exit code then fails the suite).
        const kill = setTimeout(() => child.kill('SIGKILL'), 60_000);
        child.once('exit', (code) => {
          clearTimeout(kill);
          resolve(code);
        });
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Call a contract method over HTTP as a script would (Bearer token): the value, or an Error
 * naming the method and the Kafka error. Tests use it to set the cluster up around the page.
 */
export async function api<T = unknown>(host: Pick<ServedHost, 'origin' | 'token'>, method: string, input: unknown = {}): Promise<T> {
  const res = await fetch(`${host.origin}/api/${method}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(input),
    // Bounded, but not tight: an acks=all produce or a topic creation answers late on a loaded machine.
    signal: AbortSignal.timeout(60_000),
  });
  const body = (await res.json()) as { ok: boolean; value?: T; error?: { code: string; message: string } };
  if (!body.ok) throw new Error(`${method}: ${body.error?.code} ${body.error?.message}`);
  return body.value as T;
}

/** A page on the host's start URL; every request to a host other than 127.0.0.1 fails the test. */
export async function openConsole(browser: Browser, host: ServedHost, path = '/'): Promise<{ context: BrowserContext; page: Page; foreignRequests: string[]; pageErrors: string[]; failedResponses: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme: 'light' });
  const page = await context.newPage();
  const foreignRequests: string[] = [];
  const pageErrors: string[] = [];
  /** Every response of 400 or more the page received ("404 http://…/favicon.ico"). */
  const failedResponses: string[] = [];
  page.on('response', (r) => {
    if (r.status() >= 400) failedResponses.push(`${r.status()} ${r.url()}`);
  });
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.protocol !== 'data:' && u.hostname !== '127.0.0.1') foreignRequests.push(r.url());
  });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(host.url);
  await page.getByTestId('connection-status').getByText('Live').waitFor({ timeout: 20_000 });
  // Only once the app runs: its router's first navigation would otherwise undo an early hash change.
  // The router's first navigation has finished once the first page shows its heading.
  await page.getByRole('heading', { level: 1 }).first().waitFor({ timeout: 20_000 });
  if (path !== '/') {
    // Strings, not functions: this file is type-checked without the DOM library.
    const hash = JSON.stringify(`#${path}`);
    await page.evaluate(`location.hash = ${hash}`);
    await page.waitForFunction(`location.hash === ${hash}`);
  }
  return { context, page, foreignRequests, pageErrors, failedResponses };
}

/** Numbered screenshots per suite: e2e/artifacts/<suite>/01-<name>.png. */
export function screenshotter(suite: string): (page: Page, name: string) => Promise<string> {
  const dir = join(ARTIFACTS, suite);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let n = 0;
  return async (page, name) => {
    n++;
    const file = join(dir, `${String(n).padStart(2, '0')}-${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    return file;
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
