/**
 * The Connections page in Chromium against `npm run serve`: add an external Kafka cluster (a
 * second `npm run serve`, reached only over the Kafka protocol), test it, switch this window to
 * it and see its topics (not the host's), rebalance it from the Balance page, and switch back.
 * Every change to the external cluster asks first, naming it and its bootstrap servers: the
 * rebalance is confirmed, a topic deletion is cancelled and sends nothing. A page whose own dialog
 * confirms (the bulk delete, the topic page's delete) names the cluster there and is the only
 * dialog: a topic deleted from its page on the external cluster asks once.
 * What the external cluster cannot offer is listed with the reason.
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

  async function nav(label: string): Promise<void> {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: label }).waitFor();
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
    await page.getByTestId('execute-suggestion').click();
    await page.getByTestId('execute-modal').waitFor();
    await page.getByTestId('confirm-execute').click();
    // A change to an external cluster asks first, naming the cluster and its bootstrap servers.
    const confirm = page.getByTestId('external-confirm');
    await confirm.waitFor({ timeout: 10_000 });
    expect(await confirm.textContent()).toContain(`move the replicas of`);
    expect(await confirm.textContent()).toContain(`second (${second.bootstrap})`);
    await shot(page, 'external-confirm');
    await page.getByRole('button', { name: 'Change second' }).click();
    await until(async () => {
      const t = await api<{ partitions: { replicas: number[] }[] }>(second.host, 'topics.describe', { name: 'remote-orders' });
      return t.partitions.some((p) => p.replicas.includes(3));
    }, 60_000, 'a replica of remote-orders on broker 3');
    await shot(page, 'external-rebalanced');
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
