import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';

/** A contract call over HTTP with the Bearer token (test setup and checks, as a script would). */

/**
 * Make sure the console shows the topic page of `topic`. The harness only changes the hash after
 * the start URL has loaded, and vue-router ignores hash changes until its first navigation has
 * finished (which then rewrites the URL to `#/`), so the page can stay on the overview. A reload
 * with the right hash starts the router on the right route; check, and retry a bounded number of times.
 */
async function goToTopic(page: Page, topic: string): Promise<void> {
  const path = `/topics/${topic}`;
  for (let attempt = 1; ; attempt++) {
    const hash = JSON.stringify(`#${path}`);
    // A string, not a function: e2e files are type-checked without the DOM library.
    await page.evaluate(`if (location.hash !== ${hash}) location.hash = ${hash};`);
    await page.reload();
    await page.getByTestId('connection-status').getByText('Live').waitFor({ timeout: 20_000 });
    const shown = await page
      .getByRole('heading', { level: 1, name: topic, exact: true })
      .waitFor({ timeout: 10_000 })
      .then(() => true)
      .catch(() => false);
    if (shown) return;
    if (attempt >= 3) throw new Error(`the console did not show ${path} after ${attempt} attempts`);
  }
}

const text = async (page: Page, testId: string): Promise<string> => ((await page.getByTestId(testId).first().textContent()) ?? '').trim();

