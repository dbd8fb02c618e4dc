/**
 * Compaction in the console, in Chromium against `npm run serve`: the topic page's Compaction tab
 * shows each replica's log as its cleaned tail and dirty head, the dirty ratio against
 * min.cleanable.dirty.ratio, "cleaned up to offset N", the last cleaning and the tombstones
 * waiting for delete.retention.ms, and why the cleaner waits; the compaction drill writes keyed
 * updates and deletes, waits for the cleaner and says which records went and why.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';

async function goToTopicTab(page: Page, topic: string, tab: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const hash = JSON.stringify(`#/topics/${topic}?tab=${tab}`);
    await page.evaluate(`if (location.hash !== ${hash}) location.hash = ${hash};`);
    await page.reload();
    await page.getByTestId('connection-status').getByText('Live').waitFor({ timeout: 20_000 });
    const shown = await page
      .getByTestId('compaction-tab')
      .waitFor({ timeout: 10_000 })
      .then(() => true)
      .catch(() => false);
    if (shown) return;
    if (attempt >= 3) throw new Error(`the console did not show the ${tab} tab of ${topic}`);
  }
}

const texts = async (page: Page, testId: string): Promise<string[]> => (await page.getByTestId(testId).allTextContents()).map((t) => t.trim());

describe('compaction in the console (Chromium against npm run serve)', () => {
  let host: ServedHost;
  let browser: Browser;
  const shot = screenshotter('compaction');

  beforeAll(async () => {
    host = await startServe();
    browser = await launchBrowser();
    // The cleaners look for dirty logs every second (cluster-wide dynamic in Kafka too).
    await api(host, 'configs.alter', { resource: { type: 'broker', name: '' }, set: { 'log.cleaner.backoff.ms': '1000' } });
  });
  afterAll(async () => {
    await browser?.close();
    expect(await host?.stop()).toBe(0);
    removeDir(host.dataDir);
  });

  it("shows why the cleaner waits, then each replica's cleaned tail, checkpoint, last cleaning and waiting tombstones", async () => {
    await api(host, 'topics.create', { name: 'profiles', partitions: 1, replicationFactor: 3, configs: { 'cleanup.policy': 'compact', 'segment.ms': '2000', 'min.cleanable.dirty.ratio': '0.01' } });
    const { page, pageErrors } = await openConsole(browser, host);
    await goToTopicTab(page, 'profiles', 'compaction');
    expect(await page.getByTestId('compaction-policy').textContent()).toContain('compact');
    await expect.poll(() => texts(page, 'compaction-state'), { timeout: 15_000 }).toHaveLength(3);
    // Nothing written: every replica's log is empty.
    expect(new Set(await page.getByTestId('compaction-state').evaluateAll((els) => els.map((e) => e.getAttribute('data-state'))))).toEqual(new Set(['empty']));
    expect((await texts(page, 'compaction-interplay'))[0]).toContain('segment.ms (2 s)');

    const write = (entries: [string, string | null][]) => api(host, 'records.produce', { topic: 'profiles', partition: 0, acks: 'all', records: entries.map(([key, value]) => ({ key, value })) });
    await write([['user-1', 'a1'], ['user-2', 'b1'], ['user-3', 'c1']]);
    await expect.poll(() => page.getByTestId('compaction-state').first().getAttribute('data-state'), { timeout: 10_000 }).toBe('active-segment');
    expect((await texts(page, 'compaction-reason'))[0]).toContain('active segment');
    await shot(page, 'waiting-active-segment');

    await new Promise((r) => setTimeout(r, 2_100));
    await write([['user-1', 'a2'], ['user-2', null]]);
    await new Promise((r) => setTimeout(r, 2_100));
    await write([['user-3', 'c2']]); // rolls the segment: the first two writes are cleanable

    // Each replica's cleaner may clean twice (once after each roll): wait for the cleaning that reached the tombstone.
    await expect.poll(async () => (await texts(page, 'compaction-tombstones')).length, { timeout: 60_000 }).toBe(3);
    const checkpoints = await texts(page, 'compaction-checkpoint');
    expect(checkpoints.every((t) => /^Cleaned up to offset \d+/.test(t))).toBe(true);
    await expect.poll(() => page.getByTestId('compaction-band-clean').count(), { timeout: 10_000 }).toBe(3);
    const lastClean = (await texts(page, 'compaction-last-clean'))[0]!;
    expect(lastClean).toMatch(/removed \d+ of \d+ records/);
    // user-2's tombstone stays for delete.retention.ms (a day by default).
    expect((await texts(page, 'compaction-tombstones'))[0]).toMatch(/^1 tombstone waiting for delete\.retention\.ms/);
    await shot(page, 'cleaned');

    // What a reader from the start gets: each key's latest value at its offset, user-2 deleted.
    const read = await api<{ records: { offset: number; key: string; value: string | null }[] }>(host, 'records.consume', { topic: 'profiles', partition: 0, offset: 0 });
    const latest = new Map(read.records.map((r) => [r.key, r.value]));
    expect(Object.fromEntries(latest)).toEqual({ 'user-1': 'a2', 'user-2': null, 'user-3': 'c2' });
    expect(pageErrors).toEqual([]);
  }, 150_000);

  it('the compaction drill says which records went and why', async () => {
    const { page, pageErrors } = await openConsole(browser, host);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Drills', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Drills' }).waitFor();
    await page.getByTestId('scenario-select').click();
    await page.locator('.n-base-select-option', { hasText: 'Log compaction' }).click();
    expect(await page.getByTestId('scenario-explanation').textContent()).toContain('tombstone');
    await api(host, 'clock.setScale', { scale: 60 });
    await page.getByTestId('scenario-run').click();
    await page.getByTestId('scenario-done').waitFor({ timeout: 120_000 });
    const statuses = await page.locator('[data-testid^="scenario-step-"][data-status]').evaluateAll((els) => els.map((e) => e.getAttribute('data-status')));
    expect(statuses.every((s) => s === 'ok')).toBe(true);
    const report = (await page.getByTestId('scenario-step-result').last().textContent()) ?? '';
    expect(report).toContain("superseded by a later write of user-1");
    expect(report).toContain("deleted: user-4's tombstone");
    expect(report).toContain('the latest value of user-1');
    await shot(page, 'drill-report');
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
