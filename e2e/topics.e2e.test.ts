import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';

/** POST a contract method with the Bearer token, as a script would; throws on an error envelope. */

/** Poll `check` every 100 ms until it returns true (bounded). */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The console on /topics (+ query). openConsole's own `path` is a second page.goto right after the
 * start URL, which can land while the router's first navigation is still loading its page and be
 * lost; a hash change once the console is live is an ordinary in-app navigation.
 */
async function openTopics(browser: Browser, host: ServedHost, query = ''): Promise<Awaited<ReturnType<typeof openConsole>>> {
  const opened = await openConsole(browser, host);
  await opened.page.evaluate(`location.hash = ${JSON.stringify(`#/topics${query}`)}`);
  await opened.page.getByRole('heading', { level: 1, name: 'Topics' }).waitFor({ timeout: 15_000 });
  return opened;
}

async function topicNames(host: ServedHost): Promise<string[]> {
  return (await api<{ name: string }[]>(host, 'topics.list', {})).map((t) => t.name);
}

async function shownTopics(page: Page): Promise<string[]> {
  return page.getByTestId('topic-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-topic') ?? ''));
}

describe('the Topics page in Chromium against npm run serve', () => {
  let host: ServedHost;
  let browser: Browser;
  const shot = screenshotter('topics');

  beforeAll(async () => {
    host = await startServe();
    browser = await launchBrowser();
    // Wait for the three brokers to register, then add a few topics as a script would.
    await until(async () => (await api<{ brokers: { state: string }[] }>(host, 'cluster.describe', {})).brokers.filter((b) => b.state === 'running').length === 3, 'three running brokers');
    const results = await api<{ name: string; errorCode: string }[]>(host, 'topics.createMany', {
      topics: [
        { name: 'audit.log', partitions: 1, replicationFactor: 3 },
        { name: 'metrics', partitions: 12, replicationFactor: 2 },
        { name: 'payments-eu', partitions: 4, replicationFactor: 3 },
      ],
    });
    expect(results.map((r) => r.errorCode)).toEqual(['NONE', 'NONE', 'NONE']);
  });
  afterAll(async () => {
    await browser?.close();
    expect(await host?.stop()).toBe(0);
    removeDir(host.dataDir);
  });

  it('creates a topic with the wizard after previewing where every replica and leader goes, opens it, finds it by search and bulk-deletes two topics', async () => {
    const { page, pageErrors, foreignRequests } = await openTopics(browser, host);
    await page.getByTestId('topic-row').first().waitFor({ timeout: 15_000 });
    await expect.poll(() => shownTopics(page)).toEqual(['audit.log', 'metrics', 'payments-eu']);
    await shot(page, 'list');

    // Step 1: Kafka's naming rules, live.
    await page.getByTestId('create-topic').click();
    const wizard = page.getByTestId('create-wizard');
    const name = wizard.getByLabel('Topic name');
    await name.fill('orders eu!');
    await wizard.getByText(/INVALID_TOPIC_EXCEPTION: Only ASCII letters/).waitFor();
    await name.fill('payments-eu');
    await wizard.getByText('TOPIC_ALREADY_EXISTS').first().waitFor();
    await name.fill('audit_log');
    await wizard.getByText(/collides with existing topic: audit\.log/).waitFor();
    expect(await wizard.getByTestId('wizard-next').isDisabled()).toBe(true);
    await name.fill('orders');
    await wizard.getByText('Available.').waitFor();
    await wizard.getByLabel('Partitions').fill('6');
    await wizard.getByLabel('Replication factor').fill('4');
    await wizard.getByLabel('Replication factor').blur();
    await wizard.getByText(/INVALID_REPLICATION_FACTOR: only 3 brokers are live/).waitFor();
    await wizard.getByLabel('Replication factor').fill('3');
    await wizard.getByLabel('Replication factor').blur();
    await shot(page, 'wizard-name');
    await wizard.getByTestId('wizard-next').click();

    // Step 2: configs, with what they mean for acks=all writes.
    await wizard.getByLabel('min.insync.replicas').fill('2');
    await wizard.getByLabel('min.insync.replicas').blur();
    await expect.poll(() => wizard.getByTestId('durability-hint').textContent()).toContain('acks=all writes go on with up to 1 replica out of the ISR');
    await wizard.getByTestId('wizard-next').click();

    // Step 3: the controller places replicas.
    await wizard.getByTestId('placement-auto').waitFor();
    await wizard.getByTestId('wizard-next').click();

    // Step 4: the engine's own placement, before anything exists.
    const grid = wizard.getByTestId('placement-grid');
    await grid.waitFor({ timeout: 15_000 });
    const rows = grid.getByTestId('placement-row');
    expect(await rows.count()).toBe(6);
    for (let p = 0; p < 6; p++) {
      const row = rows.nth(p);
      expect(await row.locator('[data-role="leader"]').count()).toBe(1);
      expect(await row.locator('[data-role="leader"], [data-role="follower"]').count()).toBe(3);
    }
    const leaders = await grid.getByTestId('placement-leaders').locator('td').allTextContents();
    expect(leaders.map((t) => Number(t.trim())).reduce((a, b) => a + b, 0)).toBe(6);
    const replicas = await grid.getByTestId('placement-replicas').locator('td').allTextContents();
    expect(replicas.map((t) => Number(t.trim()))).toEqual([6, 6, 6]);
    expect(await topicNames(host)).not.toContain('orders');
    // Each previewed partition's replica list, in order (replica #1 is the preferred leader).
    const previewed = await rows.evaluateAll((trs) =>
      trs.map((tr) =>
        [...tr.querySelectorAll('td[data-role="leader"], td[data-role="follower"]')]
          .map((td) => ({ broker: Number(td.getAttribute('data-broker')), rank: Number(td.querySelector('small')?.textContent?.replace('#', '')) }))
          .sort((a, b) => a.rank - b.rank)
          .map((c) => c.broker),
      ),
    );
    await shot(page, 'wizard-preview');

    await wizard.getByTestId('wizard-create').click();
    await page.waitForURL(/#\/topics\/orders$/, { timeout: 15_000 });
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    const created = await api<{ configs: Record<string, string>; partitions: { replicas: number[] }[] }>(host, 'topics.describe', { name: 'orders' });
    expect(created.partitions).toHaveLength(6);
    // What the review showed is what was created, follower order included.
    expect(created.partitions.map((p) => p.replicas)).toEqual(previewed);
    expect(created.configs['min.insync.replicas']).toBe('2');
    await shot(page, 'topic-page');

    // Back to the list: find it by a case-insensitive substring.
    await page.goBack();
    await page.waitForURL(/#\/topics$/);
    await page.getByTestId('topic-row').first().waitFor();
    await page.getByTestId('topic-search').locator('input').fill('RDE');
    await expect.poll(() => shownTopics(page)).toEqual(['orders']);
    await shot(page, 'search');
    await page.getByTestId('topic-search').locator('input').fill('no-such-topic');
    await page.getByTestId('topics-none-match').waitFor();
    await shot(page, 'search-no-match');
    await page.getByTestId('topic-search').locator('input').fill('');
    await expect.poll(() => shownTopics(page)).toEqual(['audit.log', 'metrics', 'orders', 'payments-eu']);

    // Sort by partition count, most first.
    await page.getByTestId('sort-partitions').click();
    await expect.poll(() => shownTopics(page)).toEqual(['metrics', 'orders', 'payments-eu', 'audit.log']);

    // Bulk delete: the confirmation lists the names, then one outcome per topic.
    await page.getByLabel('Select metrics').check();
    await page.getByLabel('Select audit.log').check();
    await expect.poll(() => page.getByTestId('selected-count').textContent()).toBe('2 selected');
    await page.getByTestId('bulk-delete').click();
    const dialog = page.getByTestId('bulk-delete-dialog');
    // The dialog loads on first use: wait for its list rather than reading it the moment it opens.
    await expect.poll(() => dialog.getByTestId('delete-list').locator('li').allTextContents(), { timeout: 10_000 }).toEqual(['audit.log', 'metrics']);
    await shot(page, 'bulk-delete-confirm');
    await dialog.getByTestId('confirm-delete').click();
    const outcomes = dialog.getByTestId('delete-outcome');
    await outcomes.first().waitFor({ timeout: 15_000 });
    expect(await outcomes.evaluateAll((els) => els.map((e) => e.getAttribute('data-outcome')))).toEqual(['NONE', 'NONE']);
    await shot(page, 'bulk-delete-done');
    await dialog.getByTestId('close-delete').click();
    await expect.poll(() => shownTopics(page)).toEqual(['orders', 'payments-eu']);
    expect(await topicNames(host)).toEqual(['orders', 'payments-eu']);
    await shot(page, 'after-delete');

    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('shows the engine’s refusal inline with Kafka’s error name and what to do, then previews a placement chosen by hand', async () => {
    const { page, pageErrors } = await openTopics(browser, host);
    await page.getByTestId('create-topic').click();
    const wizard = page.getByTestId('create-wizard');
    await wizard.getByLabel('Topic name').fill('race');
    await wizard.getByLabel('Partitions').fill('2');
    await wizard.getByLabel('Replication factor').fill('2');
    await wizard.getByLabel('Replication factor').blur();
    await wizard.getByTestId('wizard-next').click();
    await wizard.getByTestId('wizard-next').click();
    // Someone else takes the name while the wizard is open.
    await api(host, 'topics.create', { name: 'race', assignments: [[1]] }); // on broker 1: a later test kills broker 3
    await wizard.getByTestId('wizard-next').click();
    const error = wizard.getByTestId('create-error');
    await error.waitFor({ timeout: 15_000 });
    expect(await error.textContent()).toContain('TOPIC_ALREADY_EXISTS');
    expect(await error.textContent()).toContain('Pick another name, or open the existing topic.');
    expect(await wizard.getByTestId('wizard-create').isDisabled()).toBe(true);
    await shot(page, 'wizard-engine-error');

    await error.getByRole('button', { name: 'Back to Name and size' }).click();
    await wizard.getByText(/TOPIC_ALREADY_EXISTS: Topic 'race' already exists/).waitFor();
    await wizard.getByLabel('Topic name').fill('race-2');
    await wizard.getByTestId('wizard-next').click();
    await wizard.getByTestId('wizard-next').click();
    await wizard.getByTestId('placement-manual').click();
    const editor = wizard.getByTestId('assignment-editor');
    await editor.waitFor();
    const chosen = (await editor.getByTestId('assignment-row').evaluateAll((lines) => lines.map((l) => l.getAttribute('data-brokers') ?? ''))).map((b) => b.split(',').map(Number));
    expect(chosen).toHaveLength(2);
    for (const replicas of chosen) expect(new Set(replicas).size).toBe(2);
    await shot(page, 'wizard-manual-placement');
    await wizard.getByTestId('wizard-next').click();
    const rows = wizard.getByTestId('placement-grid').getByTestId('placement-row');
    await rows.first().waitFor({ timeout: 15_000 });
    for (let p = 0; p < 2; p++) {
      const leader = await rows.nth(p).locator('[data-role="leader"]').getAttribute('data-broker');
      expect(Number(leader)).toBe(chosen[p]![0]); // the first broker chosen is the preferred leader
    }
    await wizard.getByRole('button', { name: 'Cancel' }).click();
    expect(await topicNames(host)).not.toContain('race-2');
    expect(pageErrors).toEqual([]);
  });

  it('shows each topic’s records, size and rate, and flags an RF 1 topic instead of calling it healthy', async () => {
    // On broker 1: a later test kills broker 3 and expects only its own topic to go offline.
    await api(host, 'topics.create', { name: 'single-copy', assignments: [[1]] });
    for (let i = 0; i < 3; i++) await api(host, 'records.produce', { topic: 'payments-eu', acks: 'all', records: Array.from({ length: 10 }, (_, j) => ({ key: `p${i}-${j}`, value: 'payment' })) });
    const { page, pageErrors } = await openTopics(browser, host);
    const row = (name: string) => page.locator(`[data-testid="topic-row"][data-topic="${name}"]`);
    await row('payments-eu').waitFor({ timeout: 15_000 });
    await expect.poll(() => row('payments-eu').getByTestId('topic-records').textContent(), { timeout: 10_000 }).toBe('30');
    expect(await row('payments-eu').getByTestId('topic-size').textContent()).toMatch(/^\d+(\.\d+)? (B|KiB)$/);
    // The rate counts what the engine's next per-second sample saw committed, so it can trail the count by a sample.
    await expect.poll(() => row('payments-eu').getByTestId('topic-rate').textContent(), { timeout: 10_000 }).toMatch(/\/s$/);
    await expect.poll(() => row('single-copy').getByTestId('topic-status').textContent()).toBe('RF 1: no copy');
    await expect.poll(() => row('payments-eu').getByTestId('topic-status').textContent()).toBe('Healthy');
    await shot(page, 'stats-and-rf1');
    expect(pageErrors).toEqual([]);
  });

  it('shows only the topics with offline partitions when opened from the overview’s health link', async () => {
    await api(host, 'clock.setScale', { scale: 60 });
    await api(host, 'topics.create', { name: 'fragile', assignments: [[3]] });
    await api(host, 'brokers.kill', { brokerId: 3 });
    await expect
      .poll(async () => (await api<{ name: string; offlinePartitions: number }[]>(host, 'topics.list', {})).find((t) => t.name === 'fragile')?.offlinePartitions, { timeout: 20_000 })
      .toBe(1);

    const { page, pageErrors } = await openTopics(browser, host, '?health=offline');
    await expect.poll(() => shownTopics(page), { timeout: 15_000 }).toEqual(['fragile']);
    expect(await page.getByTestId('topic-status').first().textContent()).toBe('Offline');
    expect(await page.getByTestId('shown-count').textContent()).toMatch(/^1 of \d+ shown$/);
    await shot(page, 'health-offline');

    // Choosing "All topics" drops the filter from the address.
    await page.getByTestId('health-filter').click();
    await page.locator('.n-base-select-option', { hasText: 'All topics' }).click();
    await page.waitForURL(/#\/topics$/);
    await expect.poll(async () => (await shownTopics(page)).length).toBeGreaterThan(1);
    await api(host, 'brokers.start', { brokerId: 3 });
    expect(pageErrors).toEqual([]);
  });

  it('scrolling a long list shows each topic in its own row: in order, with its own checkbox and figures, as rows leave and come back', async () => {
    const names = Array.from({ length: 300 }, (_, i) => `scroll-${String(i).padStart(3, '0')}`);
    const created = await api<{ errorCode: string }[]>(host, 'topics.createMany', { topics: names.map((name) => ({ name, partitions: 1, replicationFactor: 1 })) });
    expect(created.filter((r) => r.errorCode !== 'NONE')).toEqual([]);
    await api(host, 'records.produce', { topic: 'scroll-150', acks: 'all', records: Array.from({ length: 5 }, (_, j) => ({ key: `k${j}`, value: 'v' })) });

    const { page, pageErrors } = await openTopics(browser, host);
    const row = (name: string) => page.locator(`[data-testid="topic-row"][data-topic="${name}"]`);
    await page.getByTestId('topic-search').locator('input').fill('scroll-');
    await expect.poll(() => page.getByTestId('shown-count').textContent(), { timeout: 15_000 }).toMatch(/^300 of \d+ shown$/);
    await row('scroll-001').getByTestId('topic-select').check();
    await expect.poll(() => page.getByTestId('selected-count').textContent()).toBe('1 selected');

    /** The rows in the DOM, and what they should be: from the first one shown, each the next topic at its place in the list, checked only if it is scroll-001. */
    const rowsInOrder = async () => {
      const shown = await page.getByTestId('topic-row').evaluateAll((rows) =>
        rows.map((r) => ({
          name: r.getAttribute('data-topic') ?? '',
          rowIndex: Number(r.getAttribute('aria-rowindex')),
          link: r.querySelector('[data-testid="topic-link"]')?.textContent ?? '',
          checked: (r.querySelector('[data-testid="topic-select"]') as unknown as { checked: boolean } | null)?.checked ?? false,
        })),
      );
      const first = (shown[0]?.rowIndex ?? 2) - 2;
      const expected = shown.map((_, i) => ({ name: names[first + i]!, rowIndex: first + i + 2, link: names[first + i]!, checked: names[first + i] === 'scroll-001' }));
      return { names: shown.map((r) => r.name), shown, expected };
    };

    // Down the list in steps (rows leave at the top and come in at the bottom), then to scroll-150.
    const scroller = page.getByTestId('topic-scroller');
    for (const top of [400, 1_000, 2_400, 4_000, 150 * 40]) {
      await scroller.evaluate((el, y) => (el.scrollTop = y), top);
      await expect.poll(async () => (await rowsInOrder()).names[0] !== 'scroll-000').toBe(true);
      const { shown, expected } = await rowsInOrder();
      expect(shown).toEqual(expected);
    }
    await expect.poll(async () => (await rowsInOrder()).names).toContain('scroll-150');
    await expect.poll(() => row('scroll-150').getByTestId('topic-records').textContent(), { timeout: 10_000 }).toBe('5');
    await expect.poll(() => row('scroll-151').getByTestId('topic-records').textContent(), { timeout: 10_000 }).toBe('0');
    expect((await rowsInOrder()).names).not.toContain('scroll-001');

    // Back at the top: scroll-001 is still the one checked, the figures are still each topic's own.
    await scroller.evaluate((el) => (el.scrollTop = 0));
    await expect.poll(async () => (await rowsInOrder()).names[0]).toBe('scroll-000');
    const back = await rowsInOrder();
    expect(back.shown).toEqual(back.expected);
    expect(await row('scroll-001').getByTestId('topic-select').isChecked()).toBe(true);
    await expect.poll(() => row('scroll-000').getByTestId('topic-records').textContent(), { timeout: 10_000 }).toBe('0');
    expect(await page.getByTestId('selected-count').textContent()).toBe('1 selected');
    expect(pageErrors).toEqual([]);
  });
});
