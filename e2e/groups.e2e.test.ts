/**
 * The Consumer groups page in Chromium against npm run serve: a consuming group with its members,
 * assignment, offsets and lag; a reset refused while it has members, previewed and applied once it
 * is empty; the group deleted.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';

async function untilTrue(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function openGroups(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Groups', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Consumer groups' }).waitFor();
}

async function cells(page: Page, row: number): Promise<string[]> {
  return (await page.getByTestId('group-partitions').locator('tbody tr').nth(row).locator('td').allTextContents()).map((t) => t.trim());
}

describe('Consumer groups page in Chromium against npm run serve', () => {
  let host: ServedHost;
  let browser: Browser;
  const shot = screenshotter('groups');

  beforeAll(async () => {
    host = await startServe();
    browser = await launchBrowser();
    await untilTrue(async () => (await api<{ state: string }[]>(host, 'brokers.list', {})).every((b) => b.state === 'running'));
    await api(host, 'clock.setScale', { scale: 30 });
    await api(host, 'topics.create', { name: 'payments', partitions: 2, replicationFactor: 3 });
    for (const partition of [0, 1]) {
      await untilTrue(async () => (await api<{ errorCode: string }>(host, 'records.produce', { topic: 'payments', partition, acks: 'all', records: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] })).errorCode === 'NONE');
    }
    await api(host, 'consumers.start', { groupId: 'ledger', topics: ['payments'], members: 2 });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    expect(await host?.stop()).toBe(0);
    removeDir(host.dataDir);
  });

  it('shows the group, its members with their assignment, and committed offset, log end and lag per partition', async () => {
    const { page, pageErrors } = await openConsole(browser, host);
    await openGroups(page);
    const row = page.getByTestId('group-row-ledger');
    await expect.poll(async () => (await row.textContent()) ?? '', { timeout: 30_000 }).toMatch(/Stable/);
    await row.click();
    await page.getByTestId('group-detail').waitFor();
    await expect.poll(async () => [await cells(page, 0), await cells(page, 1)].map((c) => c.slice(0, 5).join(' ')), { timeout: 30_000 }).toEqual(['payments 0 3 3 0', 'payments 1 3 3 0']);
    const members = page.getByTestId('members-table').locator('tbody tr');
    expect(await members.count()).toBe(2);
    expect((await members.allTextContents()).join(' ')).toMatch(/ledger-consumer-1.*payments \[\d\]/);
    expect(await page.getByTestId('group-coordinator').textContent()).toMatch(/broker \d \(leader of __consumer_offsets-\d+\)/);
    expect(await page.getByTestId('group-protocol').textContent()).toContain('consumer / range');
    expect(await page.getByTestId('reset-needs-empty').textContent()).toContain('Now: Stable');
    expect(await page.getByTestId('group-delete').isDisabled()).toBe(true);
    await page.getByTestId('lag-chart').waitFor();
    await shot(page, 'stable-group');
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('once the consumers leave: previews a reset to the earliest offsets, applies it, sees the lag, and deletes the group', async () => {
    await api(host, 'consumers.stop', { groupId: 'ledger' });
    const { page, pageErrors } = await openConsole(browser, host);
    await openGroups(page);
    const row = page.getByTestId('group-row-ledger');
    await expect.poll(async () => (await row.textContent()) ?? '', { timeout: 30_000 }).toMatch(/Empty/);
    await row.click();
    await page.getByTestId('reset-preview').waitFor();
    await expect.poll(() => page.getByTestId('reset-needs-empty').count()).toBe(0);
    await page.getByTestId('reset-preview').click();
    const preview = page.getByTestId('reset-preview-table').locator('tbody tr');
    await expect.poll(() => preview.count()).toBe(2);
    expect((await preview.nth(0).locator('td').allTextContents()).map((t) => t.trim()).slice(0, 4)).toEqual(['payments', '0', '3', '0']);
    expect(await cells(page, 0)).toContain('3'); // the preview committed nothing
    await shot(page, 'reset-preview');
    await page.getByTestId('reset-apply').click();
    await expect.poll(() => page.getByTestId('group-total-lag').textContent(), { timeout: 15_000 }).toBe('6');
    expect((await cells(page, 0)).slice(0, 5)).toEqual(['payments', '0', '0', '3', '3']);

    await page.getByTestId('group-delete').click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.getByTestId('group-row-ledger').count(), { timeout: 15_000 }).toBe(0);
    expect((await api<{ groupId: string }[]>(host, 'groups.list', {})).map((g) => g.groupId)).not.toContain('ledger');
    await shot(page, 'deleted');
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
