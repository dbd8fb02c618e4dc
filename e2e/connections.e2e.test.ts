/**
 * The Connections page in Chromium against `npm run serve`: add an external Kafka cluster (a
 * second `npm run serve`, reached only over the Kafka protocol), test it, switch this window to
 * it and see its topics (not the host's), rebalance it from the Balance page, and switch back.
 * Every change to the external cluster asks once, naming it and its bootstrap servers: a page whose
 * own dialog confirms (the bulk delete, the topic page's delete, Balance's Execute, a config reset,
 * a group delete) names the cluster there and is the only dialog; an action without a dialog of its
 * own (a config's plain Apply) gets the console's external-change dialog. Cancel in either sends
 * nothing. What the external cluster cannot offer is listed with the reason.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';
import { startKafkaServe, until, type KafkaServe } from './support/kafka-serve.js';

describe('connections in Chromium: an external cluster, switched to, rebalanced, and back', () => {
  let host: ServedHost;
  let second: KafkaServe;
  let configDir: string;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[];
  const shot = screenshotter('connections');

  async function nav(label: string, heading = label): Promise<void> {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  }

  beforeAll(async () => {
    configDir = mkdtempSync(join(tmpdir(), 'rs-connections-e2e-'));
    [host, second] = await Promise.all([startServe({ extraArgs: ['--config', configDir] }), startKafkaServe()]);
    await api(host, 'topics.create', { name: 'local-only', partitions: 1, replicationFactor: 1 });
    // On the second cluster: every replica on brokers 1 and 2, so a rebalance has work to do.
    await api(second.host, 'topics.create', { name: 'remote-orders', assignments: [[1, 2], [2, 1], [1, 2], [2, 1], [1, 2], [2, 1]] });
    await api(second.host, 'topics.create', { name: 'remote-scratch', partitions: 1, replicationFactor: 2 });
    browser = await launchBrowser();
    ({ page, pageErrors } = await openConsole(browser, host));
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await second?.stop();
    if (configDir) removeDir(configDir);
  });

  it('adds the second cluster by its bootstrap servers and tests it', async () => {
    await nav('Connections');
    await page.getByTestId('external-name').locator('input').fill('second');
    await page.getByTestId('external-bootstrap').locator('input').fill(second.bootstrap);
    await page.getByTestId('external-add').click();
    await page.getByTestId('connection-second').waitFor();
    // What a real cluster cannot offer is said with the reason, not shown empty.
    expect(await page.getByTestId('connection-second').textContent()).toContain('Fault drills');
    await page.getByTestId('test-second').click();
    const clusterId = (await second.describe()).clusterId;
    await expect.poll(() => page.getByTestId('test-result-second').textContent(), { timeout: 20_000 }).toContain(clusterId);
    expect(await page.getByTestId('test-result-second').textContent()).toContain('3 brokers');
    await shot(page, 'added-and-tested');
  });

  it('switches this window to it: the topics are the second cluster’s', async () => {
    await page.getByTestId('switch-second').click();
    await page.getByTestId('active-connection').getByText('second').waitFor({ timeout: 20_000 });
    await nav('Topics');
    await page.getByText('remote-orders').first().waitFor({ timeout: 20_000 });
    expect(await page.getByText('local-only').count()).toBe(0);
    await shot(page, 'external-topics');
    // Deleting topics of the external cluster asks in the bulk dialog itself, naming it; Cancel sends nothing.
    await page.getByLabel('Select remote-orders').check();
    await page.getByTestId('bulk-delete').click();
    const dialog = page.getByTestId('bulk-delete-dialog');
    await expect.poll(() => dialog.getByTestId('delete-list').locator('li').allTextContents(), { timeout: 10_000 }).toEqual(['remote-orders']);
    const named = dialog.getByTestId('external-target');
    expect(await named.textContent()).toContain('delete 1 topic');
    expect(await named.textContent()).toContain(`second (${second.bootstrap})`);
    await dialog.getByTestId('cancel-delete').click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByLabel('Select remote-orders').uncheck();
    expect((await second.topic('remote-orders')).partitions).toHaveLength(6);
  });

  it('deletes a topic of the external cluster from its page with one dialog, which names the cluster', async () => {
    await page.evaluate("location.hash = '#/topics/remote-scratch'");
    await page.getByTestId('delete-topic').click();
    const modal = page.getByTestId('delete-topic-modal');
    const named = modal.getByTestId('external-target');
    await named.waitFor({ timeout: 10_000 });
    expect(await named.textContent()).toContain('delete topic remote-scratch');
    expect(await named.textContent()).toContain(`second (${second.bootstrap})`);
    await modal.getByTestId('delete-topic-confirm').locator('input').fill('remote-scratch');
    await shot(page, 'external-delete-topic');
    await modal.getByTestId('delete-topic-apply').click();
    // No second dialog: the page goes back to the list and the topic is gone on the second cluster.
    await page.waitForURL(/#\/topics$/, { timeout: 15_000 });
    expect(await page.getByTestId('external-confirm').count()).toBe(0);
    await until(async () => !(await api<{ name: string }[]>(second.host, 'topics.list', {})).some((t) => t.name === 'remote-scratch'), 20_000, 'remote-scratch deleted on the second cluster');
    expect((await second.topic('remote-orders')).partitions).toHaveLength(6);
  });

  it('rebalances it from the Balance page: replicas move to broker 3 on the second cluster', async () => {
    await nav('Balance');
    await page.getByTestId('suggest-button').click();
    await page.getByTestId('suggestion').waitFor({ timeout: 30_000 });
    expect(Number(await page.getByTestId('suggest-replica-moves').textContent())).toBeGreaterThan(0);
    // The Execute dialog itself names the cluster and its bootstrap servers; Cancel there sends nothing.
    const modal = page.getByTestId('execute-modal');
    await page.getByTestId('execute-suggestion').click();
    await expect.poll(() => modal.getByTestId('external-target').textContent(), { timeout: 10_000 }).toContain('move the replicas of');
    expect(await modal.getByTestId('external-target').textContent()).toContain(`second (${second.bootstrap})`);
    await shot(page, 'external-execute');
    await modal.getByRole('button', { name: 'Cancel', exact: true }).click();
    await modal.waitFor({ state: 'detached' });
    expect(await api<unknown[]>(second.host, 'reassignments.list', {})).toEqual([]);
    // Confirmed in that dialog, the moves start: no second dialog stands in between.
    await page.getByTestId('execute-suggestion').click();
    await modal.getByTestId('external-target').waitFor({ timeout: 10_000 });
    await modal.getByTestId('confirm-execute').click();
    await until(async () => {
      const t = await api<{ partitions: { replicas: number[] }[] }>(second.host, 'topics.describe', { name: 'remote-orders' });
      return t.partitions.some((p) => p.replicas.includes(3));
    }, 60_000, 'a replica of remote-orders on broker 3');
    expect(await page.getByTestId('external-confirm').count()).toBe(0);
    await shot(page, 'external-rebalanced');
  });

  it('applies a topic config on it after the console’s one dialog naming the cluster (Cancel sends nothing), and resets it from the row’s own confirmation alone', async () => {
    type Entry = { name: string; value: string; source: string };
    const retention = async (): Promise<Entry | undefined> =>
      (await api<Entry[]>(second.host, 'configs.describe', { resource: { type: 'topic', name: 'remote-orders' } })).find((e) => e.name === 'retention.ms');
    const row = page.locator('[data-testid="config-row-retention.ms"]');
    await nav('Configs');
    await page.getByTestId('config-resource').click();
    await page.keyboard.type('remote-orders');
    await page.getByRole('option', { name: 'remote-orders', exact: true }).click();
    await expect.poll(() => page.url(), { timeout: 15_000 }).toContain('resource=topic:remote-orders');
    await page.getByTestId('config-search').locator('input').fill('retention.ms');
    await page.getByTestId('config-edit-retention.ms').click();
    await page.getByTestId('config-editor-input').locator('input').fill('7200000');
    await page.getByTestId('config-validation-ok').waitFor({ timeout: 15_000 });
    // A plain Apply has no dialog of its own: the console's dialog is the one, naming the cluster.
    const confirm = page.getByTestId('external-confirm');
    await page.getByTestId('config-apply').click();
    await expect.poll(() => confirm.textContent(), { timeout: 10_000 }).toContain('change retention.ms of topic remote-orders');
    expect(await confirm.textContent()).toContain(`second (${second.bootstrap})`);
    await shot(page, 'external-config-apply');
    await page.getByRole('button', { name: 'Cancel', exact: true }).last().click();
    await confirm.waitFor({ state: 'detached' });
    expect((await retention())?.source).not.toBe('DYNAMIC_TOPIC_CONFIG');
    await page.getByTestId('config-apply').click();
    await confirm.waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Change second' }).click();
    await expect.poll(async () => (await retention())?.value, { timeout: 20_000 }).toBe('7200000');
    await expect.poll(() => row.getAttribute('data-source'), { timeout: 20_000 }).toBe('DYNAMIC_TOPIC_CONFIG');
    // The row's Reset confirmation names the cluster itself and is the only dialog.
    await page.getByTestId('config-reset-retention.ms').click();
    const resetConfirm = page.getByTestId('config-reset-confirm-retention.ms');
    await expect.poll(() => resetConfirm.getByTestId('external-target').textContent(), { timeout: 10_000 }).toContain('reset retention.ms of topic remote-orders');
    expect(await resetConfirm.getByTestId('external-target').textContent()).toContain(`second (${second.bootstrap})`);
    await shot(page, 'external-config-reset');
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await expect.poll(async () => (await retention())?.source, { timeout: 20_000 }).not.toBe('DYNAMIC_TOPIC_CONFIG');
    expect(await confirm.count()).toBe(0);
  });

  it('deletes an empty consumer group of it from the Groups page with one dialog naming the cluster; Cancel sends nothing', async () => {
    type Group = { groupId: string; state: string };
    const groups = (): Promise<Group[]> => api<Group[]>(second.host, 'groups.list', {});
    await api(second.host, 'topics.create', { name: 'remote-events', partitions: 1, replicationFactor: 2 });
    await until(async () => (await api<{ errorCode: string }>(second.host, 'records.produce', { topic: 'remote-events', partition: 0, acks: 'all', records: [{ value: 'a' }, { value: 'b' }] })).errorCode === 'NONE', 20_000, 'records on remote-events');
    await api(second.host, 'consumers.start', { groupId: 'remote-billing', topics: ['remote-events'] });
    await until(async () => (await groups()).some((g) => g.groupId === 'remote-billing' && g.state === 'Stable'), 30_000, 'remote-billing Stable');
    await api(second.host, 'consumers.stop', { groupId: 'remote-billing' });
    await until(async () => (await groups()).some((g) => g.groupId === 'remote-billing' && g.state === 'Empty'), 30_000, 'remote-billing Empty');

    await nav('Groups', 'Consumer groups');
    const groupRow = page.getByTestId('group-row-remote-billing');
    await expect.poll(async () => (await groupRow.textContent()) ?? '', { timeout: 30_000 }).toMatch(/Empty/);
    await groupRow.click();
    const remove = page.getByTestId('group-delete');
    await expect.poll(() => remove.isEnabled(), { timeout: 15_000 }).toBe(true);
    await remove.click();
    const asked = page.getByTestId('group-delete-confirm');
    await expect.poll(() => asked.getByTestId('external-target').textContent(), { timeout: 10_000 }).toContain('delete group remote-billing');
    expect(await asked.getByTestId('external-target').textContent()).toContain(`second (${second.bootstrap})`);
    await shot(page, 'external-group-delete');
    await page.locator('.n-popconfirm').getByRole('button', { name: 'Cancel', exact: true }).click();
    await asked.waitFor({ state: 'detached' });
    expect((await groups()).map((g) => g.groupId)).toContain('remote-billing');
    await remove.click();
    await asked.getByTestId('external-target').waitFor({ timeout: 10_000 });
    await page.locator('.n-popconfirm').getByRole('button', { name: 'Confirm', exact: true }).click();
    await until(async () => !(await groups()).some((g) => g.groupId === 'remote-billing'), 20_000, 'remote-billing deleted on the second cluster');
    expect(await page.getByTestId('external-confirm').count()).toBe(0);
  });

  it('switches back to the host’s own cluster', async () => {
    await nav('Connections');
    const own = page.locator('tr', { hasText: 'local (this host)' });
    await own.getByRole('button', { name: 'Switch to' }).click();
    await page.getByTestId('active-connection').waitFor({ state: 'detached', timeout: 20_000 });
    await nav('Topics');
    await page.getByText('local-only').first().waitFor({ timeout: 20_000 });
    expect(await page.getByText('remote-orders').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
