/**
 * The Impact page in Chromium against `npm run serve`: pick a broker, predict, read the outcome
 * per partition, the per-rack picture and the coordinators, export the prediction as CSV; then
 * the broker is really killed and the cluster ends in the exported leaders and ISRs.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';

async function until<T>(check: () => Promise<T>, timeoutMs = 30_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('Impact page in Chromium against npm run serve', () => {
  let host: ServedHost;
  let browser: Browser;
  let page: Page;
  const shot = screenshotter('impact');

  async function api<T = unknown>(method: string, body: object = {}): Promise<T> {
    const res = await fetch(`${host.origin}/api/${method}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${host.token}` }, body: JSON.stringify(body) });
    const out = (await res.json()) as { ok: boolean; value: T; error?: { code: string; message: string } };
    if (!out.ok) throw new Error(`${method}: ${out.error?.code} ${out.error?.message}`);
    return out.value;
  }
  type Broker = { id: number; state: string; rack: string | null };
  type Topic = { name: string; partitions: { partition: number; leader: number; isr: number[] }[] };

  beforeAll(async () => {
    host = await startServe();
    browser = await launchBrowser();
    await until(async () => (await api<Broker[]>('brokers.list')).every((b) => b.state === 'running'));
    await api('clock.setScale', { scale: 60 });
    await api('topics.create', { name: 'payments', assignments: [[1, 2, 3], [2, 3, 1], [3, 1, 2]], configs: { 'min.insync.replicas': '2' } });
    await api('topics.create', { name: 'solo', assignments: [[2], [1]] });
    await until(async () => (await api<Topic>('topics.describe', { name: 'payments' })).partitions.every((p) => p.isr.length === 3));
    ({ page } = await openConsole(browser, host));
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Impact', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Impact' }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    expect(await host?.stop()).toBe(0);
    removeDir(host.dataDir);
  });

  it('predicts what stopping broker 2 does, worst first, with the per-rack picture', async () => {
    const brokers = await api<Broker[]>('brokers.list');
    const rack2 = brokers.find((b) => b.id === 2)!.rack;
    await page.getByTestId('impact-brokers').getByText(rack2 ? `2 (${rack2})` : '2', { exact: true }).click();
    await page.getByTestId('impact-predict').click();
    const table = page.getByTestId('impact-table');
    await table.waitFor();
    // solo-0 lives on broker 2 alone: offline, listed first.
    await expect.poll(() => table.innerText()).toContain('solo');
    const text = (await table.innerText()).replace(/\s+/g, ' ');
    // solo-0 lives on broker 2 alone: offline (its last ISR member stays in the ISR without ELR), listed first.
    expect(text).toMatch(/^Topic Partition Replicas Outcome Leader Elected from ISR after ELR after solo 0 2 offline 2 → none 2 \(min 1\) — payments/);
    // payments-1 was led by 2: its leader moves to 3, the next in-sync replica in assignment order; acks=all still works.
    expect(text).toContain('payments 1 2, 3, 1 available 2 → 3 ISR, in assignment order 3, 1 (min 2) —');
    expect(text).toContain('payments 0 1, 2, 3 available 1 1, 3 (min 2) —');
    expect(await page.getByTestId('impact-count-offline').innerText()).toMatch(/1\s+was 0/);
    expect(await page.getByTestId('impact-summary').innerText()).toContain('4 with a replica on a stopping broker');
    const racks = await page.getByTestId('impact-racks-table').innerText();
    expect(racks).toMatch(new RegExp(`${rack2 ?? '\\(no rack\\)'}\\s+2\\s+2\\s`));
    await shot(page, 'broker-2');
    // Nothing was stopped.
    expect((await api<Broker[]>('brokers.list')).find((b) => b.id === 2)!.state).toBe('running');
  });

  it('exports the prediction as CSV, and the cluster ends there once broker 2 is killed', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('impact-export-csv').click()]);
    expect(download.suggestedFilename()).toBe('impact-stop-brokers-2.csv');
    const [header, ...rows] = readFileSync((await download.path())!, 'utf8').trimEnd().split('\n').map((l) => l.split(','));
    const col = (name: string) => header!.indexOf(name);
    expect(rows.map((r) => `${r[0]}-${r[1]}`).sort()).toEqual(['payments-0', 'payments-1', 'payments-2', 'solo-0']);

    await api('brokers.kill', { brokerId: 2 });
    const observed = async () => {
      const out = new Map<string, string>();
      for (const name of ['payments', 'solo']) for (const p of (await api<Topic>('topics.describe', { name })).partitions) out.set(`${name}-${p.partition}`, `${p.leader} ${[...p.isr].sort().join(' ')}`);
      return out;
    };
    const predicted = new Map(rows.map((r) => [`${r[0]}-${r[1]}`, `${r[col('leader_after')]} ${r[col('isr_after')]!.split(' ').sort().join(' ')}`]));
    await until(async () => {
      const now = await observed();
      return [...predicted].every(([k, v]) => now.get(k) === v);
    }).catch(() => undefined);
    const now = await observed();
    expect(Object.fromEntries([...predicted].map(([k]) => [k, now.get(k)]))).toEqual(Object.fromEntries(predicted));
  });
});
