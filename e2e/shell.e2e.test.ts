import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';

describe('the console shell in Chromium against npm run serve', () => {
  let host: ServedHost;
  let browser: Browser;
  const shot = screenshotter('shell');

  beforeAll(async () => {
    host = await startServe();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    expect(await host?.stop()).toBe(0);
    removeDir(host.dataDir);
  });

  it('opens from the start URL, shows the live connection and the controller, and reaches every page from the navigation', async () => {
    const { page, foreignRequests, pageErrors, failedResponses } = await openConsole(browser, host);
    await expect.poll(async () => page.getByTestId('controller-id').textContent(), { timeout: 15_000 }).toMatch(/^\d+$/);
    await shot(page, 'overview');
    for (const label of ['Brokers', 'Topics', 'Balance', 'Leaders', 'Configs', 'Profiles', 'Drills', 'Messages']) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();
      await expect.poll(() => page.title(), { timeout: 15_000 }).toBe(`${label} · Replica Studio`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
    }
    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
    // Not even the browser's own icon request fails (it used to 404 on /favicon.ico).
    expect(failedResponses).toEqual([]);
  });

  it('shows the app icon as the page icon', async () => {
    const { page, context } = await openConsole(browser, host);
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    expect(href).toBeTruthy();
    const icon = await page.request.get(new URL(href!, page.url()).toString());
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toContain('image/svg+xml');
    expect(await icon.text()).toContain('<svg');
    await context.close();
  });

  it('refuses the page without the token', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const response = await page.goto(`${host.origin}/`);
    expect(response?.status()).toBe(401);
    await context.close();
  });
});
