/**
 * Issue 34 on a local cluster, in Chromium against `npm run serve`: what the console says is what
 * the API and Kafka's clients see. Each test sets a state up through the API (or a kafkajs
 * client) and reads what a person sees: defaults that name the value a topic would take without
 * its override, the Overview while a killed leader is not yet fenced, rates from one window, the
 * balance plan's binding goal, the election preview's colours, group members told apart, the
 * Messages page's defaults, labels and high watermark, toasts below the top bar, profile import
 * errors, the Execute dialog's throttle and estimate, pop-confirms and Alt shortcuts by keyboard,
 * and the 1024×700 layout of Brokers and the Balance board.
 */
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';
import { until } from './support/kafka-serve.js';

type Broker = { id: number; state: string; isController: boolean; leaderCount: number };

describe('the console says what is true (issue 34), on a local cluster', () => {
  let host: ServedHost;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[];
  const shot = screenshotter('console-truth');
  const consumers: Consumer[] = [];

  async function go(path: string, heading: string): Promise<void> {
    await page.evaluate(`location.hash = ${JSON.stringify(`#${path}`)}`);
    await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor({ timeout: 20_000 });
  }
  const text = async (testId: string): Promise<string> => ((await page.getByTestId(testId).first().textContent()) ?? '').trim();

  beforeAll(async () => {
    host = await startServe();
    browser = await launchBrowser();
    await until(async () => (await api<Broker[]>(host, 'brokers.list')).every((b) => b.state === 'running'), 30_000, 'brokers running');
    // The cluster default says min.insync.replicas 2 (the balanced profile); this topic overrides it with 1.
    await api(host, 'topics.create', { name: 'orders', partitions: 6, replicationFactor: 3, configs: { 'min.insync.replicas': '1' } });
    ({ page, pageErrors } = await openConsole(browser, host));
  });
  afterAll(async () => {
    for (const c of consumers) await c.disconnect().catch(() => undefined);
    await browser?.close();
    await host?.stop();
    if (host) removeDir(host.dataDir);
  });

  it('names, as a topic config’s default, the value it would take without its override, with its layer', async () => {
    const cluster = (await api<{ name: string; value: string; source: string }[]>(host, 'configs.describe', { resource: { type: 'broker', name: '' } })).find((c) => c.name === 'min.insync.replicas')!;
    expect(cluster.value).toBe('2');
    await go('/topics/orders?tab=configs', 'orders');
    const cell = page.getByTestId('config-default-min.insync.replicas');
    await expect.poll(() => cell.textContent(), { timeout: 15_000 }).toContain('2');
    expect(await cell.textContent()).toMatch(/2 · (cluster default|static broker)/);
    // Deleting the override gives exactly that value.
    await page.getByTestId('config-reset-min.insync.replicas').click();
    expect(await text('config-reset-confirm-min.insync.replicas')).toMatch(/It becomes 2 \((cluster-wide dynamic|static \(server\.properties\))\)/);
    // Escape closes the confirmation and gives focus back to its button; nothing was deleted.
    await expect.poll(() => page.evaluate('document.activeElement?.textContent?.trim() ?? ""')).toBe('Cancel');
    await page.keyboard.press('Escape');
    await page.getByTestId('config-reset-confirm-min.insync.replicas').waitFor({ state: 'detached' });
    expect(await page.evaluate('document.activeElement?.getAttribute("data-testid")')).toBe('config-reset-min.insync.replicas');
    expect((await api<{ name: string; value: string }[]>(host, 'configs.describe', { resource: { type: 'topic', name: 'orders' } })).find((c) => c.name === 'min.insync.replicas')!.value).toBe('1');
    await shot(page, 'topic-config-default');
  });

  it('shows, while a topic config is edited inline, what the config does and what the typed value changes', async () => {
    await page.getByTestId('config-edit-min.insync.replicas').click();
    await page.getByTestId('config-input-min.insync.replicas').locator('input').fill('3');
    const consequence = page.getByTestId('config-row-min.insync.replicas').getByTestId('config-consequence');
    await expect.poll(() => consequence.textContent(), { timeout: 15_000 }).toContain('Durability:');
    // 1 → 3 with RF 3: acks=all writes go from tolerating 2 broker failures to none.
    await expect.poll(() => consequence.getByTestId('config-tolerance-writes').textContent(), { timeout: 15_000 }).toMatch(/2 → 0/);
    await shot(page, 'inline-config-effect');
    await page.getByTestId('config-row-min.insync.replicas').getByRole('button', { name: 'Cancel' }).click();
    // An applied edit's toast opens below the top bar, not over it.
    await page.getByTestId('config-edit-retention.ms').click();
    await page.getByTestId('config-input-retention.ms').locator('input').fill('3600000');
    await expect.poll(() => page.getByTestId('config-apply-retention.ms').isEnabled(), { timeout: 15_000 }).toBe(true);
    await page.getByTestId('config-apply-retention.ms').click();
    const toast = page.getByTestId('success-toast').first();
    await toast.waitFor({ timeout: 10_000 });
    const bar = await page.locator('header.topbar').boundingBox();
    const box = await toast.boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(bar!.y + bar!.height);
  });

  it('on the Connections page says a local cluster lacks nothing, not "Not available: everything"', async () => {
    await go('/connections', 'Connections');
    const row = page.locator('[data-testid^="connection-"]').first();
    await row.waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('connections-table').textContent()).not.toContain('everything');
    expect(await page.locator('[data-testid^="unavailable-none-"]').first().textContent()).toContain('nothing');
  });

  it('opens Groups with Alt+=, Security with Alt+[, Transactions with Alt+] and Connections with Alt+`, and says every shortcut on its link', async () => {
    await go('/', 'Overview');
    await page.keyboard.press('Alt+Equal');
    await page.getByRole('heading', { level: 1, name: 'Consumer groups' }).waitFor({ timeout: 10_000 });
    await page.keyboard.press('Alt+BracketLeft');
    await page.getByRole('heading', { level: 1, name: 'Security', exact: true }).waitFor({ timeout: 10_000 });
    await page.keyboard.press('Alt+BracketRight');
    await page.getByRole('heading', { level: 1, name: 'Transactions', exact: true }).waitFor({ timeout: 10_000 });
    await page.keyboard.press('Alt+Backquote');
    await page.getByRole('heading', { level: 1, name: 'Connections' }).waitFor({ timeout: 10_000 });
    const nav = page.getByRole('navigation', { name: 'Main' });
    const keys = await nav.getByRole('link').evaluateAll((links) => links.map((l) => [l.textContent?.trim(), l.getAttribute('aria-keyshortcuts')]));
    expect(keys.slice(9)).toEqual([
      ['Messages', 'Alt+0'],
      ['Schemas', 'Alt+-'],
      ['Groups', 'Alt+='],
      ['Security', 'Alt+['],
      ['Transactions', 'Alt+]'],
      ['Connections', 'Alt+`'],
    ]);
  });

  it('tells a group’s members apart when they share a client id and host', async () => {
    const bootstrap = (await api<{ bootstrapServers: string }>(host, 'cluster.describe', {})).bootstrapServers;
    const kafka = new Kafka({ clientId: 'rdkafka', brokers: bootstrap.split(','), logLevel: logLevel.NOTHING });
    for (let i = 0; i < 2; i++) {
      const c = kafka.consumer({ groupId: 'twins', sessionTimeout: 20_000, heartbeatInterval: 1_000 });
      consumers.push(c);
      await c.connect();
      await c.subscribe({ topic: 'orders', fromBeginning: true });
      await c.run({ eachMessage: async () => undefined });
    }
    await until(async () => {
      const g = await api<{ state: string; members: unknown[] }>(host, 'groups.describe', { groupId: 'twins' }).catch(() => null);
      return g?.state === 'Stable' && g.members.length === 2;
    }, 60_000, 'two stable members');
    await go('/groups', 'Consumer groups');
    await page.getByText('twins', { exact: true }).first().click();
    await page.getByTestId('members-table').waitFor({ timeout: 15_000 });
    await expect.poll(() => page.getByTestId('member-label').allTextContents(), { timeout: 15_000 }).toHaveLength(2);
    const labels = await page.getByTestId('member-label').allTextContents();
    expect(new Set(labels).size).toBe(2);
    for (const l of labels) expect(l).toMatch(/^rdkafka #[0-9a-f]{4,}/);
    // The partitions table names each partition's member the same way: two different names.
    await expect.poll(async () => new Set(await page.getByTestId('partition-member').allTextContents()).size, { timeout: 15_000 }).toBe(2);
    await shot(page, 'group-members');
    for (const c of consumers.splice(0)) await c.disconnect();
  });

  it('on Messages: never starts on an internal topic, labels its number inputs, and follows the high watermark after a produce', async () => {
    // __consumer_offsets exists now (the group above) and sorts first.
    expect((await api<{ name: string }[]>(host, 'topics.list', {}))[0]!.name).toBe('__consumer_offsets');
    await go('/messages', 'Messages');
    await expect.poll(() => page.getByTestId('produce-panel').getByTestId('produce-topic').textContent(), { timeout: 15_000 }).toContain('orders');
    expect(await page.getByTestId('consume-topic').textContent()).toContain('orders');
    for (const name of ['Number of records', 'Request timeout in ms (request.timeout.ms, cluster time)', 'From offset (empty: the log start offset)', 'Max records']) {
      expect(await page.getByRole('textbox', { name, exact: true }).count(), name).toBe(1);
    }
    await page.getByTestId('consume-submit').click();
    await page.getByTestId('consume-bounds').waitFor({ timeout: 15_000 });
    const partition = Number((await text('consume-partition-read')).split('-').pop());
    const before = Number(await text('consume-hw'));
    await api(host, 'records.produce', { topic: 'orders', partition, acks: 'all', records: [{ value: 'x' }] });
    // Produced from the page to the partition read: its high watermark follows.
    await page.getByTestId('produce-partition').click();
    await page.locator('.n-base-select-option', { hasText: new RegExp(`^Partition ${partition}$`) }).click();
    await page.getByTestId('produce-submit').click();
    await expect.poll(async () => Number(await text('consume-hw')), { timeout: 15_000 }).toBe(before + 2);
    await shot(page, 'messages');
  });

  it('says why a profile was not imported, in words', async () => {
    await go('/profiles', 'Profiles');
    await page.getByTestId('profile-import-open').click();
    await page.getByTestId('import-text').locator('textarea').fill(JSON.stringify({ version: 1, name: 'broken', cluster: { brokers: 3 }, brokerConfigs: { 'min.insync.replicas': '0' }, producer: { acks: '2' } }));
    await page.getByTestId('import-submit').click();
    const errors = page.getByTestId('import-errors');
    await errors.waitFor({ timeout: 15_000 });
    expect(await errors.textContent()).toMatch(/The profile broken was not imported: \d+ problems? in it/);
    expect(await errors.textContent()).toContain('Nothing was imported');
    expect(await page.getByTestId('import-target').count()).toBe(0);
    await shot(page, 'profile-import-error');
    await page.keyboard.press('Escape');
  });

  it('names the hard goal and the broker that keep a goal unmet, and explains the balancedness score', async () => {
    // Broker 4 joins rack-3: the brokers of rack-3 share what a broker alone in its rack holds by itself.
    await api(host, 'brokers.add', { rack: 'rack-3' });
    await until(async () => (await api<Broker[]>(host, 'brokers.list')).filter((b) => b.state === 'running').length === 4, 30_000, 'broker 4 running');
    await api(host, 'topics.create', { name: 'racked', partitions: 24, replicationFactor: 3 });
    await go('/', 'Overview');
    await go('/balance', 'Balance');
    await page.getByTestId('broker-counts-4').waitFor({ timeout: 15_000 });
    await page.getByTestId('suggest-button').click();
    await page.getByTestId('suggestion').waitFor({ timeout: 30_000 });
    const reason = page.getByTestId('goal-reason-ReplicaDistributionGoal');
    await reason.waitFor({ timeout: 10_000 });
    expect(await reason.textContent()).toMatch(/RackAwareGoal, a hard goal above it, binds: it refused \d+ moves? (onto|off) broker \d/);
    expect(await reason.textContent()).toMatch(/rack rack-3|only broker of rack/);
    const explained = (await page.getByTestId('balancedness-explained').textContent()) ?? '';
    expect(explained).toMatch(/After \d+\.\d\d = 100 − ReplicaDistributionGoal \d+\.\d\d/);
    expect(explained).toContain('Each goal weighs 1.1× the goal below it');
    await shot(page, 'balance-why');
  });

  it('in the Execute dialog keeps a small throttle as typed and says what is sent; the estimate has no float digits', async () => {
    // The plan of the test before (replicas onto broker 4) is on the page.
    await page.getByTestId('execute-suggestion').click();
    const input = page.getByTestId('throttle-input').locator('input');
    await input.fill('0.001');
    await input.blur();
    await expect.poll(() => page.getByTestId('throttle-note').textContent(), { timeout: 10_000 }).toContain('1,049 bytes/s is sent');
    expect(await input.inputValue()).toBe('0.001');
    expect(await page.getByTestId('execute-modal').textContent()).toContain('--throttle 1049 bytes/s');
    const estimate = (await page.getByTestId('throttle-estimate').textContent()) ?? '';
    expect(estimate).toMatch(/Estimated copy time at this throttle: (under a second|about \d+(\.\d)? (ms|s|min|h|d)) —/);
    expect(estimate).not.toMatch(/\d\.\d{3,}/);
    await input.fill('0');
    await input.blur();
    await page.getByTestId('throttle-error').waitFor();
    expect(await page.getByTestId('confirm-execute').isDisabled()).toBe(true);
    await shot(page, 'execute-throttle');
    await page.getByTestId('execute-modal').getByRole('button', { name: 'Cancel', exact: true }).click();
    expect(await api<unknown[]>(host, 'reassignments.list', {})).toEqual([]);
  });

  it('colours the election preview by better or worse: leaders moving towards an even share are better', async () => {
    await api(host, 'topics.create', { name: 'led', assignments: [[1, 2, 3], [2, 3, 1], [3, 1, 2], [1, 3, 2], [2, 1, 3], [3, 2, 1]] });
    await until(async () => (await api<{ partitions: { leader: number }[] }>(host, 'topics.describe', { name: 'led' })).partitions.every((p) => p.leader >= 0), 30_000, 'led has leaders');
    // A controlled shutdown moves broker 1's leaderships away; back, it leads nothing until an election.
    await api(host, 'brokers.stop', { brokerId: 1 });
    await until(async () => (await api<Broker[]>(host, 'brokers.list')).find((b) => b.id === 1)!.state === 'stopped', 60_000, 'broker 1 stopped');
    await api(host, 'brokers.start', { brokerId: 1 });
    await until(async () => (await api<{ partitions: { isr: number[] }[] }>(host, 'topics.describe', { name: 'led' })).partitions.every((p) => p.isr.includes(1)), 60_000, 'broker 1 back in sync');
    await go('/leaders', 'Leaders');
    await page.getByTestId('preview-all').click();
    await page.getByTestId('election-preview').waitFor({ timeout: 15_000 });
    // Broker 1 gains leaders towards its share: better, where the old colours called a change by its direction.
    expect(await page.getByTestId('preview-count-1').locator('td').last().getAttribute('data-tone')).toBe('better');
    // Every colour is the count's distance to the even share, now against after: closer is better, further worse.
    const counts = await page.locator('[data-testid^="preview-count-"]').evaluateAll((trs) =>
      trs.map((tr) => {
        const td = tr.querySelectorAll('td');
        return { now: Number.parseInt(td[1]?.textContent ?? '', 10), after: Number.parseInt(td[2]?.textContent ?? '', 10), tone: td[2]?.getAttribute('data-tone') };
      }),
    );
    expect(counts.length).toBeGreaterThanOrEqual(3);
    const share = counts.reduce((n, c) => n + c.after, 0) / counts.length;
    for (const c of counts) {
      const d = Math.abs(c.after - share) - Math.abs(c.now - share);
      expect(c.tone).toBe(Math.abs(d) < 1e-9 ? 'same' : d < 0 ? 'better' : 'worse');
    }
    expect(await text('preview-legend')).toContain('closer to an even share');
    await shot(page, 'election-preview');
    await page.getByRole('button', { name: 'Discard preview' }).click();
  });

  it('reads throughput from one window: a single record does not read "0 rec/s" beside its bytes', async () => {
    await api(host, 'records.produce', { topic: 'orders', partition: 0, acks: 'all', records: [{ value: 'y'.repeat(4000) }] });
    await go('/', 'Overview');
    await page.getByTestId('throughput-figures').waitFor({ timeout: 20_000 });
    const records = await text('avg-produce-records');
    expect(records).not.toBe('0 rec/s');
    expect(records).toMatch(/^0\.\d+ rec\/s$|^\d+(\.\d+)? rec\/s$/);
  });

  it('at 1024×700 shows every Brokers column without a sideways scroll, and the board’s partition numbers', async () => {
    const context = await browser.newContext({ viewport: { width: 1024, height: 700 } });
    const narrow = await context.newPage();
    await narrow.goto(host.url);
    await narrow.getByTestId('connection-status').getByText('Live').waitFor({ timeout: 20_000 });
    await narrow.evaluate(`location.hash = '#/brokers'`);
    await narrow.getByTestId('broker-row-1').waitFor({ timeout: 15_000 });
    const fits = await narrow.getByTestId('brokers-table').evaluate((el) => [...el.querySelectorAll('.n-scrollbar-container, .n-data-table-base-table-body')].every((b) => b.scrollWidth <= b.clientWidth + 1));
    expect(fits).toBe(true);
    const disk = await narrow.getByTestId('broker-disk-traffic-1').boundingBox();
    const actions = await narrow.getByTestId('broker-row-1').locator('.actions').boundingBox();
    expect(disk!.x + disk!.width).toBeLessThanOrEqual(actions!.x + 1);
    await narrow.evaluate(`location.hash = '#/balance'`);
    await narrow.getByTestId('broker-column-1').waitFor({ timeout: 15_000 });
    // Every leader chip shows its partition number inside the chip.
    const cut = await narrow.locator('[data-leader="true"]').evaluateAll((chips) =>
      chips.slice(0, 30).filter((c) => {
        const part = c.querySelector('.part');
        if (!part) return true;
        const a = part.getBoundingClientRect();
        const b = c.getBoundingClientRect();
        return a.right > b.right + 0.5 || a.width === 0;
      }).length,
    );
    expect(cut).toBe(0);
    await context.close();
  });

  it('between a kill and the fencing, the Overview says how many partitions are unavailable and until when, not "all good"', async () => {
    const brokers = await api<Broker[]>(host, 'brokers.list');
    for (const b of brokers.filter((x) => x.state !== 'running')) await api(host, 'brokers.start', { brokerId: b.id });
    await until(async () => (await api<Broker[]>(host, 'brokers.list')).every((b) => b.state === 'running'), 60_000, 'every broker running');
    const victim = (await api<Broker[]>(host, 'brokers.list')).filter((b) => !b.isController && b.leaderCount > 0).sort((a, b) => b.leaderCount - a.leaderCount)[0]!;
    await go('/', 'Overview');
    await page.getByTestId('overview-broker-1').waitFor({ timeout: 15_000 });
    await api(host, 'brokers.kill', { brokerId: victim.id });
    // Read together, in one frame: the window lasts broker.session.timeout.ms (9 s at 1×).
    const snapshot = (): Promise<{ alert: string; offline: string; chip: string; subtitle: string }> =>
      page.evaluate(
        `(() => { const q = (id) => document.querySelector('[data-testid="' + id + '"]')?.textContent ?? ''; return { alert: q('overview-dead-leaders'), offline: q('health-offline-note'), chip: q('overview-broker-unfenced-${victim.id}'), subtitle: document.querySelector('h1 + *, header p')?.textContent ?? document.body.innerText.split('\\n').find((l) => l.startsWith('Cluster ')) ?? '' }; })()`,
      );
    let seen = { alert: '', offline: '', chip: '', subtitle: '' };
    await expect.poll(async () => (seen = await snapshot()).alert, { timeout: 10_000 }).toContain('can be neither written nor read');
    expect(seen.alert).toContain(`broker ${victim.id} is killed (its process died)`);
    expect(seen.alert).toMatch(/\d+ partitions? can be neither written nor read/);
    expect(seen.offline).not.toContain('all good');
    expect(seen.offline).toContain('not yet fenced');
    expect(seen.chip).toContain('not yet fenced');
    expect(await page.evaluate('document.body.innerText')).not.toContain('every partition fully replicated');
    await shot(page, 'overview-unfenced');
    // Once fenced, the controller's own counts take over and the alert goes.
    await page.getByTestId('overview-dead-leaders').waitFor({ state: 'detached', timeout: 40_000 });
    await api(host, 'brokers.start', { brokerId: victim.id });
    expect(pageErrors).toEqual([]);
  });
});
