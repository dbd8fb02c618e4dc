/**
 * The Security page in Chromium against npm run serve with the StandardAuthorizer on: a binding
 * made with the form (its meaning in words first), the bindings grouped by principal and by
 * resource, the effective-access check answered with the deciding binding, a delete after its
 * preview; a SCRAM user created and deleted; a client quota set and the throttle a real kafkajs
 * producer gets from it; the quota drill run on the Drills page, its producer's rate drawn against
 * the quota with the throttle it got.
 */
import { Kafka, logLevel } from 'kafkajs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ClusterView } from '../app/api/views.js';
import { api, launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';

async function fill(page: Page, testId: string, value: string): Promise<void> {
  await page.getByTestId(testId).locator('input').first().fill(value);
}

/**
 * Pick an option of a select (typing it first narrows a filterable one to it), and see it chosen.
 * The page re-reads its lists every few seconds; a menu that closed before its option was clicked
 * (twice in a full clean-clone run on a loaded machine, never alone) is opened again.
 */
async function choose(page: Page, testId: string, option: string, filterable = false): Promise<void> {
  const select = page.getByTestId(testId);
  const pattern = new RegExp(`^${option}$`);
  await vi.waitFor(
    async () => {
      if (await page.locator('.n-base-select-menu:visible').count()) await page.keyboard.press('Escape');
      await select.click();
      if (filterable) await page.keyboard.type(option.replace(/\\/g, ''));
      await page.locator('.n-base-select-option:visible', { hasText: pattern }).first().click({ timeout: 5_000 });
      const input = select.locator('input');
      const shown = `${await select.innerText()} ${(await input.count()) > 0 ? await input.first().inputValue() : ''}`;
      expect(shown).toMatch(new RegExp(`(^|\\s)${option}(\\s|$)`));
    },
    { timeout: 30_000, interval: 250 },
  );
}

describe('Security page in Chromium against npm run serve', () => {
  let host: ServedHost;
  let browser: Browser;
  const shot = screenshotter('security');

  beforeAll(async () => {
    host = await startServe({ extraArgs: ['--brokers', '3', '--broker-config', 'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer', '--broker-config', 'super.users=User:admin'] });
    browser = await launchBrowser();
    await api(host, 'topics.create', { name: 'orders', partitions: 1, replicationFactor: 3 });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    expect(await host?.stop()).toBe(0);
    removeDir(host.dataDir);
  });

  it('makes a binding with the form, says what it allows, checks access with it, and deletes it after a preview', async () => {
    const { page, pageErrors } = await openConsole(browser, host);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Security', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Security' }).waitFor();
    expect(await page.getByTestId('authorizer-on').textContent()).toContain('Super users: User:admin');
    await page.getByTestId('acls-empty').waitFor();

    await fill(page, 'acl-resource-name', 'orders');
    await fill(page, 'acl-principal', 'User:bob');
    await choose(page, 'acl-operation', 'WRITE', true);
    expect(await page.getByTestId('acl-words').textContent()).toBe('Allows User:bob, from any host, to write on topic “orders” (which also lets it describe).');
    expect(await page.getByTestId('acl-command').textContent()).toContain("--add --allow-principal 'User:bob' --allow-host '*' --operation Write --topic 'orders'");
    await shot(page, 'form');
    await page.getByTestId('acl-create').click();
    const table = page.getByTestId('acls-table');
    await expect.poll(async () => (await table.textContent()) ?? '', { timeout: 15_000 }).toContain('User:bob');
    expect(await table.textContent()).toContain('Allows User:bob, from any host, to write on topic “orders”');
    await page.getByTestId('acl-group-by').getByText('By resource').click();
    await expect.poll(async () => (await table.locator('tbody tr td').first().textContent()) ?? '').toBe('topic “orders”');

    await fill(page, 'check-principal', 'User:bob');
    await fill(page, 'check-resource-name', 'orders');
    await choose(page, 'check-operation', 'DESCRIBE', true);
    await page.getByTestId('check-run').click();
    await expect.poll(async () => (await page.getByTestId('check-verdict').textContent()) ?? '').toMatch(/^Allowed.*WRITE implies DESCRIBE/);
    expect(await page.getByTestId('check-bindings').textContent()).toContain('← decides');
    await choose(page, 'check-operation', 'READ', true);
    await page.getByTestId('check-run').click();
    await expect.poll(async () => (await page.getByTestId('check-verdict').textContent()) ?? '').toMatch(/^Denied.*none allows User:bob/);
    await shot(page, 'check');

    await page.getByTestId('security-export').click();
    await expect.poll(async () => (await page.getByTestId('export-security.sh').textContent()) ?? '').toContain("--add --allow-principal User:bob --allow-host '*' --operation Write --topic orders");
    await page.keyboard.press('Escape');

    await page.getByTestId('acl-delete').first().click();
    const preview = page.getByTestId('acl-delete-preview');
    await preview.waitFor();
    expect(await page.getByTestId('acl-delete-list').textContent()).toContain('Allows User:bob');
    expect((await api<{ bindings: unknown[] }>(host, 'acls.list', {})).bindings).toHaveLength(1);
    await shot(page, 'delete-preview');
    await page.getByTestId('acl-delete-confirm').click();
    await page.getByTestId('acls-empty').waitFor({ timeout: 15_000 });
    expect((await api<{ bindings: unknown[] }>(host, 'acls.list', {})).bindings).toHaveLength(0);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('creates a SCRAM user and deletes it', async () => {
    const { page, pageErrors } = await openConsole(browser, host);
    await page.goto(`${host.origin}/#/security/users`);
    await page.getByTestId('user-form').waitFor();
    await fill(page, 'user-name', 'carol');
    await page.getByTestId('user-password').locator('input').fill('carol-secret');
    await page.getByTestId('user-save').click();
    const users = page.getByTestId('users-table');
    await expect.poll(async () => (await users.textContent()) ?? '', { timeout: 15_000 }).toContain('SCRAM-SHA-512 (4,096 iterations)');
    expect(await api(host, 'users.list', {})).toEqual([{ name: 'carol', credentials: [{ mechanism: 'SCRAM-SHA-512', iterations: 4096 }] }]);
    await shot(page, 'users');
    await page.getByTestId('user-delete-carol').click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByTestId('users-empty').waitFor({ timeout: 15_000 });
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('sets a client quota and shows the throttle a producer gets from it', async () => {
    await api(host, 'acls.create', { bindings: [{ resourceType: 'TOPIC', resourceName: 'orders', patternType: 'LITERAL', principal: 'User:ANONYMOUS', host: '*', operation: 'WRITE', permissionType: 'ALLOW' }] });
    const { page, pageErrors } = await openConsole(browser, host);
    await page.goto(`${host.origin}/#/security/quotas`);
    await page.getByTestId('quota-form').waitFor();
    await choose(page, 'quota-user-kind', 'Any \\(not by user\\)');
    await choose(page, 'quota-client-kind', 'A client id');
    await fill(page, 'quota-client', 'slow-producer');
    await page.getByTestId('quota-value').locator('input').fill('20000');
    await page.getByTestId('quota-save').click();
    await expect.poll(async () => (await page.getByTestId('quotas-table').textContent()) ?? '', { timeout: 15_000 }).toContain('producer_byte_rate = 20,000 bytes/s');

    const brokers = (await api<ClusterView>(host, 'cluster.describe', {})).bootstrapServers.split(',');
    const producer = new Kafka({ clientId: 'slow-producer', brokers, logLevel: logLevel.NOTHING }).producer({ allowAutoTopicCreation: false });
    await producer.connect();
    for (let i = 0; i < 3; i++) await producer.send({ topic: 'orders', acks: 1, messages: [{ value: Buffer.alloc(150_000, 'x') }] });
    await producer.disconnect();
    const throttles = page.getByTestId('throttles-table');
    await expect.poll(async () => (await throttles.textContent()) ?? '', { timeout: 15_000 }).toMatch(/client-id slow-producer.*producer_byte_rate.*client-id slow-producer.*\d[\d,]* ms/);
    await shot(page, 'quotas');
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 60_000);

  it("runs the quota drill and draws its producer's rate against the quota and the throttle time it got", async () => {
    const { page, pageErrors } = await openConsole(browser, host);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Drills', exact: true }).click();
    await page.getByTestId('scenario-runner').waitFor();
    await choose(page, 'scenario-select', 'A producer over its quota, throttled');
    await page.getByTestId('scenario-run').click();
    await page.getByTestId('scenario-done').waitFor({ timeout: 90_000 });
    const steps = await page.locator('[data-testid^="scenario-step-"][data-status]').evaluateAll((els) => els.map((e) => e.getAttribute('data-status')));
    expect(steps.every((s) => s === 'ok')).toBe(true);
    const chart = page.getByTestId('quota-drill-chart');
    // Sampled once a second through the ~14 s of produce: lines, not a dot.
    expect(Number(await chart.getAttribute('data-samples'))).toBeGreaterThanOrEqual(5);
    await expect.poll(async () => page.getByTestId('quota-rate-chart').locator('canvas').count()).toBe(1);
    expect(await page.getByTestId('quota-throttle-chart').locator('canvas').count()).toBe(1);
    const limit = Number(await chart.getAttribute('data-limit'));
    const peak = Number(await chart.getAttribute('data-peak-rate'));
    expect(limit).toBe(20_480);
    // Held to its quota: the rate the broker measures climbs to it and is throttled there, not far above.
    expect(peak).toBeGreaterThan(0.8 * limit);
    expect(peak).toBeLessThan(1.5 * limit);
    expect(Number(await chart.getAttribute('data-max-throttle'))).toBeGreaterThan(0);
    const caption = ((await page.getByTestId('quota-drill-caption').textContent()) ?? '').replace(/\s+/g, ' ');
    expect(caption).toMatch(/At most [\d.]+ KiB\/s, now [\d.]+ (KiB|B)\/s, against a quota of 20 KiB\/s; the longest throttle answered was [1-9]\d* ms/);
    await chart.scrollIntoViewIfNeeded();
    await shot(page, 'quota-drill');
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 150_000);
});
