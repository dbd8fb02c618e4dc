/**
 * The Schemas page in Chromium against `npm run serve -- --schema-registry-port P`: subjects that
 * Confluent's client registered over the REST API, two versions side by side, a draft checked at
 * the subject's level and refused with the registry's 409, then registered and seen by Confluent's
 * client as the next version; a subject registered meanwhile appears without a reload; and a scan
 * says which topics' records (kafkajs with Confluent's Avro serializer) carry which ids; on an
 * external connection the page says why it has no registry to show.
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AvroSerializer, SchemaRegistryClient, SerdeType } from '@confluentinc/schemaregistry';
import { Kafka, logLevel } from 'kafkajs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const ORDER_V1 = { type: 'record', name: 'Order', namespace: 'shop', fields: [{ name: 'id', type: 'string' }] };
const ORDER_V2 = { ...ORDER_V1, fields: [...ORDER_V1.fields, { name: 'note', type: ['null', 'string'], default: null }] };

describe('Schemas page in Chromium against npm run serve with the Schema Registry', () => {
  let host: ServedHost;
  let browser: Browser;
  let registry: SchemaRegistryClient;
  let registryUrl: string;
  let configDir: string;
  let page: Page;
  let pageErrors: string[];
  const shot = screenshotter('schemas-page');

  beforeAll(async () => {
    const port = await freePort();
    // Its own connection list: the external connection added below stays out of the user's.
    configDir = mkdtempSync(join(tmpdir(), 'rs-schemas-e2e-'));
    host = await startServe({ extraArgs: ['--schema-registry-port', String(port), '--config', configDir] });
    browser = await launchBrowser();
    registryUrl = `http://127.0.0.1:${port}`;
    registry = new SchemaRegistryClient({ baseURLs: [registryUrl] });
    expect(await registry.register('orders-value', { schemaType: 'AVRO', schema: JSON.stringify(ORDER_V1) }, false)).toBe(1);
    expect(await registry.register('orders-value', { schemaType: 'AVRO', schema: JSON.stringify(ORDER_V2) }, false)).toBe(2);
    // Records from a real client: 3 with v1, then 2 with v2, all values framed by Confluent's serializer.
    await api(host, 'topics.create', { name: 'orders', partitions: 2, replicationFactor: 3 });
    await api(host, 'topics.create', { name: 'plain', partitions: 1, replicationFactor: 1 });
    const { bootstrapServers } = await api<{ bootstrapServers: string }>(host, 'cluster.describe', {});
    const kafka = new Kafka({ brokers: bootstrapServers.split(','), logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    const v1 = new AvroSerializer(registry, SerdeType.VALUE, { useLatestVersion: false, autoRegisterSchemas: false, useSchemaId: 1 });
    const v2 = new AvroSerializer(registry, SerdeType.VALUE, { useLatestVersion: true });
    const messages = [];
    for (let i = 0; i < 3; i++) messages.push({ key: `o-${i}`, value: await v1.serialize('orders', { id: `o-${i}` }) });
    for (let i = 3; i < 5; i++) messages.push({ key: `o-${i}`, value: await v2.serialize('orders', { id: `o-${i}`, note: 'rush' }) });
    await producer.send({ topic: 'orders', messages, acks: -1 });
    await producer.send({ topic: 'plain', messages: [{ value: 'not framed' }], acks: -1 });
    await producer.disconnect();
    ({ page, pageErrors } = await openConsole(browser, host));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    expect(await host?.stop()).toBe(0);
    removeDir(host.dataDir);
    removeDir(configDir);
  });

  it('lists the subjects a client registered and shows two versions side by side', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Schemas', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Schemas' }).waitFor();
    await page.getByTestId('subject-orders-value').waitFor();
    expect(await page.getByTestId('schemas-globals').textContent()).toMatch(/Global compatibility BACKWARD · mode READWRITE · 1 subject/);
    expect(await page.getByTestId('subject-orders-value').textContent()).toContain('v2 · id 2 · AVRO');
    const versions = page.getByTestId('subject-versions').locator('tbody tr');
    expect(await versions.count()).toBe(2);
    expect(await page.getByTestId('subject-settings').textContent()).toMatch(/Compatibility BACKWARD\s*\(global\)/);
    // v1 on the left, v2 on the right: the new field is an added line on the right only.
    expect(await page.getByTestId('diff-summary').textContent()).toMatch(/added/);
    const added = page.getByTestId('schema-diff').locator('[data-kind="added"]');
    expect(await added.count()).toBeGreaterThan(0);
    expect(await added.allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('"note"')]));
    expect(await page.getByTestId('schema-diff').locator('[data-kind="removed"]').count()).toBe(0);
    await shot(page, 'side-by-side');
  });

  it('checks a draft at the subject level, shows the 409 on register, then registers a fixed draft Confluent reads back', async () => {
    await page.getByTestId('draft-from-latest').click();
    const draft = page.getByTestId('draft-text').locator('textarea');
    const latest = JSON.parse(await draft.inputValue()) as typeof ORDER_V2;
    expect(latest.fields.map((f) => f.name)).toEqual(['id', 'note']);
    await draft.fill(JSON.stringify({ ...latest, fields: [...latest.fields, { name: 'total', type: 'double' }] }, null, 2));
    await page.getByTestId('draft-check').click();
    await expect.poll(() => page.getByTestId('draft-result').textContent(), { timeout: 15_000 }).toMatch(/Not compatible at BACKWARD.*total/s);
    await shot(page, 'draft-refused');
    await page.getByTestId('draft-register').click();
    await expect.poll(() => page.getByTestId('draft-result').textContent(), { timeout: 15_000 }).toMatch(/Schema Registry error 409/);

    await draft.fill(JSON.stringify({ ...latest, fields: [...latest.fields, { name: 'total', type: 'double', default: 0 }] }, null, 2));
    await page.getByTestId('draft-check').click();
    await expect.poll(() => page.getByTestId('draft-result').textContent(), { timeout: 15_000 }).toMatch(/Compatible at BACKWARD/);
    await page.getByTestId('draft-register').click();
    await expect.poll(() => page.getByTestId('draft-result').textContent(), { timeout: 15_000 }).toMatch(/Registered in orders-value.*Schema id 3/s);
    // A fresh client: the first one cached the latest version when its serializer asked for it.
    const meta = await new SchemaRegistryClient({ baseURLs: [registryUrl] }).getLatestSchemaMetadata('orders-value');
    expect(meta).toMatchObject({ id: 3, version: 3 });
    expect((JSON.parse(meta.schema) as typeof ORDER_V2).fields.map((f) => f.name)).toEqual(['id', 'note', 'total']);
    await expect.poll(() => page.getByTestId('subject-versions').locator('tbody tr').count(), { timeout: 15_000 }).toBe(3);
  });

  it('shows a subject another client registers, without a reload', async () => {
    await registry.register('payments-value', { schemaType: 'AVRO', schema: JSON.stringify({ type: 'record', name: 'Payment', fields: [{ name: 'amount', type: 'double' }] }) }, false);
    await page.getByTestId('subject-payments-value').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('schemas-globals').textContent()).toMatch(/2 subjects/);
  });

  it('says which topics carry which schema ids', async () => {
    await page.getByTestId('subject-orders-value').click();
    await page.getByTestId('usage-scan').click();
    await page.getByTestId('usage-table').waitFor({ timeout: 30_000 });
    const rows = await page.getByTestId('usage-table').locator('tbody tr').allTextContents();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^1\s*orders-value\s*orders\s*value\s*3 of 5/);
    expect(rows[1]).toMatch(/^2\s*orders-value\s*orders\s*value\s*2 of 5/);
    expect(await page.getByTestId('usage-unframed').textContent()).toContain('plain: 1');
    // The versions table names the topic for the ids records carry, and none for the new one.
    const versions = await page.getByTestId('subject-versions').locator('tbody tr').allTextContents();
    expect(versions[0]).toContain('orders');
    expect(versions[2]).toContain('none scanned');
    await shot(page, 'usage');
    expect(pageErrors).toEqual([]);
  });

  it('on an external connection says why there is no registry to show, instead of an empty page', async () => {
    const { bootstrapServers } = await api<{ bootstrapServers: string }>(host, 'cluster.describe', {});
    const ext = await api<{ id: string }>(host, 'connections.addExternal', { name: 'over-kafka', settings: { bootstrapServers: bootstrapServers.split(',') } });
    const active = JSON.stringify({ id: ext.id, name: 'over-kafka', kind: 'external', bootstrap: bootstrapServers });
    await page.evaluate(`sessionStorage.setItem('replica-studio.connection', ${JSON.stringify(active)})`);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Schemas' }).waitFor();
    await expect.poll(() => page.getByTestId('schemas-unavailable').textContent(), { timeout: 20_000 }).toMatch(/UNSUPPORTED_FOR_CONNECTION.*Schema Registry is a server of its own/s);
    expect(await page.getByTestId('schemas-subjects').count()).toBe(0);
    await page.evaluate("sessionStorage.removeItem('replica-studio.connection')");
    expect(pageErrors).toEqual([]);
  });
});
