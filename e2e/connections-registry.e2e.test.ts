/**
 * An external connection's Schema Registry in Chromium against two `npm run serve`: the second,
 * reached only over the Kafka protocol, serves its own registry. The Connections page says what is
 * wrong with the registry fields as they are typed (a URL without a scheme, basic auth without a
 * username or password, a bearer token missing) and will not save until they are right; saved, the
 * row names the registry. Switched to that connection, the Messages page produces JSON Lines with
 * a subject of that registry through the Kafka driver, and Confluent's own deserializer decodes
 * the bytes on the second cluster, and a zstd batch is stored as zstd. The registry is then changed from its row to a bearer token,
 * which is kept with the secrets and never shown.
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AvroDeserializer, SchemaRegistryClient, SerdeType } from '@confluentinc/schemaregistry';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionView } from '../app/api/connections.js';
import type { RecordsSearchView } from '../app/api/records-search-contract.js';
import { api, launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';
import { startKafkaServe, type KafkaServe } from './support/kafka-serve.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const EVENT = { type: 'record', name: 'Event', namespace: 'ops', fields: [{ name: 'id', type: 'string' }, { name: 'level', type: 'int' }] };

describe('an external connection’s Schema Registry in Chromium: the fields, produce with its schema, and a change of auth', () => {
  let host: ServedHost;
  let second: KafkaServe;
  let registryUrl: string;
  let schemaId: number;
  let configDir: string;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[];
  const shot = screenshotter('connections-registry');

  async function nav(label: string): Promise<void> {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: label }).waitFor();
  }
  const problem = () => page.getByTestId('registry-problem');
  const secondOf = async (): Promise<ConnectionView> => (await api<ConnectionView[]>(host, 'connections.list', {})).find((c) => c.name === 'second')!;

  beforeAll(async () => {
    const port = await freePort();
    configDir = mkdtempSync(join(tmpdir(), 'rs-connections-registry-e2e-'));
    [host, second] = await Promise.all([startServe({ extraArgs: ['--config', configDir] }), startKafkaServe({ extraArgs: ['--schema-registry-port', String(port)] })]);
    registryUrl = `http://127.0.0.1:${port}`;
    schemaId = await new SchemaRegistryClient({ baseURLs: [registryUrl] }).register('events-value', { schemaType: 'AVRO', schema: JSON.stringify(EVENT) }, false);
    await api(second.host, 'topics.create', { name: 'events', partitions: 2, replicationFactor: 2 });
    browser = await launchBrowser();
    ({ page, pageErrors } = await openConsole(browser, host));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await second?.stop();
    if (configDir) removeDir(configDir);
  });

  it('says what is wrong with the registry fields, saves only when they are right, and the row names the registry', async () => {
    await nav('Connections');
    const save = page.getByTestId('external-add');
    await page.getByTestId('external-name').locator('input').fill('second');
    await page.getByTestId('external-bootstrap').locator('input').fill(second.bootstrap);
    expect(await save.isEnabled()).toBe(true);
    // No scheme: the contract's rule, said in words; nothing can be saved.
    await page.getByTestId('registry-url').locator('input').fill(`127.0.0.1:${new URL(registryUrl).port}`);
    await expect.poll(() => problem().textContent()).toMatch(/http:\/\/ or https:\/\//);
    expect(await save.isDisabled()).toBe(true);
    await page.getByTestId('registry-url').locator('input').fill(registryUrl);
    await expect.poll(() => problem().count()).toBe(0);
    // Basic auth needs a username, then a password.
    await page.getByTestId('registry-auth').getByText('Basic', { exact: true }).click();
    await expect.poll(() => problem().textContent()).toMatch(/username/);
    await page.getByTestId('registry-username').locator('input').fill('svc');
    await expect.poll(() => problem().textContent()).toMatch(/password/);
    expect(await save.isDisabled()).toBe(true);
    await shot(page, 'registry-problem');
    // This registry asks for no credentials.
    await page.getByTestId('registry-auth').getByText('None', { exact: true }).click();
    await expect.poll(() => problem().count()).toBe(0);
    await save.click();
    await page.getByTestId('connection-second').waitFor({ timeout: 15_000 });
    const line = page.getByTestId('registry-of-second');
    await expect.poll(() => line.textContent(), { timeout: 15_000 }).toContain(registryUrl);
    expect(await line.textContent()).toContain('no authentication');
    // With its registry the connection no longer lists the Schema Registry among what it cannot offer.
    const saved = await secondOf();
    expect(saved.external?.schemaRegistry).toEqual({ url: registryUrl, passwordSaved: false, tokenSaved: false });
    expect(saved.capabilities.find((c) => c.name === 'schemaRegistry')?.available).toBe(true);
    await shot(page, 'saved-with-registry');
  });

  it('switched to it, produces JSON Lines with its subject: Confluent’s deserializer decodes the bytes on the second cluster', async () => {
    await page.getByTestId('switch-second').click();
    await page.getByTestId('active-connection').getByText('second').waitFor({ timeout: 20_000 });
    await nav('Messages');
    await page.getByTestId('transfer-target').click();
    await page.locator('.n-base-select-option', { hasText: /^events$/ }).locator('visible=true').click();
    await page.getByTestId('lines-input').locator('textarea').fill('{"key": "e-1", "value": {"id": "e-1", "level": 3}}\n{"key": "e-2", "value": {"id": "e-2", "level": 5}}');
    await page.getByTestId('lines-subject').locator('input').fill('events-value');
    await page.getByTestId('lines-produce').click();
    const read = (): Promise<RecordsSearchView> => api<RecordsSearchView>(second.host, 'records.search', { topic: 'events', from: { beginning: true } });
    await expect.poll(async () => (await read()).records.length, { timeout: 20_000 }).toBe(2);
    const deser = new AvroDeserializer(new SchemaRegistryClient({ baseURLs: [registryUrl] }), SerdeType.VALUE, {});
    const values = [];
    for (const r of (await read()).records) {
      const bytes = Buffer.from(r.value!.base64, 'base64');
      expect(bytes.readInt32BE(1)).toBe(schemaId);
      values.push(await deser.deserialize('events', bytes));
    }
    expect(values.sort((a, b) => String((a as { id: string }).id).localeCompare((b as { id: string }).id))).toEqual([{ id: 'e-1', level: 3 }, { id: 'e-2', level: 5 }]);
    // A value that does not fit the external registry's schema is refused, naming the field.
    await page.getByTestId('lines-input').locator('textarea').fill('{"value": {"id": "e-3", "level": "high"}}');
    await page.getByTestId('lines-produce').click();
    await expect.poll(() => page.getByTestId('lines-error').textContent(), { timeout: 15_000 }).toMatch(/level/);
    expect((await read()).records).toHaveLength(2);
    await shot(page, 'produced-with-external-schema');
    // The batch's codec through the Kafka driver: zstd (the serving host's compressor), stored as chosen.
    await page.getByTestId('lines-subject').locator('input').fill('');
    await page.getByTestId('lines-compression').click();
    await page.locator('.n-base-select-option', { hasText: /^zstd$/ }).locator('visible=true').click();
    await page.getByTestId('lines-input').locator('textarea').fill('{"key": "z-1", "value": "zipped by the console"}');
    await page.getByTestId('lines-produce').click();
    const zipped = async () => (await api<RecordsSearchView>(second.host, 'records.search', { topic: 'events', from: { beginning: true }, filter: { key: { contains: 'z-1' } } })).records[0];
    await expect.poll(async () => (await zipped())?.compression, { timeout: 20_000 }).toBe('zstd');
    expect((await zipped())?.value?.text).toBe('zipped by the console');
  });

  it('changes the saved connection’s registry to a bearer token from its row: refused without the token, kept and never shown', async () => {
    await nav('Connections');
    await page.getByTestId('registry-edit-second').click();
    const dialog = page.locator('.n-dialog', { hasText: 'Schema Registry of second' });
    await dialog.waitFor();
    expect(await dialog.getByTestId('registry-url').locator('input').inputValue()).toBe(registryUrl);
    await dialog.getByTestId('registry-auth').getByText('Bearer token', { exact: true }).click();
    await expect.poll(() => dialog.getByTestId('registry-problem').textContent()).toMatch(/token/);
    const saveButton = dialog.getByRole('button', { name: 'Save' });
    expect(await saveButton.isDisabled()).toBe(true);
    await dialog.getByTestId('registry-token').locator('input').fill('bearer-secret-1');
    await expect.poll(() => saveButton.isEnabled()).toBe(true);
    await saveButton.click();
    await expect.poll(() => page.getByTestId('registry-of-second').textContent(), { timeout: 15_000 }).toContain('bearer token');
    expect((await secondOf()).external?.schemaRegistry).toEqual({ url: registryUrl, passwordSaved: false, tokenSaved: true });
    expect(JSON.stringify(await api(host, 'connections.list', {}))).not.toContain('bearer-secret-1');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain('bearer-secret-1');
    expect(pageErrors).toEqual([]);
  });

  it('changes it back to no authentication from its row: the saved token is dropped, not kept behind the URL', async () => {
    await nav('Connections');
    await page.getByTestId('registry-edit-second').click();
    const dialog = page.locator('.n-dialog', { hasText: 'Schema Registry of second' });
    await dialog.waitFor();
    await dialog.getByTestId('registry-auth').getByText('None', { exact: true }).click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await secondOf()).external?.schemaRegistry, { timeout: 15_000 }).toEqual({ url: registryUrl, passwordSaved: false, tokenSaved: false });
    await expect.poll(() => page.getByTestId('registry-of-second').textContent(), { timeout: 15_000 }).toContain('no authentication');
    expect(pageErrors).toEqual([]);
  });
});
