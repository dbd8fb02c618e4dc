import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
  const heading = page.getByRole('heading', { name: label, level: 1 });
  for (let attempt = 1; ; attempt++) {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();
    try {
      await heading.waitFor({ timeout: 20_000 });
      return;
    } catch (e) {
      if (attempt >= 2) throw new Error(`${label} did not open (at ${page.url()}): ${String(e)}`);
    }
  }
}

describe('the Configs and Profiles pages in Chromium against npm run serve', () => {
  let host: ServedHost;
  let browser: Browser;
  const shot = screenshotter('configs-profiles');

  beforeAll(async () => {
    // A cluster started from the throughput profile (min.insync.replicas 1 cluster-wide), so that
    // applying the durability profile has something to raise.
    host = await startServe({ extraArgs: ['--profile', 'throughput'] });
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
  }, 180_000);

  it('shows what min.insync.replicas 3 would do while it is typed, asks before a change that lowers availability, and undoes it', async () => {
    const { page, pageErrors } = await openConsole(browser, host);
    await openPage(page, 'Configs');
    await page.getByTestId('config-resource').click();
    await page.keyboard.type('orders');
    await page.getByRole('option', { name: 'orders', exact: true }).click();
    await page.getByTestId('topic-durability').waitFor({ timeout: 15_000 });
    // The topic's durability beside a majority quorum with the same guarantee: under the throughput
    // profile (min ISR 1, unclean election on) one failure can lose an acknowledged record, so 3 replicas against 1.
    const quorum = page.getByTestId('topic-durability').getByTestId('quorum-comparison');
    await expect.poll(() => quorum.textContent(), { timeout: 10_000 }).toContain('One failure can already lose an acknowledged record here, so a majority quorum needs just one replica');
    expect(await quorum.getByRole('row', { name: /^Replicas/ }).textContent()).toBe('Replicas31');
    await page.getByTestId('config-search').locator('input').fill('min.insync.replicas');
    await page.getByTestId('config-edit-min.insync.replicas').click();
    await page.getByTestId('config-editor-input').locator('input').fill('3');
    // Before → after, for the value in the box (RF 3: min ISR 1 → 3 stops acks=all at the first failure).
    const writes = page.getByTestId('config-tolerance-writes');
    await writes.waitFor({ timeout: 10_000 });
    expect(await writes.textContent()).toContain('2 → 0');
    expect(await writes.getAttribute('class')).toContain('worse');
    expect(await page.getByTestId('config-tolerance-acknowledgedWrites').textContent()).toContain('0 → 2');
    expect(await page.getByTestId('config-durability-after').textContent()).toContain('min ISR 3');
    await page.getByTestId('config-editor').scrollIntoViewIfNeeded();
    await shot(page, 'configs-consequence-as-you-type');

    // Apply asks first, naming what it lowers; nothing changes until confirmed.
    await page.getByTestId('config-apply').click();
    const consequence = page.getByTestId('config-apply-consequence');
    await consequence.waitFor({ timeout: 15_000 });
    expect(await consequence.textContent()).toContain('acks=all writes keep working through 2 broker failures → 0 broker failures');
    expect((await api<{ configs: Record<string, string> }>(host, 'topics.describe', { name: 'orders' })).value?.configs).toEqual({});
    await shot(page, 'configs-confirm-weakening');
    await page.getByTestId('config-apply-confirm').click();
    await expect.poll(async () => (await api<{ configs: Record<string, string> }>(host, 'topics.describe', { name: 'orders' })).value?.configs, { timeout: 10_000 }).toEqual({ 'min.insync.replicas': '3' });

    // The last change can be taken back.
    await page.getByTestId('config-undo').click();
    await expect.poll(async () => (await api<{ configs: Record<string, string> }>(host, 'topics.describe', { name: 'orders' })).value?.configs, { timeout: 10_000 }).toEqual({});
    await page.getByTestId('config-last-change').waitFor({ state: 'detached', timeout: 10_000 });
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });

  it('exports the durability profile as JSON, imports a renamed copy from the file, finds no setting differences, and applies it with a dry run first', async () => {
    await api(host, 'topics.create', { name: 'wide', partitions: 12, replicationFactor: 3 });
    const { page, pageErrors, foreignRequests } = await openConsole(browser, host);
    await openPage(page, 'Profiles');
    for (const name of ['durability', 'balanced', 'throughput']) await page.getByTestId(`profile-row-${name}`).waitFor({ timeout: 15_000 });
    await page.getByTestId('profile-row-durability').click();
    await expect.poll(async () => page.getByTestId('profile-title').textContent(), { timeout: 10_000 }).toBe('durability');
    expect(await page.getByTestId('profile-setting-brokerConfigs-min.insync.replicas').textContent()).toMatch(/min\.insync\.replicas\s*2\s*Cluster default of 2/);
    // RF 3, min ISR 2, acks=all beside a majority quorum: 3 replicas against 5, writes stop after 1 failure against 2.
    const quorum = page.getByTestId('quorum-comparison');
    await expect.poll(() => quorum.textContent(), { timeout: 10_000 }).toContain('at the price that writes stop after 1 failure (min ISR 2) where the quorum keeps writing through 2');
    expect(await quorum.getByRole('row', { name: /^Replicas/ }).textContent()).toBe('Replicas35');
    expect(await quorum.getByRole('row', { name: /^Copies written/ }).textContent()).toBe('Copies written before a record is acknowledged3 (at least 2)3');
    await shot(page, 'profiles-settings');

    // Export as profile JSON and download it.
    await page.getByRole('tab', { name: 'Export' }).click();
    const jsonBox = page.getByTestId('export-file-durability.profile.json');
    await jsonBox.waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('export-files').getByRole('tab').allTextContents()).toEqual(
      expect.arrayContaining(['durability.profile.json', 'server-1.properties', 'server-6.properties', 'producer.properties', 'consumer.properties']),
    );
    // What an operator reads and exports cites Kafka's documentation and KIPs, not our own notes.
    for (const tab of await page.getByTestId('export-files').getByRole('tab').all()) {
      await tab.click();
      expect(await page.getByTestId('export-files').textContent()).not.toMatch(/\bseed\b|§|semantics/i);
    }
    await page.getByTestId('export-files').getByRole('tab', { name: 'durability.profile.json' }).click();
    await shot(page, 'profiles-export');
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 10_000 }), jsonBox.getByTestId('export-download').click()]);
    expect(download.suggestedFilename()).toBe('durability.profile.json');
    const downloaded = join(host.dataDir, 'downloaded.profile.json');
    await download.saveAs(downloaded);
    const profile = JSON.parse(readFileSync(downloaded, 'utf8')) as { name: string; brokerConfigs: Record<string, string> };
    expect(profile.name).toBe('durability');
    expect(profile.brokerConfigs['min.insync.replicas']).toBe('2');

    // A profile with bad values is refused, every bad field named.
    await page.getByTestId('profile-import-open').click();
    await page.getByTestId('import-text').locator('textarea').fill(JSON.stringify({ ...profile, name: 'broken', brokerConfigs: { 'min.insync.replicas': '0' }, producer: { acks: '2' } }));
    await page.getByTestId('import-submit').click();
    await page.getByTestId('import-errors').waitFor({ timeout: 10_000 });
    const issues = await page.getByTestId('import-error').allTextContents();
    expect(issues.some((t) => t.includes('brokerConfigs["min.insync.replicas"]') && t.includes('at least 1'))).toBe(true);
    expect(issues.some((t) => t.includes('producer.acks'))).toBe(true);
    await shot(page, 'profiles-import-errors');

    // Rename it and import it back through the file input.
    const copy = join(host.dataDir, 'durability-copy.profile.json');
    writeFileSync(copy, JSON.stringify({ ...profile, name: 'durability-copy' }, null, 2));
    await page.getByTestId('import-file').setInputFiles(copy);
    await expect.poll(async () => page.getByTestId('import-target').textContent()).toContain('durability-copy');
    await shot(page, 'profiles-import-from-file');
    await page.getByTestId('import-submit').click();
    await page.getByTestId('profile-row-durability-copy').waitFor({ timeout: 10_000 });
    await expect.poll(async () => page.getByTestId('profile-title').textContent(), { timeout: 10_000 }).toBe('durability-copy');
    expect(await page.getByTestId('profile-row-durability-copy').textContent()).toContain('imported');
    await shot(page, 'profiles-imported');

    // Importing the same name again asks before replacing it.
    await page.getByTestId('profile-import-open').click();
    await page.getByTestId('import-file').setInputFiles(copy);
    await page.getByTestId('import-submit').click();
    await page.getByTestId('import-overwrite').waitFor({ timeout: 15_000 });
    await page.getByTestId('import-overwrite-confirm').click();
    await page.getByTestId('import-modal').waitFor({ state: 'detached', timeout: 10_000 });

    // Diff against the live cluster, then against the original: no setting differences.
    await page.getByRole('tab', { name: 'Diff' }).click();
    await page.getByTestId('diff-table').waitFor({ timeout: 10_000 });
    const diff = (await page.getByTestId('diff-table').textContent()) ?? '';
    expect(diff).toContain('min.insync.replicas');
    // Racks read per broker; a topic with more partitions than the profile's default is flagged, not proposed.
    expect(diff).toContain("1: rack-a, 2: rack-b, 3: rack-c, 4: rack-a");
    expect(diff).not.toContain(',,');
    const wide = page.getByTestId('diff-table').locator('tr', { hasText: 'wide' }).filter({ hasText: 'partitions' });
    expect(await wide.getByTestId('diff-impossible').textContent()).toBe('impossible in Kafka');
    expect(await wide.textContent()).toContain('Kafka cannot remove partitions');
    await shot(page, 'profiles-diff-live');
    await page.getByTestId('diff-target').click();
    await page.getByRole('option', { name: 'Profile durability (built-in)' }).click();
    await page.getByTestId('diff-empty').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('diff-empty').textContent()).toContain('No setting differences');
    await shot(page, 'profiles-diff-no-differences');

    // Apply: the dry run plans and changes nothing; confirming applies it.
    const minIsr = async () =>
      (await api<{ name: string; value: string; source: string }[]>(host, 'configs.describe', { resource: { type: 'broker', name: '' } })).value!.find((c) => c.name === 'min.insync.replicas')!;
    await page.getByRole('tab', { name: 'Apply' }).click();
    await page.getByTestId('apply-dry-run').click();
    const plan = page.getByTestId('apply-plan');
    await plan.waitFor({ timeout: 10_000 });
    expect(await plan.getAttribute('data-applied')).toBe('false');
    expect(await page.getByTestId('plan-cluster').getByTestId('plan-change-min.insync.replicas').textContent()).toMatch(/min\.insync\.replicas\s*1\s*2\s*cluster-wide/);
    expect(await page.getByTestId('plan-restart').textContent()).toContain('auto.create.topics.enable');
    expect(await page.getByTestId('plan-manual').textContent()).toContain('6 brokers');
    expect(await minIsr()).toMatchObject({ value: '1', source: 'DEFAULT_CONFIG' });
    await shot(page, 'profiles-apply-dry-run');

    await page.getByTestId('apply-confirm').click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByTestId('apply-done').waitFor({ timeout: 10_000 });
    expect(await plan.getAttribute('data-applied')).toBe('true');
    expect(await minIsr()).toMatchObject({ value: '2', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });
    await shot(page, 'profiles-applied');

    expect(pageErrors).toEqual([]);
    expect(foreignRequests).toEqual([]);
    await page.context().close();
  }, 180_000);
});
