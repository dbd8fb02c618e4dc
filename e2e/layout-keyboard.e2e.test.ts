/**
 * Every page at 1440×900 in light and dark and at 1024×700, and by keyboard alone: the screenshot
 * set (e2e/artifacts/screens/{light,dark,narrow}/), the folding sidebar, tables that scroll
 * instead of clipping, a balance board showing six brokers, the skip link, focus after
 * navigation and its visible style, and the dark theme's link colour.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, launchBrowser, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';

/**
 * The browser's getComputedStyle, for functions that run in the page: e2e files are type-checked
 * without the DOM library, so the few properties read are declared here.
 */
declare function getComputedStyle(el: unknown): { overflowX: string; outlineStyle: string; outlineWidth: string; backgroundColor: string; color: string };

const PAGES: { path: string; heading: string; name: string }[] = [
  { path: '/', heading: 'Overview', name: 'overview' },
  { path: '/brokers', heading: 'Brokers', name: 'brokers' },
  { path: '/topics', heading: 'Topics', name: 'topics' },
  { path: '/topics/orders', heading: 'orders', name: 'topic-detail' },
  { path: '/balance', heading: 'Balance', name: 'balance' },
  { path: '/leaders', heading: 'Leaders', name: 'leaders' },
  { path: '/configs?resource=topic:orders', heading: 'Configs', name: 'configs' },
  { path: '/profiles', heading: 'Profiles', name: 'profiles' },
  { path: '/drills', heading: 'Drills', name: 'drills' },
  { path: '/messages', heading: 'Messages', name: 'messages' },
];