describe('the topic detail page in Chromium against npm run serve', () => {
  let host: ServedHost;
  let browser: Browser;
  const shot = screenshotter('topic-detail');

  beforeAll(async () => {
    host = await startServe();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    expect(await host?.stop()).toBe(0);
    removeDir(host.dataDir);
  });

  it('shows a failover live: the leader moves, the ISR shrinks, the explainer says why; bars follow produced records; a config changes inline', async () => {
    await api(host, 'topics.create', { name: 'payments', partitions: 3, replicationFactor: 3 });
    const { page, pageErrors, foreignRequests } = await openConsole(browser, host, '/topics/payments');
    await goToTopic(page, 'payments');

    // Header and partitions: a row each; partition 0's row opens to its card.
    await page.getByTestId('partition-row-0').waitFor({ timeout: 20_000 });
    await page.getByTestId('partition-expand-0').click();
    await page.getByTestId('partition-0').waitFor({ timeout: 10_000 });
    expect(await text(page, 'topic-partition-count')).toBe('3');
    expect(await text(page, 'topic-rf')).toBe('3');
    await expect.poll(() => text(page, 'partition-0-explainer'), { timeout: 10_000 }).toContain('healthy');
    await shot(page, 'healthy');

    // 60× through the top bar, so the broker session (9 s) expires in a moment.
    await page.getByTestId('time-scale').click();
    await page.locator('.n-base-select-option', { hasText: /^60×$/ }).click();
    await expect.poll(async () => (await api<{ scale: number }>(host, 'clock.get', {})).scale, { timeout: 10_000 }).toBe(60);

    // Kill partition 0's leader from the page (confirmed).
    const leader = Number(await text(page, 'partition-0-leader'));
    expect([1, 2, 3]).toContain(leader);
    await page.getByTestId('kill-leader-0').click();
    await shot(page, 'confirm-kill');
    await page.getByRole('button', { name: `Kill broker ${leader}` }).click();

    await expect
      .poll(
        async () => {
          const l = await text(page, 'partition-0-leader');
          return l !== String(leader) && /^\d+$/.test(l);
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    await expect.poll(async () => (await text(page, 'partition-0-isr')).split(', ').map(Number).includes(leader), { timeout: 30_000 }).toBe(false);
    // The explainer that says under-replicated names why (the text read once it says so).
    let explainer = '';
    await expect.poll(async () => (explainer = await text(page, 'partition-0-explainer')), { timeout: 15_000 }).toContain('under-replicated');
    expect(explainer).toContain(`broker ${leader} is killed`);
    expect(explainer).toContain('replica.lag.time.max.ms');
    // The topic's event list follows the live events, which may land after the partition's state.
    await expect.poll(() => page.getByTestId('topic-events').locator('li[data-type="isr.shrunk"]').count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('topic-events').locator('li[data-type="leader.changed"]').count()).toBeGreaterThan(0);
    await shot(page, 'after-failover');

    // Produce through the API; the new leader's bar and the high watermark follow.
    const newLeader = Number(await text(page, 'partition-0-leader'));
    const hwBefore = Number(await text(page, 'partition-0-hw'));
    for (let i = 0; i < 3; i++) {
      const r = await api<{ errorCode: string }>(host, 'records.produce', {
        topic: 'payments',
        partition: 0,
        acks: 'all',
        records: Array.from({ length: 5 }, (_, j) => ({ key: `k${i}`, value: `payment ${i}-${j}` })),
      });
      expect(r.errorCode).toBe('NONE');
    }
    await expect.poll(async () => Number(await text(page, 'partition-0-hw')), { timeout: 10_000 }).toBe(hwBefore + 15);
    await expect.poll(async () => Number(await page.getByTestId(`replica-bar-0-${newLeader}`).getAttribute('data-leo')), { timeout: 10_000 }).toBe(hwBefore + 15);
    // The killed broker's replica stays behind, out of the ISR.
    expect(Number(await page.getByTestId(`replica-bar-0-${leader}`).getAttribute('data-leo'))).toBeLessThan(hwBefore + 15);
    expect(await page.getByTestId(`replica-bar-0-${leader}`).getAttribute('data-role')).toBe('out-of-sync');
    await expect.poll(() => text(page, 'partition-0-explainer'), { timeout: 10_000 }).toContain('15 offsets behind');
    await shot(page, 'after-produce');

    // Configs tab: the engine validates as you type, then the value applies as a topic override.
    await page.getByTestId('tab-configs').click();
    await page.getByTestId('config-edit-retention.ms').click();
    const input = page.getByTestId('config-input-retention.ms').locator('input');
    await input.fill('-5');
    await expect.poll(() => text(page, 'config-error-retention.ms'), { timeout: 10_000 }).toContain('INVALID_CONFIG');
    await shot(page, 'config-invalid');
    await input.fill('3600000');
    await page.getByTestId('config-error-retention.ms').waitFor({ state: 'detached', timeout: 10_000 });
    await expect.poll(() => page.getByTestId('config-apply-retention.ms').isEnabled(), { timeout: 10_000 }).toBe(true);
    await page.getByTestId('config-apply-retention.ms').click();
    await expect.poll(() => text(page, 'config-source-retention.ms'), { timeout: 10_000 }).toBe('topic override');
    expect(await text(page, 'config-value-retention.ms')).toBe('3600000');
    const configs = await api<{ name: string; value: string; source: string }[]>(host, 'configs.describe', { resource: { type: 'topic', name: 'payments' } });
    expect(configs.find((c) => c.name === 'retention.ms')).toMatchObject({ value: '3600000', source: 'DYNAMIC_TOPIC_CONFIG' });
    await shot(page, 'config-applied');

    // Durability tab: for acks=all, ISR replication beside a majority quorum (Kafka's design: f+1
    // replicas against 2f+1); then the explainer's sentences for acks=1, where neither survives a failure for sure.
    await page.getByTestId('tab-durability').click();
    await expect.poll(() => text(page, 'quorum-comparison'), { timeout: 10_000 }).toContain('ISR replication needs 3 replicas (f+1) where a majority quorum needs 5 (2f+1)');
    expect(await page.getByTestId('quorum-comparison').getByRole('row', { name: /^Replicas/ }).textContent()).toBe('Replicas35');
    // Eligible leader replicas (KIP-966): off on a new cluster, as in Kafka 4.0, and how Kafka turns them on.
    expect(await text(page, 'durability-elr')).toMatch(/^\s*ELR off.*kafka-features\.sh upgrade --feature eligible\.leader\.replicas\.version=1/s);
    await page.getByTestId('durability-acks').getByText('acks=1').click();
    await expect.poll(() => text(page, 'durability-summary'), { timeout: 10_000 }).toContain('acks=1');
    await expect.poll(() => text(page, 'quorum-comparison'), { timeout: 10_000 }).toContain('With acks=1 an acknowledgement stands on the leader alone');
    await shot(page, 'durability');

    expect(pageErrors).toEqual([]);
    expect(foreignRequests).toEqual([]);
  });

  it('grows the topic, previews a replication-factor change, deletes its records, and deletes it only once its name is typed', async () => {
    // Bring back any broker the failover test killed, so the new replicas can catch up.
    const brokers = await api<{ id: number; state: string }[]>(host, 'brokers.list', {});
    for (const b of brokers.filter((x) => x.state !== 'running')) await api(host, 'brokers.start', { brokerId: b.id });
    await expect
      .poll(async () => (await api<{ state: string }[]>(host, 'brokers.list', {})).every((b) => b.state === 'running'), { timeout: 30_000 })
      .toBe(true);
    await api(host, 'topics.create', { name: 'audit', partitions: 2, replicationFactor: 2 });
    const { page, pageErrors } = await openConsole(browser, host, '/topics/audit');
    await goToTopic(page, 'audit');
    await page.getByTestId('partition-row-1').waitFor({ timeout: 20_000 });

    // Add partitions: previewed as the count changes, then applied.
    await page.getByTestId('add-partitions').click();
    const count = page.getByTestId('add-partitions-count').locator('input');
    await count.fill('4');
    await count.press('Tab');
    await page.getByTestId('add-partitions-modal').getByText('Partition 3:').waitFor({ timeout: 10_000 });
    await shot(page, 'add-partitions');
    await page.getByTestId('add-partitions-apply').click();
    await expect.poll(() => text(page, 'topic-partition-count'), { timeout: 10_000 }).toBe('4');
    await page.getByTestId('partition-row-3').waitFor({ timeout: 10_000 });
    expect((await api<{ partitions: unknown[] }>(host, 'topics.describe', { name: 'audit' })).partitions).toHaveLength(4);

    // Replication factor: the plan first (nothing moves), then the reassignment.
    await page.getByTestId('change-rf').click();
    const rf = page.getByTestId('rf-input').locator('input');
    await rf.fill('3');
    await rf.press('Tab');
    await page.getByTestId('rf-preview').click();
    await page.getByTestId('rf-plan').waitFor({ timeout: 10_000 });
    expect(await text(page, 'rf-plan')).toContain('4 of 4 partitions change');
    expect((await api<{ partitions: { replicas: number[] }[] }>(host, 'topics.describe', { name: 'audit' })).partitions[0]?.replicas).toHaveLength(2);
    await shot(page, 'rf-plan');
    await page.getByTestId('rf-apply').click();
    await expect.poll(() => text(page, 'topic-rf'), { timeout: 30_000 }).toBe('3');

    // Delete records: every partition up to its high watermark; the log start follows on every replica.
    await api(host, 'records.produce', { topic: 'audit', partition: 0, acks: 'all', records: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
    await page.getByTestId('delete-records').click();
    await page.getByTestId('delete-records-apply').click();
    const outcomes = page.getByTestId('delete-records-outcomes');
    await outcomes.waitFor({ timeout: 30_000 });
    expect(await outcomes.locator('li').first().textContent()).toContain('Partition 0: log start now 3');
    await shot(page, 'delete-records');
    await page.getByTestId('delete-records-modal').getByRole('button', { name: 'Close' }).last().click();
    expect((await api<{ partitions: { logStartOffset: number }[] }>(host, 'topics.describe', { name: 'audit' })).partitions[0]?.logStartOffset).toBe(3);

    // Delete: the button stays disabled until the name is typed exactly.
    await page.getByTestId('delete-topic').click();
    const apply = page.getByTestId('delete-topic-apply');
    expect(await apply.isDisabled()).toBe(true);
    await page.getByTestId('delete-topic-confirm').locator('input').fill('audi');
    expect(await apply.isDisabled()).toBe(true);
    await page.getByTestId('delete-topic-confirm').locator('input').fill('audit');
    await shot(page, 'delete-confirm');
    await apply.click();
    await page.waitForURL(/#\/topics$/, { timeout: 10_000 });
    const topics = await api<{ name: string }[]>(host, 'topics.list', {});
    expect(topics.map((t) => t.name)).not.toContain('audit');
    expect(pageErrors).toEqual([]);
  });

  it('between a kill and the fencing, says the leader is gone and when a new one is elected instead of "healthy"', async () => {
    await api(host, 'clock.setScale', { scale: 1 });
    const brokers = await api<{ id: number; state: string; isController: boolean }[]>(host, 'brokers.list', {});
    for (const b of brokers.filter((x) => x.state !== 'running')) await api(host, 'brokers.start', { brokerId: b.id });
    await expect.poll(async () => (await api<{ state: string }[]>(host, 'brokers.list', {})).every((b) => b.state === 'running'), { timeout: 30_000 }).toBe(true);
    // A leader that does not host the controller: the fencing then comes broker.session.timeout.ms after the kill.
    const controller = (await api<{ controllerId: number }>(host, 'cluster.describe', {})).controllerId;
    const victim = brokers.map((b) => b.id).find((id) => id !== controller)!;
    const others = brokers.map((b) => b.id).filter((id) => id !== victim);
    await api(host, 'topics.create', { name: 'fencing', assignments: [[victim, ...others]] });
    const { page, pageErrors } = await openConsole(browser, host, '/topics/fencing');
    await goToTopic(page, 'fencing');
    await page.getByTestId('partition-expand-0').click();
    await expect.poll(() => text(page, 'partition-0-explainer'), { timeout: 15_000 }).toContain('healthy');

    await api(host, 'brokers.kill', { brokerId: victim });
    // The page is only in this state for broker.session.timeout.ms (9 s at 1×), and a loaded machine
    // may show it late: status, explainer and health are read together, in the same frame.
    const snapshot = (): Promise<{ status: string | null; said: string; health: string | null }> =>
      page.evaluate(
        `(() => { const q = (id) => document.querySelector('[data-testid="' + id + '"]'); return { status: q('partition-0')?.getAttribute('data-status') ?? null, said: (q('partition-0-explainer')?.textContent ?? '').trim(), health: q('topic-health')?.textContent ?? null }; })()`,
      );
    let seen: { status: string | null; said: string; health: string | null } = { status: null, said: '', health: null };
    await expect.poll(async () => (seen = await snapshot()).status, { timeout: 15_000 }).toBe('leader-unreachable');
    const said = seen.said;
    expect(said).not.toContain('is healthy');
    expect(said).toContain(`The leader's process is gone (broker ${victim} is killed (its process died)); produce and fetch to it fail until broker.session.timeout.ms (9 s) passes`);
    expect(said).toMatch(new RegExp(`a new leader is elected \\(broker ${others[0]}, the first live ISR member in replica order\\), at about .*\\d\\d:\\d\\d\\.\\d{3}`));
    expect(seen.health).not.toBeNull();
    expect(seen.health).not.toContain('All partitions in sync');
    await shot(page, 'killed-not-yet-fenced');
    // Then the controller fences it and the metadata catches up with what the page said.
    await expect.poll(() => text(page, 'partition-0-leader'), { timeout: 30_000 }).toBe(String(others[0]));
    expect(pageErrors).toEqual([]);
  });

  it('shows a topic of many partitions as a compact table: sortable, virtualized, a row opening to its card', async () => {
    // The test before leaves a broker killed and fenced; KRaft still places followers on a fenced broker,
    // so a partition placed there could not take the acks=all records below (NOT_ENOUGH_REPLICAS).
    for (const b of (await api<{ id: number; state: string }[]>(host, 'brokers.list', {})).filter((x) => x.state !== 'running')) await api(host, 'brokers.start', { brokerId: b.id });
    await expect.poll(async () => (await api<{ state: string }[]>(host, 'brokers.list', {})).every((b) => b.state === 'running'), { timeout: 30_000 }).toBe(true);
    await api(host, 'topics.create', { name: 'wide', partitions: 60, replicationFactor: 2 });
    // Partition 7 gets the most bytes, partition 0 none.
    const big = await api<{ errorCode: string }>(host, 'records.produce', { topic: 'wide', partition: 7, acks: 'all', records: Array.from({ length: 40 }, (_, i) => ({ value: `big ${i} ${'x'.repeat(200)}` })) });
    const small = await api<{ errorCode: string }>(host, 'records.produce', { topic: 'wide', partition: 3, acks: 'all', records: [{ value: 'small' }] });
    expect([big.errorCode, small.errorCode]).toEqual(['NONE', 'NONE']);
    const { page, pageErrors } = await openConsole(browser, host, '/topics/wide');
    await goToTopic(page, 'wide');
    await page.getByTestId('partition-row-0').waitFor({ timeout: 20_000 });
    // Only the rows in view are in the DOM, not 60 cards of ~370 px.
    const inDom = await page.locator('[data-testid^="partition-row-"]').count();
    expect(inDom).toBeGreaterThan(5);
    expect(inDom).toBeLessThan(60);
    expect(await page.locator('section.partition-card').count()).toBe(0);
    // Sort by size, largest first: partition 7 leads, then 3; the header says how it is sorted.
    await page.getByTestId('partition-sort-size').click();
    // The rows as shown, top to bottom (a row's element is reused for the rows that scroll into view, so DOM order is not screen order).
    const shown = (): Promise<{ testId: string; id: string; number: string }[]> =>
      page.getByTestId('partition-scroller').evaluate((el) =>
        [...el.querySelectorAll('.item')]
          .map((i) => ({ top: i.getBoundingClientRect().top, id: i.id, row: i.querySelector('[data-testid^="partition-row-"]') }))
          .sort((a, b) => a.top - b.top)
          .map((x) => ({ testId: x.row?.getAttribute('data-testid') ?? '?', id: x.id, number: x.row?.querySelector('[role="cell"]:nth-child(2)')?.textContent?.trim() ?? '?' })),
      );
    // What a screen reader reads: the rowgroup's aria-owns order.
    const readOrder = (): Promise<string[]> => page.getByTestId('partition-scroller').evaluate((el) => (el.querySelector('[role="rowgroup"]')?.getAttribute('aria-owns') ?? '').split(' '));
    const firstRows = async (): Promise<string[]> => (await shown()).slice(0, 2).map((r) => r.testId);
    await expect.poll(firstRows, { timeout: 30_000 }).toEqual(['partition-row-7', 'partition-row-3']);
    expect((await readOrder()).slice(0, 2)).toEqual((await shown()).slice(0, 2).map((r) => r.id));
    expect(await page.getByTestId('partition-sort-size').locator('xpath=..').getAttribute('aria-sort')).toBe('descending');
    // Its skew against the topic's mean: far above average.
    expect(await page.getByTestId('partition-row-7').textContent()).toMatch(/×\d\d?\.\d/);
    // The row opens to the card (explainer included) and closes again.
    await page.getByTestId('partition-expand-7').click();
    await expect.poll(() => text(page, 'partition-7-explainer'), { timeout: 30_000 }).toContain('healthy');
    expect(await page.getByTestId('partition-expand-7').getAttribute('aria-expanded')).toBe('true');
    await shot(page, 'wide-sorted-expanded');
    // Sorted back by partition with the card open, the rows make room for it where it now is: none overlaps another.
    await page.getByTestId('partition-sort-partition').click();
    await page.getByTestId('partition-scroller').evaluate((el) => el.scrollTo({ top: 0 }));
    const overlaps = (): Promise<string[]> =>
      page.getByTestId('partition-scroller').evaluate((el) => {
        const boxes = [...el.querySelectorAll('.item')].map((i) => ({ name: i.querySelector('[data-testid^="partition-row-"]')?.getAttribute('data-testid') ?? '?', r: i.getBoundingClientRect() })).sort((a, b) => a.r.top - b.r.top);
        return boxes.slice(1).flatMap((b, k) => (b.r.top < boxes[k]!.r.bottom - 1 ? [`${b.name} under ${boxes[k]!.name}`] : []));
      });
    await page.getByTestId('partition-7-explainer').waitFor({ timeout: 30_000 });
    await expect.poll(overlaps, { timeout: 10_000 }).toEqual([]);
    await page.getByTestId('partition-expand-7').click();
    await page.getByTestId('partition-7').waitFor({ state: 'detached' });
    // Scrolled to the end, the last partition is there.
    await page.getByTestId('partition-scroller').evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await page.getByTestId('partition-row-59').waitFor({ timeout: 30_000 });
    // Every row shown, after its element served other rows on the way, shows its own partition, in order; a screen reader reads them in that order.
    const atEnd = await shown();
    expect(atEnd.map((r) => r.testId)).toEqual(atEnd.map((_, k) => `partition-row-${60 - atEnd.length + k}`));
    expect(atEnd.map((r) => r.number)).toEqual(atEnd.map((_, k) => String(60 - atEnd.length + k)));
    expect(await readOrder()).toEqual(atEnd.map((r) => r.id));
    await page.getByTestId('partition-scroller').evaluate((el) => el.scrollTo({ top: 0 }));
    await expect.poll(async () => (await shown())[0]?.number, { timeout: 10_000 }).toBe('0');
    const atTop = await shown();
    expect(atTop.map((r) => r.number)).toEqual(atTop.map((_, k) => String(k)));
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it('says so when the topic does not exist', async () => {
    const { page, pageErrors } = await openConsole(browser, host, '/topics/no-such-topic');
    await goToTopic(page, 'no-such-topic');
    await page.getByTestId('topic-not-found').waitFor({ timeout: 15_000 });
    expect(await text(page, 'topic-not-found')).toContain('UNKNOWN_TOPIC_OR_PARTITION');
    await shot(page, 'not-found');
    expect(pageErrors).toEqual([]);
  });
});
