/**
 * Issue 34 on an external cluster (a second `npm run serve`, reached only over the Kafka
 * protocol), in Chromium: where Kafka does not tell the console something, the console says so
 * instead of inventing it, and what cannot work on a real cluster is disabled with the reason
 * rather than offered and refused. The active controller (Metadata names any live broker in
 * KRaft), the partition epoch, each replica's log on the Drills page, cluster time and its scale,
 * throughput and the timeline; the topic id is read where Kafka has it (DescribeTopicPartitions).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TopicView } from '../app/api/views.js';
import { api, launchBrowser, openConsole, screenshotter } from './support/harness.js';
import { until } from './support/kafka-serve.js';
import { startTwoHosts, type TwoHosts } from './support/two-hosts.js';

describe('the console on an external cluster says what Kafka does not tell, and offers only what works', () => {
  let hosts: TwoHosts;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[];
  const shot = screenshotter('console-external');

  async function go(path: string, heading: string): Promise<void> {
    await page.evaluate(`location.hash = ${JSON.stringify(`#${path}`)}`);
    await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor({ timeout: 20_000 });
  }
  const text = async (testId: string): Promise<string> => ((await page.getByTestId(testId).first().textContent()) ?? '').trim();
  const errorToasts = (): Promise<number> => page.getByTestId('error-toast').count();

  beforeAll(async () => {
    hosts = await startTwoHosts();
    const ext = hosts.external.host;
    await api(ext, 'topics.create', { name: 'remote-orders', partitions: 3, replicationFactor: 3 });
    // A drill topic: the Drills page watches the newest one by itself.
    await api(ext, 'topics.create', { name: 'drill-1', partitions: 1, replicationFactor: 3 });
    await api(ext, 'records.produce', { topic: 'remote-orders', acks: 'all', records: [{ value: 'a' }, { value: 'b' }] });
    browser = await launchBrowser();
    ({ page, pageErrors } = await openConsole(browser, hosts.console_));
    // This window looks at the external cluster (as Connections › Switch to leaves it).
    const active = { id: hosts.connection, name: 'second host', kind: 'external', bootstrap: hosts.external.bootstrap };
    await page.evaluate(`sessionStorage.setItem('replica-studio.connection', ${JSON.stringify(JSON.stringify(active))}); location.hash = '#/'; location.reload();`);
    await page.getByTestId('active-connection').getByText('second host').waitFor({ timeout: 30_000 });
  });
  afterAll(async () => {
    await browser?.close();
    await hosts?.stop();
  });

  it('does not name an active controller, cluster time or a time scale it does not know, and shows no throughput or timeline as empty', async () => {
    await page.getByTestId('overview-controller').waitFor({ timeout: 20_000 });
    await expect.poll(() => text('overview-controller-value'), { timeout: 20_000 }).toBe('not reported');
    expect(await text('overview-controller')).toContain('the Kafka protocol does not name it');
    expect(await text('controller-id')).toBe('not reported');
    // The second host's Metadata names a broker, which the console does not claim as controller.
    expect((await hosts.external.describe()).controllerId).not.toBeNull();
    expect(await page.locator('[data-testid^="overview-controller-"]').filter({ hasText: 'controller' }).count()).toBe(0);
    expect(await page.getByTestId('cluster-time').count()).toBe(0);
    expect(await page.getByTestId('time-scale').count()).toBe(0);
    expect(await text('throughput-unavailable')).toContain('JMX');
    expect(await page.getByTestId('no-traffic').count()).toBe(0);
    expect(await page.getByTestId('throughput-error').count()).toBe(0);
    expect(await page.locator('[data-testid^="broker-rates-"]').count()).toBe(0);
    expect(await text('events-unavailable')).toContain('Not reported by this connection');
    expect(await page.getByTestId('event-feed').count()).toBe(0);
    await shot(page, 'overview');
  });

  it('disables Kill, Power loss and Add broker with the reason, and a click on them sends nothing and raises no toast', async () => {
    await go('/brokers', 'Brokers');
    await page.getByTestId('broker-row-1').waitFor({ timeout: 20_000 });
    expect(await text('brokers-table')).toContain('traffic not reported');
    for (const id of ['broker-1-kill', 'broker-1-powerLoss', 'broker-1-stop', 'add-broker']) {
      await expect.poll(() => page.getByTestId(id).isDisabled(), { timeout: 15_000 }).toBe(true);
    }
    // The reason shows on hover.
    await page.getByTestId('broker-1-kill').locator('xpath=..').hover();
    await page.getByTestId('broker-1-kill-why').waitFor({ timeout: 10_000 });
    expect(await text('broker-1-kill-why')).toContain('systemctl');
    await shot(page, 'brokers-disabled');
    await page.getByTestId('broker-1-kill').click({ force: true });
    await page.waitForTimeout(1000);
    expect(await errorToasts()).toBe(0);
    expect((await hosts.external.describe()).brokers.every((b) => b.state === 'running')).toBe(true);
  });

  it('on Drills, says the replicas’ own logs are not reported (no zeros), and offers no fault, scripted drill or clock', async () => {
    await go('/drills', 'Drills');
    await page.getByTestId('replica-panel').waitFor({ timeout: 20_000 });
    await expect.poll(() => page.getByTestId('replica-states-unavailable').count(), { timeout: 20_000 }).toBe(1);
    expect(await text('replica-states-unavailable')).toContain('JMX');
    expect(await page.locator('[data-testid$="-not-reported"]').count()).toBe(3);
    expect(await page.locator('[data-testid$="-leo"]').count()).toBe(0);
    expect(await text('drill-clock-unavailable')).toContain('real time');
    expect(await page.getByTestId('drill-time-scale').count()).toBe(0);
    expect(await page.getByTestId('scenario-run').isDisabled()).toBe(true);
    expect(await text('scenario-unavailable')).toContain('cannot do');
    expect(await page.getByTestId('fault-kill-1').isDisabled()).toBe(true);
    await shot(page, 'drills');
  });

  it('on the topic page reads the topic id where Kafka has it and says the partition epoch is not reported', async () => {
    const own = await api<TopicView>(hosts.external.host, 'topics.describe', { name: 'remote-orders' });
    await go('/topics/remote-orders', 'remote-orders');
    await page.getByTestId('partition-row-0').waitFor({ timeout: 20_000 });
    await expect.poll(() => page.getByText(`Topic ID ${own.topicId}`).count(), { timeout: 10_000 }).toBe(1);
    expect(own.topicId).not.toBe('AAAAAAAAAAAAAAAAAAAAAA');
    await page.getByTestId('partition-expand-0').click();
    expect(await text('partition-0-partition-epoch')).toBe('not reported');
    // The leader's log end is not reported either: shown as such, not as 0.
    expect(await page.getByTestId('partition-row-0').textContent()).toMatch(/— \/ \d+/);
    expect(await page.getByTestId('kill-leader-0').isDisabled()).toBe(true);
    await shot(page, 'topic');
  });

  it('never defaults the Messages page to an internal topic, and raised no page error on the way', async () => {
    // A group on the second cluster creates its __consumer_offsets, which sorts first.
    await until(async () => (await hosts.on('kafka')('groups.resetOffsets', { groupId: 'g', topics: [{ topic: 'remote-orders' }], to: { earliest: true }, dryRun: false })).ok, 30_000, 'a group on the second cluster');
    await go('/messages', 'Messages');
    await expect.poll(() => page.getByTestId('produce-panel').getByTestId('produce-topic').textContent(), { timeout: 15_000 }).toMatch(/drill-1|remote-orders/);
    expect(await page.getByTestId('produce-panel').getByTestId('produce-topic').textContent()).not.toContain('__consumer_offsets');
    expect(pageErrors).toEqual([]);
  });
});
