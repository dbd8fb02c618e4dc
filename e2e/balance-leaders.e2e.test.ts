import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';

/** Bounded polling for API state. */
async function until<T>(check: () => Promise<T>, timeoutMs = 30_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('Balance and Leaders pages in Chromium against npm run serve', () => {
  let host: ServedHost;
  let browser: Browser;
  let page: Page;
  const shot = screenshotter('balance-leaders');

  /** The contract over HTTP with the Bearer token, as a script would call it. */
  async function api<T = unknown>(method: string, body: object = {}): Promise<T> {
    const res = await fetch(`${host.origin}/api/${method}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${host.token}` }, body: JSON.stringify(body) });
    const out = (await res.json()) as { ok: boolean; value: T; error?: { code: string; message: string } };
    if (!out.ok) throw new Error(`${method}: ${out.error?.code} ${out.error?.message}`);
    return out.value;
  }
  type Broker = { id: number; state: string };
  type Topic = { partitions: { partition: number; leader: number; replicas: number[]; isr: number[] }[] };
  type LeaderBalance = { notPreferred: unknown[]; brokers: { brokerId: number; leaders: number }[] };

  async function nav(label: string): Promise<void> {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: label }).waitFor();
  }

  beforeAll(async () => {
    host = await startServe();
    browser = await launchBrowser();
    await until(async () => (await api<Broker[]>('brokers.list')).every((b) => b.state === 'running'));
    // A skewed cluster: broker 4 joins after every topic was placed on brokers 1–3 only.
    await api('brokers.add', { id: 4 });
    await until(async () => (await api<Broker[]>('brokers.list')).find((b) => b.id === 4)?.state === 'running');
    await api('topics.create', { name: 'orders', assignments: [[1, 2], [2, 3], [3, 1], [1, 2], [2, 3], [3, 1]] });
    await api('topics.create', { name: 'payments', assignments: [[1, 3], [2, 1], [3, 2]] });
    // 1.5 MB per orders partition: more than one replica fetch carries (1 MiB), so a throttled move is seen catching up.
    const values = Array.from({ length: 500 }, (_, k) => ({ value: `${'r'.repeat(1000)}${k}` }));
    for (let partition = 0; partition < 6; partition++) {
      for (let i = 0; i < 3; i++) await api('records.produce', { topic: 'orders', partition, acks: 'all', records: values });
    }
    for (let partition = 0; partition < 3; partition++) await api('records.produce', { topic: 'payments', partition, acks: 'all', records: values.slice(0, 50) });
    ({ page } = await openConsole(browser, host));
    await nav('Balance');
  });
  afterAll(async () => {
    await browser?.close();
    expect(await host?.stop()).toBe(0);
    removeDir(host.dataDir);
  });

  it('shows broker columns and builds a plan by drag and drop and by keyboard, refusing a broker that already holds the partition', async () => {
    await page.getByTestId('broker-column-4').waitFor();
    await expect.poll(() => page.getByTestId('broker-counts-4').textContent()).toContain('0 replicas');
    await expect.poll(() => page.getByTestId('broker-counts-1').textContent()).toContain('6 replicas');
    await expect.poll(() => page.getByTestId('replica-chip-orders-0-1').getAttribute('data-leader')).toBe('true');
    await shot(page, 'board-skewed');

    // orders-0 lives on 1 and 2: dropping its replica from 1 onto 2 is refused and explained.
    await page.getByTestId('replica-chip-orders-0-1').dragTo(page.getByTestId('broker-column-2'));
    await expect.poll(() => page.getByTestId('plan-check').textContent()).toMatch(/Refused: broker 2 already holds a replica of orders-0/);
    expect(await page.getByTestId('pending-summary').textContent()).toContain('0 partitions');

    // Onto broker 4 it is accepted: RF unchanged, broker 4 becomes the preferred leader.
    await page.getByTestId('replica-chip-orders-0-1').dragTo(page.getByTestId('broker-column-4'));
    await expect.poll(() => page.getByTestId('pending-summary').textContent()).toContain('1 partitions · 1 replica moves · 1 leader changes');
    expect(await page.getByTestId('plan-check').textContent()).toContain('Replication factor unchanged (2).');
    await expect.poll(() => page.getByTestId('broker-counts-4').textContent()).toContain('0 → 1 replicas');
    await page.getByTestId('replica-chip-orders-0-1').and(page.locator('[data-leaving="true"]')).waitFor();

    // The leader badge dragged onto broker 2 (which holds orders-0's other replica) moves leadership there.
    await page.getByTestId('leader-badge-orders-0-4').dragTo(page.getByTestId('broker-column-2'));
    await expect.poll(() => page.getByTestId('replica-chip-orders-0-2').getAttribute('data-leader')).toBe('true');
    await shot(page, 'board-dragged');

    // Keyboard: focus a chip, Enter, pick the target broker, move.
    await page.getByTestId('replica-chip-payments-0-3').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('move-bar').waitFor();
    await page.getByTestId('move-target-select').click();
    await page.locator('.n-base-select-option', { hasText: 'Broker 4 — ok' }).click();
    await page.getByTestId('move-button').click();
    await expect.poll(() => page.getByTestId('pending-summary').textContent()).toContain('2 partitions');
    await shot(page, 'board-keyboard');

    await page.getByTestId('clear-plan').click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.getByTestId('pending-summary').textContent()).toContain('0 partitions');
  });

  it('suggests a plan whose balancedness beats the current one, executes it with a throttle and watches the new replicas catch up', async () => {
    await page.getByTestId('suggest-button').click();
    await page.getByTestId('suggestion').waitFor();
    const before = Number(await page.getByTestId('balancedness-before').textContent());
    const after = Number(await page.getByTestId('balancedness-after').textContent());
    expect(after).toBeGreaterThan(before);
    expect(await page.getByTestId('suggested-moves').locator('tbody tr').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('goals-table').textContent()).toContain('ReplicaDistributionGoal');
    // The goals' figures add up to the plan's totals (each net move credited to one goal).
    const sum = async (testId: string): Promise<number> => (await page.getByTestId(testId).allTextContents()).reduce((n, t) => n + Number(t), 0);
    const replicaMoves = Number(await page.getByTestId('suggest-replica-moves').textContent());
    const leaderChanges = Number(await page.getByTestId('suggest-leader-changes').textContent());
    expect(replicaMoves).toBeGreaterThan(0);
    expect(await sum('goal-replica-moves')).toBe(replicaMoves);
    expect(await sum('goal-leader-changes')).toBe(leaderChanges);
    expect(Number(await page.getByTestId('goals-total-replica-moves').textContent())).toBe(replicaMoves);
    // Broker 4 joined without a rack beside brokers on racks: the plan says what it cannot judge.
    expect(await page.getByTestId('plan-warning').textContent()).toContain('Broker 4 has no broker.rack while broker 1, 2, 3 have one');
    expect(await page.getByTestId('goal-reason-RackAwareGoal').textContent()).toContain('Met only as far as racks are known');
    // A goal left unmet says why; a soft one is not shown as an error.
    for (const row of await page.getByTestId('goals-table').locator('tbody tr').all()) {
      const text = (await row.textContent()) ?? '';
      if (/violated|not met/.test(text)) expect(await row.locator('[data-testid^="goal-reason-"]').count()).toBe(1);
    }
    await shot(page, 'suggestion');

    await page.getByTestId('execute-suggestion').click();
    await page.getByTestId('execute-modal').waitFor();
    // 0.02 MiB/s (≈ 20 kB/s): after the first 1 MiB fetch the throttle holds each new replica back for a while.
    await page.getByTestId('throttle-input').locator('input').fill('0.02');
    await page.getByTestId('throttle-input').locator('input').blur();
    // Entered in MiB/s, sent as Kafka's bytes/s, with the time the copy will take at that rate.
    await expect.poll(() => page.getByTestId('execute-modal').textContent()).toContain('--throttle 20972 bytes/s');
    expect(await page.getByTestId('throttle-estimate').textContent()).toMatch(/Estimated copy time at this throttle: about \d+(\.\d+)? (s|min|h) — broker \d receives the most/);
    await shot(page, 'execute-dialog');
    await page.getByTestId('confirm-execute').click();
    await page.getByTestId('active-reassignments').waitFor();
    const catchUp = page.locator('[data-testid^="catch-up-orders-"]').first();
    await expect.poll(() => catchUp.textContent(), { timeout: 20_000 }).toMatch(/broker 4: [\d,]+ \/ 1,500/);
    // Overall and per partition: how many of the new replicas have caught up.
    expect(await page.getByTestId('reassignment-overall-text').textContent()).toMatch(/^\d+ of \d+ new replicas caught up$/);
    expect(await page.locator('[data-testid^="progress-orders-"]').first().textContent()).toMatch(/\d+ of \d+ new replicas? caught up/);
    await shot(page, 'progress');

    // Speed replication up through the top bar's time scale.
    await page.getByTestId('time-scale').click();
    await page.locator('.n-base-select-option', { hasText: '60×' }).click();
    await page.getByTestId('reassignment-complete').waitFor({ timeout: 90_000 });
    const overall = (await page.getByTestId('reassignment-overall-text').textContent()) ?? '';
    const [done, total] = overall.match(/\d+/g)!.map(Number);
    expect(done).toBe(total);
    expect(await page.getByTestId('verify-results').textContent()).toContain('completed');
    await expect.poll(() => page.getByTestId('broker-counts-4').textContent()).not.toContain('0 replicas');
    await shot(page, 'moved');

    const orders = await api<Topic & { configs: Record<string, string> }>('topics.describe', { name: 'orders' });
    expect(orders.partitions.some((p) => p.replicas.includes(4))).toBe(true);
    // Verify removed the throttles.
    expect(orders.configs['follower.replication.throttled.replicas']).toBeUndefined();
  });

  it('exports the current assignment as the JSON kafka-reassign-partitions.sh reads', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-current').click()]);
    expect(download.suggestedFilename()).toBe('current-assignment.json');
    const json = JSON.parse(readFileSync((await download.path())!, 'utf8')) as { version: number; partitions: { topic: string; partition: number; replicas: number[]; log_dirs: string[] }[] };
    expect(json.version).toBe(1);
    expect(json.partitions).toHaveLength(9);
    const orders = await api<Topic>('topics.describe', { name: 'orders' });
    for (const p of orders.partitions) expect(json.partitions.find((x) => x.topic === 'orders' && x.partition === p.partition)?.replicas).toEqual(p.replicas);
  });

  it('lists partitions off their preferred leader after a broker restart, previews the preferred election and runs it', async () => {
    // The controller's auto leader rebalance runs 300 s of cluster time after an imbalance shows
    // up (leader.imbalance.check.interval.seconds). Let any pending one come due at 60× (about 5 s
    // real, measured on the engine's clock, not by a sleep: a loaded machine may be slower), then
    // go back to real time — which first runs whatever is due — so it cannot race the election
    // below (and restart a broker that does not host the controller).
    await api('clock.setScale', { scale: 60 });
    await until(async () => (await api<LeaderBalance>('leaders.balance')).notPreferred.length === 0, 60_000);
    const armedBy = (await api<{ nowMs: number }>('clock.get')).nowMs;
    await until(async () => (await api<{ nowMs: number }>('clock.get')).nowMs > armedBy + 300_000, 60_000);
    await api('clock.setScale', { scale: 1 });
    const brokers = await api<(Broker & { isController: boolean; leaderCount: number })[]>('brokers.list');
    const victim = brokers.find((b) => !b.isController && b.leaderCount > 0)!;
    const b = victim.id;
    // A controlled shutdown moves its leadership away; after its restart it leads nothing.
    await api('brokers.stop', { brokerId: b });
    await until(async () => (await api<Broker[]>('brokers.list')).find((x) => x.id === b)?.state === 'stopped');
    await api('brokers.start', { brokerId: b });
    await until(async () => {
      const topics = await Promise.all(['orders', 'payments'].map((name) => api<Topic>('topics.describe', { name })));
      return topics.every((t) => t.partitions.every((p) => p.isr.length === p.replicas.length));
    }, 60_000);
    const before = await api<LeaderBalance>('leaders.balance');
    expect(before.notPreferred.length).toBeGreaterThan(0);
    expect(before.brokers.find((x) => x.brokerId === b)!.leaders).toBe(0);

    await nav('Leaders');
    await page.getByTestId('not-preferred-table').waitFor();
    await expect.poll(async () => Number(await page.getByTestId('not-preferred-count').textContent())).toBe(before.notPreferred.length);
    expect(await page.getByTestId('auto-rebalance-state').textContent()).toContain('auto.leader.rebalance.enable = true');
    await expect.poll(() => page.getByTestId(`leaders-of-${b}`).textContent()).toBe('0');
    await shot(page, 'leaders-off-preferred');

    await page.getByTestId('preview-all').click();
    await page.getByTestId('election-preview').waitFor();
    const row = page.getByTestId(`preview-count-${b}`).locator('td');
    expect(await row.nth(1).textContent()).toBe('0');
    expect(Number(await row.nth(2).textContent())).toBeGreaterThan(0);
    // Each partition that changes reads "leader now → after"; no raw "NONE" code.
    const preview = page.getByTestId('election-preview');
    const moves = (await preview.getByTestId('election-leaders').allTextContents()).map((t) => t.trim());
    expect(moves).toHaveLength(before.notPreferred.length);
    for (const m of moves) expect(m).toMatch(new RegExp(`^\\d → ${b}$`));
    expect(await preview.textContent()).not.toMatch(/\bNONE\b/);
    expect(await preview.getByTestId('election-unchanged').textContent()).toContain(`${9 - before.notPreferred.length} partitions are already led by their preferred replica (Kafka answers ELECTION_NOT_NEEDED)`);
    await shot(page, 'leaders-preview');

    await page.getByTestId('run-election').click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByTestId('election-results').waitFor();
    expect(await page.getByTestId('election-results').locator('[data-error-code="NONE"]').count()).toBe(before.notPreferred.length);
    // The partitions already on their preferred leader are folded into one line until asked for.
    const results = page.getByTestId('election-results');
    expect(await results.locator('[data-error-code="ELECTION_NOT_NEEDED"]').count()).toBe(0);
    expect(await results.textContent()).not.toMatch(/\bNONE\b/);
    await results.getByTestId('election-unchanged-toggle').click();
    await expect.poll(() => results.locator('[data-error-code="ELECTION_NOT_NEEDED"]').count()).toBe(9 - before.notPreferred.length);
    await page.getByTestId('not-preferred-empty').waitFor();
    await expect.poll(async () => Number(await page.getByTestId(`leaders-of-${b}`).textContent())).toBeGreaterThan(0);
    await shot(page, 'leaders-elected');
    const afterElection = await api<LeaderBalance>('leaders.balance');
    expect(afterElection.notPreferred).toEqual([]);
  });
});
