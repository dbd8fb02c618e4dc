import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';

describe('the overview and brokers pages in Chromium against npm run serve', () => {
  let host: ServedHost;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[];
  const shot = screenshotter('overview-brokers');

  async function api(method: string, body: unknown): Promise<unknown> {
    const res = await fetch(`${host.origin}/api/${method}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const envelope = (await res.json()) as { ok: boolean; value?: unknown; error?: unknown };
    if (!envelope.ok) throw new Error(`${method}: ${JSON.stringify(envelope.error)}`);
    return envelope.value;
  }
  /** Click like a user who moved the mouse there: park it first, so no tooltip of the last click covers the target. */
  async function click(testId: string): Promise<void> {
    await page.mouse.move(1, 1);
    await page.getByTestId(testId).click();
  }
  const stateOf = (id: number) => page.getByTestId(`broker-state-${id}`).first().getAttribute('data-state');
  const controllerBadges = () => page.locator('[data-testid^="controller-badge-"]');
  async function controllerOnBrokersPage(): Promise<number> {
    await expect.poll(() => controllerBadges().count(), { timeout: 15_000 }).toBe(1);
    return Number((await controllerBadges().first().getAttribute('data-testid'))!.replace('controller-badge-', ''));
  }

  beforeAll(async () => {
    host = await startServe();
    browser = await launchBrowser();
    // Broker sessions (9 s) and controller failover play out in engine time: run it 30× faster.
    await api('clock.setScale', { scale: 30 });
    // Brokers register within a second of engine time; a topic needs them unfenced.
    const running = async () => ((await api('cluster.describe', {})) as { brokers: { state: string }[] }).brokers.filter((b) => b.state === 'running').length;
    for (let deadline = Date.now() + 30_000; (await running()) < 3; ) {
      if (Date.now() > deadline) throw new Error('the 3 brokers did not register within 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    await api('topics.create', { name: 'orders', partitions: 6, replicationFactor: 3 });
    ({ page, pageErrors } = await openConsole(browser, host, '/'));
  });
  afterAll(async () => {
    await browser?.close();
    expect(await host?.stop()).toBe(0);
    removeDir(host.dataDir);
  });

  it('the overview shows three running brokers, the controller and healthy partitions', async () => {
    await expect.poll(() => page.locator('[data-testid^="overview-broker-"][data-state="running"]').count(), { timeout: 20_000 }).toBe(3);
    let controller = '';
    await expect.poll(async () => (controller = (await page.getByTestId('overview-controller-value').textContent()) ?? '')).toMatch(/^broker [123]$/);
    const id = Number(controller.replace('broker ', ''));
    await expect.poll(() => page.getByTestId(`overview-controller-${id}`).isVisible()).toBe(true);
    for (const health of ['offline', 'under-replicated', 'under-min-isr']) {
      await expect.poll(() => page.getByTestId(`health-${health}-count`).textContent()).toBe('0');
      expect(await page.getByTestId(`health-${health}`).getAttribute('href')).toContain(`/topics?health=${health}`);
    }
    await page.getByTestId('no-traffic').waitFor();
    await page.getByTestId('event-feed').getByText(/Controller is now on broker/).first().waitFor({ timeout: 10_000 });
    await shot(page, 'overview');
  });

  it('kills a broker from the Brokers page after confirming, sees it killed with the controller badge in place, and restarts it', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Brokers', exact: true }).click();
    await expect.poll(() => page.locator('[data-testid^="broker-row-"]').count(), { timeout: 15_000 }).toBe(3);
    const controller = await controllerOnBrokersPage();
    const victim = [3, 2, 1].find((id) => id !== controller)!;
    await shot(page, 'brokers');

    await click(`broker-${victim}-kill`);
    const confirm = page.getByTestId(`broker-${victim}-kill-confirm`);
    await confirm.waitFor();
    await shot(page, 'kill-confirm');
    await page.mouse.move(1, 1);
    await confirm.click();
    await expect.poll(() => stateOf(victim), { timeout: 10_000 }).toBe('killed');
    expect(await controllerOnBrokersPage()).toBe(controller);
    await expect.poll(() => page.getByTestId(`broker-${victim}-start`).isEnabled()).toBe(true);
    await expect.poll(() => page.getByTestId(`broker-${victim}-kill`).isDisabled()).toBe(true);
    await shot(page, 'killed');

    // A broker that still hosts replicas cannot leave the cluster (Kafka refuses): Remove is not
    // offered, and says how many replicas to drain first.
    const remove = page.getByTestId(`broker-${victim}-remove`);
    expect(await remove.isDisabled()).toBe(true);
    await page.locator('.hover-target', { has: remove }).hover();
    await expect.poll(() => page.getByText(/still hosts \d+ replicas: drain it first \(Balance, excluding broker \d\), then remove it\./).count(), { timeout: 10_000 }).toBe(1);
    expect(await page.getByTestId(`broker-row-${victim}`).isVisible()).toBe(true);
    await shot(page, 'remove-refused');

    await click(`broker-${victim}-start`);
    await expect.poll(() => stateOf(victim), { timeout: 20_000 }).toBe('running');
    expect(await controllerOnBrokersPage()).toBe(controller);
    await shot(page, 'restarted');
  });

  it('moves the controller badge when the controller’s broker is killed', async () => {
    const controller = await controllerOnBrokersPage();
    await click(`broker-${controller}-kill`);
    await click(`broker-${controller}-kill-confirm`);
    await expect.poll(() => stateOf(controller), { timeout: 10_000 }).toBe('killed');
    await expect
      .poll(async () => ((await controllerBadges().count()) === 1 ? controllerOnBrokersPage() : null), { timeout: 20_000 })
      .not.toBeOneOf([null, controller]);
    const moved = await controllerOnBrokersPage();
    expect(await stateOf(moved)).toBe('running');
    await shot(page, 'controller-moved');
    await click(`broker-${controller}-start`);
    await expect.poll(() => stateOf(controller), { timeout: 20_000 }).toBe('running');
  });

  it('adds a broker on a rack and lists it running', async () => {
    await click('add-broker');
    await page.getByTestId('add-broker-modal').waitFor();
    await page.getByTestId('add-broker-rack').fill('rack-b');
    await shot(page, 'add-broker');
    await click('add-broker-submit');
    await page.getByTestId('broker-row-4').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('broker-rack-4').textContent()).toBe('rack-b');
    await expect.poll(() => stateOf(4), { timeout: 20_000 }).toBe('running');
    await shot(page, 'added');
  });

  it('the overview then shows four brokers, the live throughput and the recent events, newest first', async () => {
    // The throughput card keeps the last 120 s of cluster time: at 30× that is 4 s of real time, and
    // the produce below would age out of it while a loaded machine reloads the page. Real time again.
    await api('clock.setScale', { scale: 1 });
    for (let i = 0; i < 5; i++) {
      await api('records.produce', { topic: 'orders', acks: 'all', records: Array.from({ length: 20 }, (_, j) => ({ key: `k${i}-${j}`, value: 'x'.repeat(200) })) });
    }
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview', exact: true }).click();
    await expect.poll(() => page.locator('[data-testid^="overview-broker-"]').count(), { timeout: 15_000 }).toBe(4);
    await page.getByTestId('throughput-figures').waitFor({ timeout: 15_000 });
    const feed = page.getByTestId('event-feed');
    await feed.getByText(/Topic orders created: 6 partitions, replication factor 3/).waitFor({ timeout: 10_000 });
    const first = await feed.locator('li').first().textContent();
    expect(first).not.toMatch(/Controller is now on broker .* \(cluster started\)/);
    await expect.poll(() => feed.getByText(/^Broker \d: running → killed$/).count()).toBeGreaterThanOrEqual(2);
    // Headline rates are averages over the chart's window; broker cards show disk use and bytes in/out.
    expect(await page.getByTestId('throughput-averaged').textContent()).toMatch(/averages over the last \d+ s of cluster time/);
    await expect.poll(() => page.getByTestId('broker-disk-1').textContent()).toMatch(/^disk \d+(\.\d+)? (B|KiB|MiB)$/);
    await expect.poll(() => page.getByTestId('broker-rates-1').textContent()).toMatch(/in .+\/s · out .+\/s/);
    await shot(page, 'overview-after');

    // A reload keeps the chart: the history comes back from metrics.get, not from an empty start.
    await page.reload();
    await page.getByTestId('connection-status').getByText('Live').waitFor({ timeout: 20_000 });
    await page.getByTestId('throughput-figures').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('no-traffic').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
