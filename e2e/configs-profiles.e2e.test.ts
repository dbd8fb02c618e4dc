import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';

/** A contract call over the host's HTTP API with the Bearer token, as a script would make it. */
async function api<T>(host: ServedHost, method: string, input: unknown): Promise<{ ok: boolean; value?: T; error?: { code: string; message: string } }> {
  const res = await fetch(`${host.origin}/api/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  return (await res.json()) as { ok: boolean; value?: T; error?: { code: string; message: string } };
}

/** Retry until the brokers have registered (a fresh cluster fences them for a moment). */
async function createTopic(host: ServedHost, name: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await api(host, 'topics.create', { name, partitions: 3, replicationFactor: 3 });
    if (r.ok) return;
    if (Date.now() > deadline) throw new Error(`topics.create ${name}: ${r.error?.code} ${r.error?.message}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const row = (page: Page, name: string) => page.getByTestId(`config-row-${name}`);

/**
 * Open a page from the sidebar. (openConsole's second goto to `/#/path` can race the router's
 * initial navigation and land on `#/`; a click is what a user does anyway.)
 */
async function openPage(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();
  await page.getByRole('heading', { name: label, level: 1 }).waitFor({ timeout: 15_000 });
}

describe('the Configs and Profiles pages in Chromium against npm run serve', () => {
  let host: ServedHost;
  let browser: Browser;
  const shot = screenshotter('configs-profiles');

  beforeAll(async () => {
    host = await startServe();
    browser = await launchBrowser();
    await createTopic(host, 'orders');
  });
  afterAll(async () => {
    await browser?.close();
    expect(await host?.stop()).toBe(0);
    removeDir(host.dataDir);
  });

  it('edits a topic’s retention.ms: an invalid value shows Kafka’s INVALID_CONFIG, a valid one applies as a topic override, and reset brings back the default', async () => {
    const { page, pageErrors, foreignRequests } = await openConsole(browser, host);
    await openPage(page, 'Configs');
    await row(page, 'min.insync.replicas').waitFor({ timeout: 15_000 });
    await shot(page, 'configs-cluster-defaults');

    // Pick the topic in the searchable resource select.
    await page.getByTestId('config-resource').click();
    await page.keyboard.type('orders');
    await page.getByRole('option', { name: 'orders', exact: true }).click();
    await page.getByTestId('topic-durability').waitFor({ timeout: 15_000 });
    await expect.poll(() => page.url()).toContain('resource=topic:orders');
    await expect.poll(async () => row(page, 'retention.ms').getAttribute('data-source')).toBe('DEFAULT_CONFIG');

    await page.getByTestId('config-search').locator('input').fill('retention.ms');
    await expect.poll(async () => page.locator('[data-testid^="config-row-"]').count()).toBe(2);
    await page.getByTestId('config-edit-retention.ms').click();
    const input = page.getByTestId('config-editor-input').locator('input');
    await input.fill('two hours');
    const invalid = page.getByTestId('config-validation-error');
    await invalid.waitFor({ timeout: 10_000 });
    expect(await invalid.textContent()).toMatch(/INVALID_CONFIG.*retention\.ms/);
    expect(await page.getByTestId('config-apply').isDisabled()).toBe(true);
    await page.getByTestId('config-editor').scrollIntoViewIfNeeded();
    await shot(page, 'configs-invalid-value');

    await input.fill('7200000');
    const ok = page.getByTestId('config-validation-ok');
    await ok.waitFor({ timeout: 10_000 });
    expect(await ok.textContent()).toContain('2 h');
    expect(await page.getByTestId('config-consequence').textContent()).toMatch(/Durability:.*consumed/);
    await page.getByTestId('config-editor').scrollIntoViewIfNeeded();
    await shot(page, 'configs-valid-value-consequence');
    // Validation changed nothing yet.
    expect((await api<{ configs: Record<string, string> }>(host, 'topics.describe', { name: 'orders' })).value?.configs).toEqual({});

    await page.getByTestId('config-apply').click();
    await expect.poll(async () => row(page, 'retention.ms').getAttribute('data-source'), { timeout: 10_000 }).toBe('DYNAMIC_TOPIC_CONFIG');
    expect(await row(page, 'retention.ms').getByTestId('config-source').textContent()).toBe('Topic override');
    expect(await row(page, 'retention.ms').getByTestId('config-value').textContent()).toContain('7200000');
    expect((await api<{ configs: Record<string, string> }>(host, 'topics.describe', { name: 'orders' })).value?.configs).toEqual({ 'retention.ms': '7200000' });
    await page.getByTestId('config-modified-only').click();
    await expect.poll(async () => page.locator('[data-testid^="config-row-"]').count()).toBe(1);
    await shot(page, 'configs-applied-topic-override');

    await page.getByTestId('config-reset-retention.ms').click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(async () => row(page, 'retention.ms').count(), { timeout: 10_000 }).toBe(0); // no longer modified
    await page.getByTestId('config-modified-only').click();
    await expect.poll(async () => row(page, 'retention.ms').getAttribute('data-source')).toBe('DEFAULT_CONFIG');
    expect(await row(page, 'retention.ms').getByTestId('config-value').textContent()).toContain('604800000');
    expect((await api<{ configs: Record<string, string> }>(host, 'topics.describe', { name: 'orders' })).value?.configs).toEqual({});
    await shot(page, 'configs-reset');

    expect(pageErrors).toEqual([]);
    expect(foreignRequests).toEqual([]);
    await page.context().close();
  });
});
