/**
 * The walk-through issue 34 ends with: every page of the console, on its local cluster and on an
 * external one (a second `npm run serve` reached only over the Kafka protocol), at 1440×900 and at
 * 1024×700, in light and in dark. Each picture goes to e2e/artifacts/walkthrough/<connection>/
 * (CI keeps them; `npx vitest run --project e2e e2e/walkthrough.e2e.test.ts` makes them here),
 * named <page>-<width>-<theme>.png, the whole page.
 *
 * At every size nothing is wider than the window (a wide table scrolls inside itself), and no
 * text is cut without a cue: an element that hides its overflow shows an ellipsis (whose full text
 * the page gives elsewhere) or is a scroller. The page raises no error.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, ARTIFACTS, launchBrowser, openConsole } from './support/harness.js';
import { startTwoHosts, type TwoHosts } from './support/two-hosts.js';

const PAGES: { path: string; title: string; name: string }[] = [
  { path: '/', title: 'Overview', name: 'overview' },
  { path: '/brokers', title: 'Brokers', name: 'brokers' },
  { path: '/topics', title: 'Topics', name: 'topics' },
  { path: '/topics/orders', title: 'Topic', name: 'topic-detail' },
  { path: '/balance', title: 'Balance', name: 'balance' },
  { path: '/leaders', title: 'Leaders', name: 'leaders' },
  { path: '/impact', title: 'Impact', name: 'impact' },
  { path: '/configs?resource=topic:orders', title: 'Configs', name: 'configs' },
  { path: '/profiles', title: 'Profiles', name: 'profiles' },
  { path: '/drills', title: 'Drills', name: 'drills' },
  { path: '/connections', title: 'Connections', name: 'connections' },
  { path: '/groups', title: 'Consumer groups', name: 'groups' },
  { path: '/messages', title: 'Messages', name: 'messages' },
  { path: '/schemas', title: 'Schemas', name: 'schemas' },
  { path: '/security', title: 'Security', name: 'security' },
  { path: '/transactions', title: 'Transactions', name: 'transactions' },
];
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 700 },
];
const THEMES = ['light', 'dark'] as const;
/** Time for a page's live reads and charts to land after it, or the size, changed. */
const SETTLE_MS = 700;

/**
 * In the page: what is cut. Nothing wider than the window; an element whose text overflows a box
 * that hides it is cut unless the box shows an ellipsis or scrolls. Strings, not functions: e2e
 * files are type-checked without the DOM library.
 */
const CUT = `(() => {
  const out = [];
  if (document.documentElement.scrollWidth > window.innerWidth + 1) out.push('the page is ' + document.documentElement.scrollWidth + ' px wide');
  const main = document.querySelector('main') ?? document.body;
  for (const el of main.querySelectorAll('*')) {
    if (el.scrollWidth <= el.clientWidth + 1 || el.clientWidth === 0) continue;
    const s = getComputedStyle(el);
    if (s.overflowX !== 'hidden' && s.overflowX !== 'clip') continue;
    if (s.textOverflow === 'ellipsis' || s.visibility === 'hidden') continue;
    // Only boxes whose own text is cut: a box that clips a scroller, a chart or an icon is layout.
    const text = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent.replace(/[\\s\\u200b]+/g, ' ').trim()).join(' ').trim();
    if (!text) continue;
    const r = el.getBoundingClientRect();
    // A box of a pixel or less is text for screen readers only, hidden on purpose.
    if (r.width <= 1 || r.height <= 1) continue;
    const id = el.closest('[data-testid]')?.getAttribute('data-testid') ?? el.className;
    out.push(id + ': “' + text.slice(0, 40) + '” needs ' + el.scrollWidth + ' px of ' + el.clientWidth);
  }
  return out;
})()`;