/** Wait for a condition on the API, bounded. */
async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('every page at 1440 and 1024 px, light and dark, and by keyboard', () => {
  let host: ServedHost;
  let browser: Browser;

  /** A page on the console in its own context, once the first page shows its heading. */
  async function open(viewport: { width: number; height: number }, colorScheme: 'light' | 'dark'): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
    const context = await browser.newContext({ viewport, colorScheme });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(host.url);
    await page.getByTestId('connection-status').getByText('Live').waitFor({ timeout: 20_000 });
    await page.getByRole('heading', { level: 1 }).first().waitFor({ timeout: 20_000 });
    return { page, errors, close: () => context.close() };
  }

  /** Go to a route through the hash (the router is running) and wait for its heading. */
  async function go(page: Page, path: string, heading: string): Promise<void> {
    const hash = JSON.stringify(`#${path}`);
    await page.evaluate(`location.hash = ${hash}`);
    await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor({ timeout: 20_000 });
  }

  beforeAll(async () => {
    host = await startServe();
    browser = await launchBrowser();
    await until(async () => (await api<{ state: string }[]>(host, 'brokers.list')).every((b) => b.state === 'running'));
    // Six brokers on three racks, so the balance board has more columns than fit one row.
    for (const rack of ['rack-1', 'rack-2', 'rack-3']) await api(host, 'brokers.add', { rack });
    await until(async () => (await api<{ state: string }[]>(host, 'brokers.list')).filter((b) => b.state === 'running').length === 6);
    await api(host, 'topics.create', { name: 'orders', partitions: 6, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } });
    await api(host, 'topics.create', { name: 'audit.log', partitions: 1, replicationFactor: 1 });
    await until(async () => (await api<{ partitions: { leader: number }[] }>(host, 'topics.describe', { name: 'orders' })).partitions.every((p) => p.leader >= 0));
    await api(host, 'records.produce', { topic: 'orders', acks: 'all', records: Array.from({ length: 60 }, (_, i) => ({ key: `order-${i}`, value: `order ${i}` })) });
  });
  afterAll(async () => {
    await browser?.close();
    expect(await host?.stop()).toBe(0);
    removeDir(host.dataDir);
  });

  it('saves a screenshot of every page in light and dark at 1440×900 and at 1024×700', async () => {
    for (const set of [
      { dir: 'light', viewport: { width: 1440, height: 900 }, scheme: 'light' as const },
      { dir: 'dark', viewport: { width: 1440, height: 900 }, scheme: 'dark' as const },
      { dir: 'narrow', viewport: { width: 1024, height: 700 }, scheme: 'light' as const },
    ]) {
      const shot = screenshotter(`screens/${set.dir}`);
      const { page, errors, close } = await open(set.viewport, set.scheme);
      for (const p of PAGES) {
        await go(page, p.path, p.heading);
        // Let the page's first reads land before the picture.
        await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => undefined);
        await shot(page, p.name);
        // Nothing wider than the window: wide tables scroll inside themselves.
        expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), `${set.dir} ${p.name}`).toBe(true);
      }
      expect(errors).toEqual([]);
      await close();
    }
  }, 300_000);

  it('at 1024×700 folds the sidebar behind a Menu button, and tables scroll instead of clipping', async () => {
    const { page, errors, close } = await open({ width: 1024, height: 700 }, 'light');
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.isVisible()).toBe(false);
    const menu = page.getByTestId('menu-toggle');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await menu.click();
    await nav.waitFor();
    await nav.getByRole('link', { name: 'Brokers', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Brokers' }).waitFor();
    // The menu closes on navigation and gives the page its width back.
    await expect.poll(() => nav.isVisible()).toBe(false);

    // Brokers: each row of action buttons stays on one line, the leader count does not wrap.
    await page.getByTestId('broker-row-6').waitFor({ timeout: 15_000 });
    const tops = await page.getByTestId('broker-row-1').locator('.actions .row').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => Math.round(c.getBoundingClientRect().top))));
    expect(tops).toHaveLength(2);
    for (const row of tops) expect(new Set(row).size).toBe(1);
    // ...and in view without scrolling: the actions column is pinned to the table's right edge.
    const cut = await page.getByTestId('broker-row-1').evaluate((row) => {
      const table = row.closest('[data-testid="brokers-table"]')!.getBoundingClientRect();
      return [...row.querySelectorAll('.actions button')].map((b) => b.getBoundingClientRect()).filter((r) => r.right > table.right + 1 || r.left < table.left).length;
    });
    expect(cut).toBe(0);
    const leaders = await page.getByTestId('broker-leaders-1').boundingBox();
    expect(leaders!.height).toBeLessThan(30);

    // Configs and Messages: a table either fits or scrolls sideways inside itself; no column is cut off.
    const clipsNothing = (testId: string): Promise<boolean> =>
      page.getByTestId(testId).evaluate((el) => {
        const scrolls = [...el.querySelectorAll('*')].some((b) => b.scrollWidth > b.clientWidth + 1 && ['auto', 'scroll'].includes(getComputedStyle(b).overflowX));
        const last = [...el.querySelectorAll('thead th')].at(-1);
        return scrolls || (!!last && last.getBoundingClientRect().right <= el.getBoundingClientRect().right + 1);
      });
    await go(page, '/configs?resource=topic:orders', 'Configs');
    await page.getByTestId('config-row-retention.ms').waitFor({ timeout: 15_000 });
    expect(await clipsNothing('config-table')).toBe(true);
    // The config table needs more than 1024 px: it scrolls.
    expect(await page.getByTestId('config-table').evaluate((el) => [...el.querySelectorAll('.n-scrollbar-container')].some((b) => b.scrollWidth > b.clientWidth + 1))).toBe(true);
    await go(page, '/messages', 'Messages');
    await page.getByTestId('produce-submit').click();
    await page.getByTestId('produce-outcomes').locator('tbody tr').first().waitFor({ timeout: 15_000 });
    expect(await clipsNothing('produce-outcomes')).toBe(true);
    await page.getByTestId('consume-submit').click();
    await page.getByTestId('consume-records').locator('tbody tr').first().waitFor({ timeout: 15_000 });
    expect(await clipsNothing('consume-records')).toBe(true);
    expect(errors).toEqual([]);
    await close();
  });

  it('shows all six brokers on the balance board at 1440 px', async () => {
    const { page, close } = await open({ width: 1440, height: 900 }, 'light');
    await go(page, '/balance', 'Balance');
    // The board draws its columns once the page's first read of the brokers lands, after the heading.
    for (let id = 1; id <= 6; id++) await page.getByTestId(`broker-column-${id}`).waitFor({ timeout: 15_000 });
    for (let id = 1; id <= 6; id++) {
      const box = await page.getByTestId(`broker-column-${id}`).boundingBox();
      expect(box, `broker ${id}`).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(1440);
    }
    await close();
  });

  it('by keyboard: the skip link focuses the page heading, navigation moves focus to the new heading at the top, and focus has its own ring', async () => {
    const { page, errors, close } = await open({ width: 1440, height: 900 }, 'light');
    const active = (): Promise<string> => page.evaluate('(() => { const a = document.activeElement; return a ? `${a.tagName}:${a.textContent?.trim() ?? ""}` : ""; })()');

    // The skip link is the first stop and lands on the heading, on the same page.
    await page.keyboard.press('Tab');
    expect(await active()).toBe('A:Skip to content');
    const before = page.url();
    await page.keyboard.press('Enter');
    await expect.poll(active).toBe('H1:Overview');
    expect(page.url()).toBe(before);
    expect(await page.getByText('No such page').count()).toBe(0);

    // A long page scrolled down, then a sidebar link chosen by keyboard.
    await go(page, '/configs', 'Configs');
    await page.getByTestId('config-row-min.insync.replicas').waitFor({ timeout: 15_000 });
    await page.locator('main').evaluate((m) => m.scrollTo({ top: 2000 }));
    expect(await page.locator('main').evaluate((m) => m.scrollTop)).toBeGreaterThan(0);
    const link = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Leaders', exact: true });
    await link.focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    // Keyboard focus on a link: a ring of its own, not the hover background.
    const ring = await link.evaluate((el) => ({ outline: getComputedStyle(el).outlineStyle, width: getComputedStyle(el).outlineWidth, background: getComputedStyle(el).backgroundColor }));
    expect(ring.outline).toBe('solid');
    expect(ring.width).toBe('2px');
    expect(ring.background).toBe('rgba(0, 0, 0, 0)');
    await page.keyboard.press('Enter');
    await expect.poll(active).toBe('H1:Leaders');
    expect(await page.locator('main').evaluate((m) => m.scrollTop)).toBe(0);
    // The next Tab continues in the page, not in the sidebar.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.querySelector("main").contains(document.activeElement)')).toBe(true);
    expect(errors).toEqual([]);
    await close();
  });

  it("in the dark theme, links inside the pages keep the theme's link colour", async () => {
    const { page, close } = await open({ width: 1440, height: 900 }, 'dark');
    await go(page, '/brokers', 'Brokers');
    await go(page, '/', 'Overview');
    // The overview card's link to the Brokers page, after it was visited.
    const link = page.getByTestId('overview-brokers').getByRole('link', { name: 'Manage brokers →' });
    const color = await link.evaluate((el) => getComputedStyle(el).color);
    // Naive UI's dark primary colour (#63e2b7), not the browser's default blue or visited purple.
    expect(color).toBe('rgb(99, 226, 183)');
    await close();
  });
});
