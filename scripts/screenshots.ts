/**
 * `npm run docs:screenshots`: the pictures of README.md and docs/, taken from the running console.
 *
 * A fresh build of the console (vite, into a temp folder), served by a real `npm run serve` on a
 * temp data directory (free HTTP and Kafka ports, e2e/support/harness.ts), driven by the headless
 * Chromium the browser tests use (e2e/support/browser.ts). The cluster is the default one (the
 * `balanced` profile: 3 brokers on 3 racks) plus a fourth broker added empty, a few topics with
 * records, and a trickle of produce traffic while the pictures are taken, so the pages show live
 * rates and an uneven broker for the Balance page to suggest moves for. Writes 1280×800 PNGs into
 * docs/images/ (viewport only, not the full page, to keep them small). Bounded: every wait has a
 * timeout, and the whole run stops after RUN_LIMIT_MS.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { api, launchBrowser, openConsole, startServe, type ServedHost } from '../e2e/support/harness.js';

const ROOT = join(import.meta.dirname, '..');
const IMAGES = join(ROOT, 'docs', 'images');
const VIEWPORT = { width: 1280, height: 800 };
const RUN_LIMIT_MS = 5 * 60_000;
/** Time for live charts and counters to fill in after a page opens. */
const SETTLE_MS = 2_500;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

/** The default cluster, a fourth broker joined after the topics were placed, records on each topic. */
async function setUp(host: ServedHost): Promise<void> {
  type Broker = { id: number; state: string };
  await until(async () => (await api<Broker[]>(host, 'brokers.list')).every((b) => b.state === 'running'), 'the brokers');
  await api(host, 'topics.create', { name: 'orders', partitions: 6, replicationFactor: 3 });
  await api(host, 'topics.create', { name: 'payments', partitions: 3, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } });
  await api(host, 'topics.create', { name: 'clickstream', partitions: 12, replicationFactor: 2 });
  await api(host, 'brokers.add', { id: 4 });
  await until(async () => (await api<Broker[]>(host, 'brokers.list')).find((b) => b.id === 4)?.state === 'running', 'broker 4');
  const values = Array.from({ length: 200 }, (_, k) => ({ key: `k${k}`, value: `record ${k} ${'x'.repeat(200)}` }));
  for (const [topic, partitions] of [['orders', 6], ['payments', 3], ['clickstream', 12]] as const) {
    for (let partition = 0; partition < partitions; partition++) await api(host, 'records.produce', { topic, partition, acks: 'all', records: values });
  }
}

/** Produce a small batch every 200 ms until stopped, so the Overview shows rates. */
function trickle(host: ServedHost): () => Promise<void> {
  let running = true;
  const loop = (async () => {
    for (let n = 0; running; n++) {
      await api(host, 'records.produce', { topic: 'orders', acks: 'all', records: Array.from({ length: 50 }, (_, k) => ({ key: `t${n}-${k}`, value: `live ${n}` })) }).catch(() => {});
      await sleep(200);
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}

async function open(page: Page, path: string, heading: string): Promise<void> {
  const hash = JSON.stringify(`#${path}`);
  await page.evaluate(`location.hash = ${hash}`);
  await page.getByRole('heading', { level: 1, name: heading }).first().waitFor({ timeout: 20_000 });
}

async function shoot(page: Page, name: string): Promise<void> {
  await sleep(SETTLE_MS);
  const file = join(IMAGES, `${name}.png`);
  await page.screenshot({ path: file });
  console.log(`wrote docs/images/${name}.png`);
}

async function main(): Promise<void> {
  const limit = setTimeout(() => {
    console.error(`screenshots: over ${RUN_LIMIT_MS / 1000} s, stopping`);
    process.exit(1);
  }, RUN_LIMIT_MS);
  const consoleDir = mkdtempSync(join(tmpdir(), 'rs-screens-console-'));
  let host: ServedHost | undefined;
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  try {
    await build({ configFile: join(ROOT, 'vite.renderer.config.ts'), logLevel: 'warn', build: { outDir: consoleDir, emptyOutDir: true } });
    host = await startServe({ extraArgs: ['--static', consoleDir] });
    await setUp(host);
    const stopTrickle = trickle(host);
    browser = await launchBrowser();
    const { page, context } = await openConsole(browser, host);
    await page.setViewportSize(VIEWPORT);
    mkdirSync(IMAGES, { recursive: true });

    await open(page, '/', 'Overview');
    await shoot(page, 'overview');
    await open(page, '/topics/orders', 'orders');
    await shoot(page, 'topic');
    await open(page, '/balance', 'Balance');
    await page.getByTestId('suggest-button').click();
    await page.getByTestId('suggestion').waitFor({ timeout: 60_000 });
    await shoot(page, 'balance');
    await open(page, '/drills', 'Drills');
    await page.getByTestId('scenario-runner').waitFor({ timeout: 20_000 });
    await shoot(page, 'drills');

    await stopTrickle();
    await context.close();
  } finally {
    await browser?.close();
    if (host) await host.stop();
    if (host) rmSync(host.dataDir, { recursive: true, force: true });
    rmSync(consoleDir, { recursive: true, force: true });
    clearTimeout(limit);
  }
}

await main();
