/**
 * A twin from the console, in Chromium: the console host (`npm run serve` with a config directory
 * of its own) reaches a second `npm run serve`, the "production" cluster, only over the Kafka
 * protocol. On the Connections page the user adds it, makes a twin of it (progress while it is
 * made, a refused name said plainly), refreshes the twin after production changed (the drift as a
 * diff, applied once confirmed); switched to the twin, the Impact page predicts a rack's stop,
 * rehearses it (the rack's brokers really killed) and shows the prediction beside what the engine
 * did, every partition agreeing; the report downloads as Markdown; a reassignment plan is
 * predicted (before, during, after, copy time at the throttle), rehearsed on the twin, and
 * executed on production after the confirmation that names production.
 */
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrokerView, ConnectionView, TopicView } from '../app/api/contract.js';
import { api, launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';
import { startKafkaServe, until, type KafkaServe } from './support/kafka-serve.js';

describe('a twin made, refreshed and rehearsed on from the console', () => {
  let production: KafkaServe;
  let console_: ServedHost;
  let configDir: string;
  let browser: Browser;
  let page: Page;
  let rack2 = '';
  let twin: ConnectionView;
  /** The twin's partitions with a replica on broker 2, counted before the rack is failed. */
  let onRack2 = 0;
  const shot = screenshotter('twin-console');
  const onProduction = <T>(method: string, input: Record<string, unknown> = {}): Promise<T> => api<T>(production.host, method, input);
  const onTwin = <T>(method: string, input: Record<string, unknown> = {}): Promise<T> => api<T>(console_, method, { ...input, connection: twin.id });
  const text = async (testId: string): Promise<string> => ((await page.getByTestId(testId).first().innerText()) ?? '').replace(/\s+/g, ' ').trim();
  async function go(path: string, heading: string): Promise<void> {
    await page.evaluate(`location.hash = ${JSON.stringify(`#${path}`)}`);
    await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor({ timeout: 20_000 });
  }

  beforeAll(async () => {
    configDir = mkdtempSync(join(tmpdir(), 'rs-twin-console-config-'));
    [console_, production] = await Promise.all([startServe({ extraArgs: ['--config', configDir] }), startKafkaServe()]);
    await onProduction('clock.setScale', { scale: 20 });
    rack2 = (await onProduction<BrokerView[]>('brokers.list')).find((b) => b.id === 2)!.rack!;
    await onProduction('topics.create', { name: 'payments', assignments: [[1, 2, 3], [2, 3, 1], [3, 1, 2]], configs: { 'min.insync.replicas': '2' } });
    await onProduction('topics.create', { name: 'solo', assignments: [[2], [3]] });
    await until(async () => (await production.topic('payments')).partitions.every((p) => p.isr.length === 3), 60_000, 'payments fully replicated');
    await onProduction('records.produce', { topic: 'payments', partition: 0, acks: 'all', records: Array.from({ length: 20 }, (_, i) => ({ value: `payment ${i}` })) });
    // solo-1 holds data, so moving it copies bytes at the throttle.
    await onProduction('records.produce', { topic: 'solo', partition: 1, acks: 1, records: Array.from({ length: 40 }, (_, i) => ({ value: `solo ${i} `.padEnd(100, '.') })) });
    browser = await launchBrowser();
    ({ page } = await openConsole(browser, console_));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await console_?.stop();
    await production?.stop();
    removeDir(configDir);
  });

  it('adds production, makes a twin of it with its progress shown, and says plainly why a second one is refused', async () => {
    await go('/connections', 'Connections');
    await page.getByTestId('external-name').locator('input').fill('production');
    await page.getByTestId('external-bootstrap').locator('input').fill(production.bootstrap);
    await page.getByTestId('external-add').click();
    await page.getByTestId('twin-production').click();
    expect(await page.getByTestId('twin-name').locator('input').inputValue()).toBe('production twin');
    await page.getByTestId('twin-create').click();
    await page.getByTestId('twin-progress').waitFor({ timeout: 10_000 });
    expect(await text('twin-progress')).toContain('Reading production, starting its brokers and copying its topology');
    await page.getByTestId('twin-made').waitFor({ timeout: 120_000 });
    expect(await text('twin-made')).toMatch(/production twin is a twin of production \(cluster \S+\): .*2 topics/);
    // The steps it went through, in order; the fill counts the partitions holding records (payments-0 and solo-1).
    expect(await text('twin-steps')).toBe('Reading the source Starting the brokers Creating the topics Filling 2 of 2 partitions');
    await shot(page, 'twin-made');
    await page.getByRole('button', { name: 'Close', exact: true }).click();
    await expect.poll(() => text('twin-of-production twin')).toContain('Twin of production');
    twin = (await api<ConnectionView[]>(console_, 'connections.list')).find((c) => c.name === 'production twin')!;
    expect((await onTwin<TopicView>('topics.describe', { name: 'payments' })).partitions.map((p) => p.replicas)).toEqual([[1, 2, 3], [2, 3, 1], [3, 1, 2]]);

    await page.getByTestId('twin-production').click();
    await page.getByTestId('twin-create').click();
    await page.getByTestId('twin-error').waitFor();
    expect(await text('twin-error')).toContain('The twin was not made: INVALID_REQUEST');
    expect(await text('twin-error')).toContain('A connection named "production twin" exists already.');
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  });

  it('shows the drift after production changed as a diff, and applies it once confirmed', async () => {
    await onProduction('topics.create', { name: 'late', partitions: 1, replicationFactor: 2 });
    await onProduction('configs.alter', { resource: { type: 'topic', name: 'payments' }, set: { 'retention.ms': '3600000' } });
    await page.getByTestId('twin-refresh-production twin').click();
    await page.getByTestId('twin-drift-topics').waitFor({ timeout: 30_000 });
    expect(await text('twin-drift-topics')).toMatch(/topic-added topic late/);
    expect(await text('twin-drift-configs')).toMatch(/topic-config .*retention\.ms.*3600000/);
    await shot(page, 'drift');
    await page.getByTestId('twin-drift-apply').click();
    await page.getByTestId('twin-drift-apply-confirm').click();
    await page.getByTestId('twin-drift-modal').waitFor({ state: 'detached', timeout: 60_000 });
    expect((await onTwin<TopicView>('topics.describe', { name: 'late' })).partitions).toHaveLength(1);
    await page.getByTestId('twin-refresh-production twin').click();
    await page.getByTestId('twin-drift-none').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Close', exact: true }).click();
  });

  it('rehearses a rack failure on the twin: the prediction and what the engine did, side by side, agree', async () => {
    await page.getByTestId('switch-production twin').click();
    await page.getByTestId('active-connection').getByText('production twin').waitFor({ timeout: 30_000 });
    // The console reloads on the Overview: the router's first navigation done before the next hash change.
    await page.getByRole('heading', { level: 1, name: 'Overview', exact: true }).waitFor({ timeout: 30_000 });
    await onTwin('clock.setScale', { scale: 60 });
    await go('/impact', 'Impact');
    await page.getByTestId('impact-racks').getByText(rack2, { exact: true }).click();
    await page.getByTestId('impact-predict').click();
    await page.getByTestId('impact-table').waitFor();
    await page.getByTestId('rehearse-stop-run').click();
    await page.getByTestId('rehearse-stop-confirm').click();
    await page.getByTestId('rehearse-verdict').waitFor({ timeout: 60_000 });
    // payments-0..2 and solo-0 have a replica on broker 2 (the only broker of that rack), and late-0 where production placed it there.
    const names = ['payments', 'solo', 'late'];
    onRack2 = (await Promise.all(names.map((name) => onTwin<TopicView>('topics.describe', { name })))).flatMap((t) => t.partitions).filter((p) => p.replicas.includes(2)).length;
    expect(onRack2).toBeGreaterThanOrEqual(4);
    expect(await text('rehearse-verdict')).toContain(`Predicted and observed agree on all ${onRack2} partitions.`);
    const table = await text('rehearse-table');
    // solo-0 lived on broker 2 alone: predicted offline, and offline it is.
    expect(table).toContain('solo-0 2 none 2 — offline none 2 — offline yes');
    // payments-1 was led by 2: its next in-sync replica, 3, leads, as predicted.
    expect(table).toContain('payments-1 2, 3, 1 3 1, 3 — available 3 1, 3 — available yes');
    await shot(page, 'rehearsed');
    expect((await onTwin<BrokerView[]>('brokers.list')).find((b) => b.id === 2)!.state).toBe('killed');
    // Production was not touched.
    expect((await onProduction<BrokerView[]>('brokers.list')).every((b) => b.state === 'running')).toBe(true);
  });

  it('exports the twin report as Markdown: made, refreshed, the rehearsal with predicted against observed', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('rehearse-report').click()]);
    expect(download.suggestedFilename()).toMatch(/^rehearsal-production-twin\.md$/);
    const md = readFileSync((await download.path())!, 'utf8');
    expect(md).toContain('# Rehearsal report: production twin');
    expect(md).toMatch(/A twin of \*\*production\*\* \(cluster `\S+`\)/);
    expect(md).toMatch(/: made from production\n/);
    expect(md).toMatch(/: refreshed from production\n/);
    expect(md).toMatch(/\| topic-added \| topic late \|/);
    expect(md).toContain(`stop rack ${rack2}`);
    expect(md).toMatch(/Broker 2 killed \(a crash\), each once the controller had fenced the one before\. Took \d+\.\d s of cluster time/);
    expect(md).toContain(`Prediction and engine agree on all ${onRack2} partitions.`);
    expect(md).toContain('| solo-0 | 2 | none | none | 2 | 2 | offline | offline | yes |');
    expect(md).toContain('| payments-1 | 2, 3, 1 | 3 | 3 | 1, 3 | 1, 3 | available | available | yes |');
  });

  it('predicts a plan, rehearses it on the twin, and executes it on production after the confirmation naming production', async () => {
    await page.getByTestId('rehearse-restart').click();
    await until(async () => (await onTwin<BrokerView[]>('brokers.list')).every((b) => b.state === 'running'), 60_000, 'broker 2 back on the twin');
    await page.getByTestId('plan-json').locator('textarea').fill(JSON.stringify({ version: 1, partitions: [{ topic: 'payments', partition: 0, replicas: [1, 3, 2] }, { topic: 'solo', partition: 1, replicas: [1] }] }));
    await page.getByTestId('plan-throttle').locator('input').fill('1000');
    await page.getByTestId('plan-predict').click();
    await page.getByTestId('plan-moves').waitFor();
    const moves = await text('plan-moves');
    // solo-1 moves from broker 3 to 1: while 1 copies, both are replicas and only 3 is in sync (below min ISR 2 of two replicas).
    expect(moves).toMatch(/solo-1 replicas 3 leader 3, ISR 3 available replicas 1, 3 \(\+1\) \(−3\) leader 3, ISR 3 under-min-isr replicas 1 leader 1, ISR 1 available [\d.]+ KiB/);
    expect(await text('plan-copy-time')).toMatch(/Copy time: .+ at 1000 B\/s/);
    expect(await text('plan-brokers')).toMatch(/1 \(\S+\) \d+ \/ \d+ \/ \d+/);
    await shot(page, 'plan');

    await page.getByTestId('plan-rehearse').click();
    await page.getByTestId('plan-rehearse-confirm').click();
    await page.getByTestId('plan-rehearsed').waitFor({ timeout: 120_000 });
    expect(await text('plan-rehearsed')).toMatch(/^2 of 2 moves ended as predicted\. Copy took .+ of cluster time \(estimated .+\)\.$/);

    await page.getByTestId('plan-execute-source').click();
    const confirm = page.getByTestId('external-confirm');
    await confirm.waitFor();
    expect(await confirm.innerText()).toContain(`move the replicas of 2 partitions on production (${production.bootstrap})`);
    await page.getByRole('button', { name: 'Change production', exact: true }).click();
    await until(async () => same((await production.topic('solo')).partitions[1]!.replicas, [1]) && same((await production.topic('payments')).partitions[0]!.replicas, [1, 3, 2]), 60_000, 'the plan done on production');
  });

  it("follows a group's coordinator through a rehearsed stop and shows where it went beside where it was predicted", async () => {
    await onTwin('consumers.start', { groupId: 'billing', topics: ['payments'] });
    const state = async (): Promise<string> => (await onTwin<{ state: string }>('groups.describe', { groupId: 'billing' }).catch(() => ({ state: 'loading' }))).state;
    await until(async () => (await state()) === 'Stable', 60_000, 'billing stable on the twin');
    // The rack chosen above is still chosen: predicted again, now with the group's coordinator among what it moves.
    await page.getByTestId('impact-predict').click();
    await page.getByTestId('impact-table').waitFor();
    await page.getByTestId('rehearse-stop-run').click();
    await page.getByTestId('rehearse-stop-confirm').click();
    await page.getByTestId('rehearse-coordinators-verdict').waitFor({ timeout: 60_000 });
    expect(await text('rehearse-coordinators-verdict')).toBe('Every group coordinator is where it was predicted (1 group).');
    // Group, its __consumer_offsets partition, predicted and observed coordinator, agrees.
    expect(await text('rehearse-coordinators')).toMatch(/billing \d+ \d+ \d+ yes/);
    await shot(page, 'rehearsed-coordinators');
  });
});

const same = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
