/**
 * The Overview's "Connect a Kafka client" card in Chromium against `npm run serve -- --kafka-port 0`:
 * it shows cluster.describe's bootstrap string and copies it, and its snippets are ready to paste:
 * the kcat, kafka-python and kafkajs ones are taken from the page as shown and run against the
 * cluster (each produces a record and reads it back); the Java one names the same servers, topic
 * and group (no JVM here). The kcat and Python runs are skipped with one line without the tool.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupView } from '../app/api/contract.js';
import { api, launchBrowser, openConsole, screenshotter } from './support/harness.js';
import { startKafkaServe, type KafkaServe } from './support/kafka-serve.js';
import { checkTool, OPTIONAL_TOOLS } from './support/optional-tools.js';
import { runTool } from './support/run-tool.js';

const ROOT = join(import.meta.dirname, '..');

describe('the Overview shows how to connect a Kafka client', () => {
  let k: KafkaServe;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: string[];
  const shot = screenshotter('overview-kafka-clients');

  beforeAll(async () => {
    k = await startKafkaServe();
    await api(k.host, 'topics.create', { name: 'orders', partitions: 3, replicationFactor: 3 });
    browser = await launchBrowser();
    ({ context, page, pageErrors } = await openConsole(browser, k.host, '/'));
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: k.host.origin });
  });
  afterAll(async () => {
    await browser?.close();
    await k?.stop();
  });

  /** The snippet of one tab, as the page shows it. */
  async function snippet(tab: string, id: string): Promise<string> {
    await page.getByRole('tab', { name: tab, exact: true }).click();
    const code = page.getByTestId(`snippet-${id}`).locator('pre');
    await code.waitFor();
    return (await code.textContent()) ?? '';
  }

  it('shows the bootstrap string of cluster.describe and copies it', async () => {
    const shown = page.getByTestId('bootstrap-servers');
    await expect.poll(() => shown.textContent(), { timeout: 20_000 }).toBe(k.bootstrap);
    expect(k.bootstrap).toMatch(/^127\.0\.0\.1:\d+,127\.0\.0\.1:\d+,127\.0\.0\.1:\d+$/);
    await page.getByTestId('bootstrap-copy').click();
    await expect.poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(k.bootstrap);
    // The snippets name one of the cluster's topics.
    await expect.poll(() => page.getByTestId('snippet-topic').textContent()).toContain('orders');
    await shot(page, 'kafka-clients');
    expect(pageErrors).toEqual([]);
  });

  it('the Java snippet names the servers, the topic and the group', async () => {
    const java = await snippet('Java', 'java');
    expect(java).toContain(`p.put("bootstrap.servers", "${k.bootstrap}")`);
    expect(java).toContain('new ProducerRecord<>("orders"');
    expect(java).toContain('c.put("group.id", "quickstart")');
  });

  it.skipIf(!checkTool(OPTIONAL_TOOLS.kcat).available)('the kcat snippet, pasted into a shell, lists the brokers, produces and consumes (its -G line is left out: it runs until Ctrl-C)', async () => {
    const lines = (await snippet('kcat', 'kcat')).split('\n').filter((l) => l.startsWith('kcat') || l.startsWith('echo'));
    expect(lines.some((l) => l.includes(' -G '))).toBe(true);
    const script = lines.filter((l) => !l.includes(' -G ')).join('\n');
    const r = await runTool('sh', ['-ec', script], { ms: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/3 brokers:/);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('hello');
  }, 90_000);

  it.skipIf(!checkTool(OPTIONAL_TOOLS.kafkaPython).available)('the Python snippet, run as shown, produces a record and reads it back in its consumer group', async () => {
    const r = await runTool('/usr/bin/python3', ['-c', await snippet('Python', 'python')], { ms: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^partition \d offset \d+: hello$/m);
    const g = await api<GroupView>(k.host, 'groups.describe', { groupId: 'quickstart' });
    expect(g.partitions.length).toBeGreaterThan(0);
  }, 120_000);

  it('the Node snippet, saved as quickstart.mjs where kafkajs is installed, produces a record and consumes it in its group', async () => {
    const dir = mkdtempSync(join(ROOT, 'e2e', 'artifacts', 'quickstart-'));
    try {
      const file = join(dir, 'quickstart.mjs');
      writeFileSync(file, await snippet('Node', 'node'));
      const r = await runTool(process.execPath, [file], { ms: 90_000, until: /partition \d offset \d+: hello/ });
      expect(r.stdout, r.stderr).toMatch(/partition \d offset \d+: hello/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