/** In the page: the partition legend's marks drawn in a colour too close to the page's background. */
const UNSEEN_LEGEND = `(() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) ?? []).map(Number);
  const lum = ([r, g, b]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const tick = document.querySelector('[data-testid="legend-flushed"]');
  if (!tick) return ['no flushed mark in the legend'];
  let bg = [255, 255, 255];
  for (let el = tick.parentElement; el; el = el.parentElement) {
    const c = rgb(getComputedStyle(el).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] > 0.9)) { bg = c; break; }
  }
  const [r, g, b, a = 1] = rgb(getComputedStyle(tick).backgroundColor);
  const seen = [r * a + bg[0] * (1 - a), g * a + bg[1] * (1 - a), b * a + bg[2] * (1 - a)];
  return Math.abs(lum(seen) - lum(bg)) < 40 ? ['the legend’s flushed mark is ' + Math.round(lum(seen)) + ' on ' + Math.round(lum(bg))] : [];
})()`;

describe('the walk-through: every page on a local and an external connection, at 1440×900 and 1024×700, light and dark', () => {
  let hosts: TwoHosts;
  let browser: Browser;

  beforeAll(async () => {
    hosts = await startTwoHosts();
    for (const host of [hosts.console_, hosts.external.host]) {
      await api(host, 'topics.create', { name: 'orders', partitions: 6, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } });
      await api(host, 'topics.create', { name: 'audit.log', partitions: 1, replicationFactor: 1 });
    }
    for (const host of [hosts.console_, hosts.external.host]) {
      const deadline = Date.now() + 30_000;
      while ((await api<{ partitions: { leader: number }[] }>(host, 'topics.describe', { name: 'orders' })).partitions.some((p) => p.leader < 0)) {
        if (Date.now() > deadline) throw new Error('orders has a partition without a leader after 30 s');
        await new Promise((r) => setTimeout(r, 200));
      }
      await api(host, 'records.produce', { topic: 'orders', acks: 'all', records: Array.from({ length: 60 }, (_, i) => ({ key: `order-${i}`, value: `order ${i}` })) });
    }
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await hosts?.stop();
  });

  /** Every page at every size and theme; the cuts found, by picture. */
  async function walk(page: Page, connection: 'local' | 'external'): Promise<Record<string, string[]>> {
    const dir = join(ARTIFACTS, 'walkthrough', connection);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const cuts: Record<string, string[]> = {};
    for (const p of PAGES) {
      await page.setViewportSize(SIZES[0]!);
      await page.emulateMedia({ colorScheme: 'light' });
      await page.evaluate(`location.hash = ${JSON.stringify(`#${p.path}`)}`);
      await expect.poll(() => page.evaluate('document.title'), { timeout: 20_000 }).toBe(`${p.title} · Replica Studio`);
      await page.getByRole('heading', { level: 1 }).first().waitFor({ timeout: 20_000 });
      await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => undefined);
      for (const size of SIZES) {
        await page.setViewportSize(size);
        for (const theme of THEMES) {
          await page.emulateMedia({ colorScheme: theme });
          await page.waitForTimeout(SETTLE_MS);
          const name = `${p.name}-${size.width}-${theme}`;
          await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
          const found = (await page.evaluate(CUT)) as string[];
          // The partition legend's marks show on either background (the flushed tick was black on dark).
          if (p.name === 'topic-detail') found.push(...((await page.evaluate(UNSEEN_LEGEND)) as string[]));
          if (found.length) cuts[name] = found;
        }
      }
    }
    return cuts;
  }

  it('on the local cluster: every page fits and cuts no text', async () => {
    const { page, pageErrors, context } = await openConsole(browser, hosts.console_);
    const cuts = await walk(page, 'local');
    expect(cuts).toEqual({});
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 420_000);

  it('on an external cluster: every page fits and cuts no text', async () => {
    const { page, pageErrors, context } = await openConsole(browser, hosts.console_);
    // This window looks at the external cluster (as Connections › Switch to leaves it).
    const active = { id: hosts.connection, name: 'second host', kind: 'external', bootstrap: hosts.external.bootstrap };
    await page.evaluate(`sessionStorage.setItem('replica-studio.connection', ${JSON.stringify(JSON.stringify(active))}); location.hash = '#/'; location.reload();`);
    await page.getByTestId('active-connection').getByText('second host').waitFor({ timeout: 30_000 });
    const cuts = await walk(page, 'external');
    expect(cuts).toEqual({});
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 420_000);
});
