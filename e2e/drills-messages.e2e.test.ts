import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';

/** Call the contract over HTTP with the Bearer token, as a script would. */

async function untilTrue(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Open a page through the navigation. (openConsole's `path` races the app's first navigation: the
 * router's initial replace to `#/` can land after the hash change and undo it.)
 */
async function openPage(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: label }).waitFor();
}

async function texts(page: Page, testId: string): Promise<string[]> {
  return (await page.getByTestId(testId).allTextContents()).map((t) => t.trim());
}

describe('Messages and Drills pages in Chromium against npm run serve', () => {
  let host: ServedHost;
  let browser: Browser;
  const shot = screenshotter('drills-messages');

  beforeAll(async () => {
    host = await startServe();
    browser = await launchBrowser();
    await untilTrue(async () => (await api<{ state: string }[]>(host, 'brokers.list', {})).every((b) => b.state === 'running'));
  });
  afterAll(async () => {
    await browser?.close();
    expect(await host?.stop()).toBe(0);
    removeDir(host.dataDir);
  });

  it('produces 3 records with acks=all, sees their offsets, and consumes the same values back from offset 0 with HW 3', async () => {
    await api(host, 'topics.create', { name: 'orders', partitions: 1, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } });
    const { page, pageErrors } = await openConsole(browser, host);
    await openPage(page, 'Messages');
    await page.getByTestId('produce-panel').waitFor();
    await expect.poll(() => page.getByTestId('produce-topic').textContent()).toContain('orders');
    await page.getByTestId('acks-all').click();
    await page.getByTestId('produce-count').locator('input').fill('3');
    await page.getByTestId('produce-key').locator('input').fill('customer-{n}');
    await page.getByTestId('produce-value').locator('textarea').fill('order #{n}');
    await shot(page, 'produce-form');

    await page.getByTestId('produce-submit').click();
    await expect.poll(() => texts(page, 'outcome-offset'), { timeout: 15_000 }).toHaveLength(3);
    expect((await texts(page, 'outcome-offset')).sort()).toEqual(['0', '1', '2']);
    expect(await page.getByTestId('produce-summary').textContent()).toMatch(/3\s+written/);
    await shot(page, 'produce-outcomes');

    await page.getByTestId('consume-offset').locator('input').fill('0');
    await page.getByTestId('consume-submit').click();
    await expect.poll(() => texts(page, 'record-value'), { timeout: 15_000 }).toEqual(['order #0', 'order #1', 'order #2']);
    expect(await texts(page, 'record-offset')).toEqual(['0', '1', '2']);
    expect(await page.getByTestId('consume-hw').textContent()).toBe('3');
    expect(await page.getByTestId('consume-lso').textContent()).toBe('0');
    await page.getByTestId('consume-end').waitFor();
    await page.getByTestId('consume-panel').scrollIntoViewIfNeeded();
    await shot(page, 'consumed');
    expect(pageErrors).toEqual([]);
  });

  it('lets the partitioner place each record of one produce by its own key (murmur2, as Kafka does)', async () => {
    await api(host, 'topics.create', { name: 'keyed', partitions: 12, replicationFactor: 3 });
    const { page, pageErrors } = await openConsole(browser, host);
    await openPage(page, 'Messages');
    await page.getByTestId('produce-topic').click();
    await page.locator('.n-base-select-option', { hasText: /^keyed$/ }).click();
    await expect.poll(() => page.getByTestId('produce-partition').textContent()).toContain('Partitioner chooses');
    await page.getByTestId('produce-count').locator('input').fill('5');
    await page.getByTestId('produce-key').locator('input').fill('order-{n}');
    await page.getByTestId('produce-value').locator('textarea').fill('item {n}');
    await page.getByTestId('produce-submit').click();
    await expect.poll(() => texts(page, 'outcome-partition'), { timeout: 15_000 }).toHaveLength(5);
    // murmur2("order-0" … "order-4"), toPositive, modulo 12: what a Java producer would pick.
    expect(await texts(page, 'outcome-partition')).toEqual(['4', '10', '3', '3', '2']);
    expect(pageErrors).toEqual([]);
  });

  it('runs the "Leader failover" scenario at 60× and shows a leader change and an ISR shrink on the timeline', async () => {
    const { page, pageErrors } = await openConsole(browser, host);
    await openPage(page, 'Drills');
    await page.getByTestId('scenario-runner').waitFor();
    await shot(page, 'drills-opened');

    await page.getByTestId('drill-time-scale').click();
    await page.locator('.n-base-select-option', { hasText: /^60×/ }).click();
    await untilTrue(async () => (await api<{ scale: number }>(host, 'clock.get', {})).scale === 60);
    await expect.poll(() => page.getByTestId('drill-time-scale').textContent()).toContain('60×');
    expect(await page.getByTestId('scenario-select').textContent()).toContain('Leader failover');

    // Step by step first: bring the brokers back, then wait until they run.
    await page.getByTestId('scenario-next').click();
    await expect.poll(() => page.getByTestId('scenario-step-0').getAttribute('data-status'), { timeout: 30_000 }).toBe('ok');
    await shot(page, 'scenario-first-step');

    await page.getByTestId('scenario-run').click();
    await expect.poll(() => page.getByTestId('scenario-step-4').getAttribute('data-status'), { timeout: 60_000 }).toBe('ok');
    await page.getByTestId('replica-panel').scrollIntoViewIfNeeded();
    await shot(page, 'leader-killed');
    await page.getByTestId('scenario-done').waitFor({ timeout: 90_000 });
    const statuses = await page.locator('[data-testid^="scenario-step-"][data-status]').evaluateAll((els) => els.map((e) => e.getAttribute('data-status')));
    expect(statuses.every((s) => s === 'ok')).toBe(true);
    // Finished: nothing left to run, and the clock is back to real time.
    expect(await page.getByTestId('scenario-run').isDisabled()).toBe(true);
    expect(await page.getByTestId('scenario-next').isDisabled()).toBe(true);
    await page.getByTestId('scenario-clock-restored').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('scenario-clock-restored').textContent()).toContain('back to 1× (the run went at 60×)');
    expect((await api<{ scale: number }>(host, 'clock.get', {})).scale).toBe(1);
    await expect.poll(() => page.getByTestId('drill-time-scale').textContent()).toContain('1×');
    // A produce step is timed by its real round trip, not by the cluster time that passed at 60× meanwhile.
    const produceTime = (await page.getByTestId('scenario-step-3').getByTestId('scenario-step-time').textContent()) ?? '';
    expect(produceTime).toMatch(/answered in \d+(\.\d+)? (ms|s)/);
    expect(produceTime).not.toContain('of cluster time');

    const timeline = page.getByTestId('drill-timeline');
    await timeline.locator('[data-type="leader.changed"]').first().waitFor();
    await timeline.locator('[data-type="isr.shrunk"]').first().waitFor();
    // The kill: the controller fenced the leader, elected another ISR member and shrank the ISR
    // (at 60× an auto-rebalance back to the preferred leader may follow a few seconds later).
    await expect.poll(() => timeline.locator('[data-type="leader.changed"]').allTextContents()).toContainEqual(expect.stringMatching(/drill-1-0: leader \d → \d, epoch \d+ \(broker-fenced\)/));
    await expect.poll(() => timeline.locator('[data-type="isr.shrunk"]').allTextContents()).toContainEqual(expect.stringMatching(/drill-1-0: ISR \[.*\] → \[.*\], removed \d \(broker-fenced\)/));
    // The scenario watched its topic; every replica is back in the ISR at the end.
    expect(await page.getByTestId('drill-topic').textContent()).toContain('drill-1');
    await expect.poll(() => page.locator('[data-testid^="replica-"][data-testid$="-isr"]').allTextContents()).toEqual(['In ISR', 'In ISR', 'In ISR']);
    await shot(page, 'scenario-finished');
    await timeline.scrollIntoViewIfNeeded();
    await shot(page, 'timeline');
    expect(pageErrors).toEqual([]);
  });
});
