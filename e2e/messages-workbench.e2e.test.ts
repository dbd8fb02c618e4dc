/**
 * The Messages workbench in Chromium against `npm run serve -- --schema-registry-port P`:
 * records a real client wrote (kafkajs producing bytes made by Confluent's AvroSerializer against
 * our registry) are browsed, filtered by CEL on the server and decoded in the page; the page
 * produces JSON Lines with headers and a schema (a subject's latest or an older version), and
 * Confluent's deserializer decodes those bytes; what a search finds is exported as JSON Lines and imported into another topic.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { AvroDeserializer, AvroSerializer, ProtobufDeserializer, SchemaRegistryClient, SerdeType } from '@confluentinc/schemaregistry';
import { Kafka, logLevel } from 'kafkajs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordsSearchView } from '../app/api/contract.js';
import { api, launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';
import { checkTool, OPTIONAL_TOOLS } from './support/optional-tools.js';

const kcatTool = checkTool(OPTIONAL_TOOLS.kcat);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function openMessages(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Messages', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Messages' }).waitFor();
  await page.getByTestId('browse-panel').waitFor();
}

async function pick(page: Page, testId: string, option: string): Promise<void> {
  await page.getByTestId(testId).click();
  // Menus stay mounted once opened: the visible one is this select's.
  const exact = option.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
  await page.locator('.n-base-select-option', { hasText: new RegExp(`^${exact}$`) }).locator('visible=true').click();
}

const PAYMENT = { type: 'record', name: 'Payment', namespace: 'shop', fields: [{ name: 'id', type: 'string' }, { name: 'amount', type: 'double' }] };
/** Version 2 of payments-value: a field with a default (BACKWARD compatible). */
const PAYMENT_V2 = { ...PAYMENT, fields: [...PAYMENT.fields, { name: 'note', type: 'string', default: '' }] };
const PAYMENT_KEY = { type: 'record', name: 'PaymentKey', namespace: 'shop', fields: [{ name: 'id', type: 'string' }] };

describe('Messages workbench in Chromium against npm run serve with the Schema Registry', () => {
  let host: ServedHost;
  let browser: Browser;
  let registryUrl: string;
  let kcatSnippet = '';
  let decodedRecord: RecordsSearchView | undefined;
  const shot = screenshotter('messages-workbench');

  beforeAll(async () => {
    const port = await freePort();
    registryUrl = `http://127.0.0.1:${port}`;
    host = await startServe({ extraArgs: ['--schema-registry-port', String(port)] });
    browser = await launchBrowser();
    await api(host, 'topics.create', { name: 'payments', partitions: 3, replicationFactor: 3 });
    await api(host, 'topics.create', { name: 'payments-copy', partitions: 3, replicationFactor: 3 });
    // A real client's records: Confluent's serializer (auto-registering) and kafkajs's producer.
    const registry = new SchemaRegistryClient({ baseURLs: [registryUrl] });
    expect(await registry.register('payments-value', { schemaType: 'AVRO', schema: JSON.stringify(PAYMENT) }, false)).toBe(1);
    const ser = new AvroSerializer(registry, SerdeType.VALUE, { useLatestVersion: true });
    const { bootstrapServers } = await api<{ bootstrapServers: string }>(host, 'cluster.describe', {});
    const kafka = new Kafka({ brokers: bootstrapServers.split(','), logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    const messages = [];
    for (let i = 0; i < 12; i++) messages.push({ key: `p-${i}`, value: await ser.serialize('payments', { id: `p-${i}`, amount: i * 2.5 }), headers: { source: i % 2 ? 'till-1' : 'till-2' } });
    await producer.send({ topic: 'payments', messages, acks: -1 });
    await producer.disconnect();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    expect(await host?.stop()).toBe(0);
    removeDir(host.dataDir);
  });

  it('browses across partitions, filters with CEL on the server and decodes the Avro values', async () => {
    const { page, pageErrors } = await openConsole(browser, host);
    await openMessages(page);
    await pick(page, 'browse-topic', 'payments');
    await page.getByTestId('browse-search').click();
    await expect.poll(async () => (await page.getByTestId('browse-records').locator('tbody tr').count()), { timeout: 15_000 }).toBe(12);
    expect(await page.getByTestId('browse-status').textContent()).toMatch(/12 scanned .* stopped because nothing is left to read/);
    expect(await page.getByTestId('browse-records').textContent()).toContain('AVRO #1');
    await page.getByTestId('browse-cel').locator('input').fill('value.amount > 20.0 && headers["source"] == "till-1"');
    await page.getByTestId('browse-search').click();
    // amounts 22.5 (i=9) and 27.5 (i=11) from till-1.
    await expect.poll(async () => (await page.getByTestId('browse-records').locator('tbody tr').count()), { timeout: 15_000 }).toBe(2);
    await shot(page, 'cel-filter');
    await page.getByTestId('browse-records').locator('tbody tr').first().click();
    await page.getByTestId('record-drawer').waitFor();
    // A schema-framed value opens on its decoded tab.
    expect(JSON.parse((await page.getByTestId('record-value-decoded').textContent())!)).toMatchObject({ id: expect.stringMatching(/^p-(9|11)$/) });
    kcatSnippet = (await page.getByTestId('record-kcat').textContent())!;
    expect(kcatSnippet).toContain('-X partitioner=murmur2_random');
    decodedRecord = await api<RecordsSearchView>(host, 'records.search', { topic: 'payments', from: { beginning: true }, filter: { cel: 'value.amount > 20.0 && headers["source"] == "till-1"' }, limit: 1 });
    expect(await page.getByTestId('record-headers').textContent()).toContain('till-1');
    await shot(page, 'record-view');
    await page.keyboard.press('Escape');
    await page.getByTestId('record-drawer').waitFor({ state: 'detached' });
    await page.getByTestId('browse-cel').locator('input').fill('value.amount >');
    await page.getByTestId('browse-search').click();
    await expect.poll(() => page.getByTestId('browse-error').textContent(), { timeout: 15_000 }).toMatch(/position 15/);
    expect(pageErrors).toEqual([]);
  });

  it.skipIf(!kcatTool.available)("the record view's kcat command, run by kcat, writes the same bytes with the same key to the same partition", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-kcat-'));
    try {
      const run = spawnSync('bash', ['-c', kcatSnippet], { cwd: dir, timeout: 30_000, encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      const original = decodedRecord!.records[0]!;
      const again = await api<RecordsSearchView>(host, 'records.search', { topic: 'payments', from: { beginning: true }, filter: { key: { contains: original.key!.text! } } });
      expect(again.records).toHaveLength(2);
      expect(again.records.map((x) => [x.partition, x.value?.base64, x.headers.map((h) => h.value?.text)])).toEqual([
        [original.partition, original.value!.base64, ['till-1']],
        [original.partition, original.value!.base64, ['till-1']],
      ]);
    } finally {
      removeDir(dir);
    }
  });

  it('filters by offset and time ranges on the server, and says a time it cannot read instead of reading from 1970', async () => {
    const { page, pageErrors } = await openConsole(browser, host);
    await openMessages(page);
    await pick(page, 'browse-topic', 'payments');
    const rows = page.getByTestId('browse-records').locator('tbody tr');
    const offsetsShown = async () => (await rows.locator('td:nth-child(2)').allTextContents()).map(Number).sort((a, b) => a - b);
    await page.getByTestId('browse-offset-from').locator('input').fill('1');
    await page.getByTestId('browse-offset-to').locator('input').fill('2');
    await page.getByTestId('browse-search').click();
    const ranged = await api<RecordsSearchView>(host, 'records.search', { topic: 'payments', from: { beginning: true }, filter: { offsets: { from: 1, to: 2 } } });
    const expected = ranged.records.map((r) => r.offset).sort((a, b) => a - b);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.every((o) => o === 1 || o === 2)).toBe(true);
    await expect.poll(offsetsShown, { timeout: 15_000 }).toEqual(expected);
    // From the newest record's time on: only the records written at that very millisecond.
    const all = (await api<RecordsSearchView>(host, 'records.search', { topic: 'payments', from: { beginning: true }, limit: 1000 })).records;
    const newest = Math.max(...all.map((r) => r.timestamp));
    const atNewest = all.filter((r) => r.timestamp === newest && r.offset >= 1 && r.offset <= 2).length;
    await page.getByTestId('browse-time-from').locator('input').fill(new Date(newest).toISOString());
    await page.getByTestId('browse-search').click();
    await expect.poll(async () => (await page.getByTestId('browse-status').textContent()) ?? '', { timeout: 15_000 }).toMatch(new RegExp(`^${atNewest} shown`));
    // Text that is no date disables the search and says so.
    await page.getByTestId('browse-time-to').locator('input').fill('the day before yesterday');
    await expect.poll(() => page.getByTestId('browse-bad-time').textContent(), { timeout: 15_000 }).toContain('the day before yesterday');
    expect(await page.getByTestId('browse-search').isDisabled()).toBe(true);
    expect(pageErrors).toEqual([]);
  });

  it('produces JSON Lines with headers and a schema; Confluent deserializes the bytes', async () => {
    const { page, pageErrors } = await openConsole(browser, host);
    await openMessages(page);
    await pick(page, 'transfer-target', 'payments');
    await page.getByTestId('lines-input').locator('textarea').fill('{"key": "console-1", "value": {"id": "c-1", "amount": 99.5}, "headers": {"source": "console"}}\n{"key": "console-2", "value": {"id": "c-2", "amount": 1}}');
    await page.getByTestId('lines-subject').locator('input').fill('payments-value');
    await page.getByTestId('lines-produce').click();
    await expect
      .poll(async () => (await api<RecordsSearchView>(host, 'records.search', { topic: 'payments', from: { beginning: true }, filter: { key: { contains: 'console-' } } })).records.length, { timeout: 15_000 })
      .toBe(2);
    const page2 = await api<RecordsSearchView>(host, 'records.search', { topic: 'payments', from: { beginning: true }, filter: { key: { contains: 'console-1' } } });
    const r = page2.records[0]!;
    expect(r.headers.map((h) => [h.key, h.value?.text])).toEqual([['source', 'console']]);
    const deser = new AvroDeserializer(new SchemaRegistryClient({ baseURLs: [registryUrl] }), SerdeType.VALUE, {});
    expect(await deser.deserialize('payments', Buffer.from(r.value!.base64, 'base64'))).toEqual({ id: 'c-1', amount: 99.5 });
    // A value that does not fit the schema is refused, naming the field.
    await page.getByTestId('lines-input').locator('textarea').fill('{"value": {"id": "c-3", "amount": "lots"}}');
    await page.getByTestId('lines-produce').click();
    await expect.poll(() => page.getByTestId('lines-error').textContent(), { timeout: 15_000 }).toMatch(/amount/);
    expect(pageErrors).toEqual([]);
  });

  it('encodes keys with an Avro key schema from both produce forms; Confluent deserializes them back', async () => {
    const registry = new SchemaRegistryClient({ baseURLs: [registryUrl] });
    await registry.register('payments-key', { schemaType: 'AVRO', schema: JSON.stringify(PAYMENT_KEY) }, false);
    await api(host, 'topics.create', { name: 'keyed-payments', partitions: 2, replicationFactor: 3 });
    const { page, pageErrors } = await openConsole(browser, host);
    await openMessages(page);
    // The Produce form: two records, each key typed as JSON and encoded with the key subject.
    await pick(page, 'produce-topic', 'keyed-payments');
    await page.getByTestId('produce-count').locator('input').fill('2');
    await page.getByTestId('produce-key').locator('input').fill('{"id": "form-{n}"}');
    await page.getByTestId('produce-key-subject').locator('input').fill('payments-key');
    await page.getByTestId('produce-value').locator('textarea').fill('plain value {n}');
    await page.getByTestId('produce-submit').click();
    // The JSON Lines form: a key object encoded with the same subject, the value with the value subject.
    await pick(page, 'transfer-target', 'keyed-payments');
    await page.getByTestId('lines-input').locator('textarea').fill('{"key": {"id": "lines-1"}, "value": {"id": "l-1", "amount": 7}}');
    await page.getByTestId('lines-key-subject').locator('input').fill('payments-key');
    await page.getByTestId('lines-subject').locator('input').fill('payments-value');
    await page.getByTestId('lines-produce').click();
    const keyed = async () => (await api<RecordsSearchView>(host, 'records.search', { topic: 'keyed-payments', from: { beginning: true }, limit: 10 })).records;
    await expect.poll(async () => (await keyed()).length, { timeout: 15_000 }).toBe(3);
    const deser = new AvroDeserializer(registry, SerdeType.KEY, {});
    const keys = await Promise.all((await keyed()).map((r) => deser.deserialize('payments', Buffer.from(r.key!.base64, 'base64'))));
    expect(keys.sort((a, b) => String(a.id).localeCompare(String(b.id)))).toEqual([{ id: 'form-0' }, { id: 'form-1' }, { id: 'lines-1' }]);
    if (kcatTool.available) {
      // A framed key starts with a NUL byte, which no command-line argument carries: the record
      // view's kcat command puts it in the file, and kcat writes the same key bytes to the same partition.
      await pick(page, 'browse-topic', 'keyed-payments');
      await page.getByTestId('browse-search').click();
      await expect.poll(async () => (await page.getByTestId('browse-records').locator('tbody tr').count()), { timeout: 15_000 }).toBe(3);
      await page.getByTestId('browse-records').locator('tbody tr').first().click();
      const snippet = (await page.getByTestId('record-kcat').textContent())!;
      expect(snippet).toContain(' -l -K ');
      const dir = mkdtempSync(join(tmpdir(), 'rs-kcat-key-'));
      try {
        const run = spawnSync('bash', ['-c', snippet], { cwd: dir, timeout: 30_000, encoding: 'utf8' });
        expect(run.status, run.stderr).toBe(0);
      } finally {
        removeDir(dir);
      }
      await expect.poll(async () => (await keyed()).length, { timeout: 15_000 }).toBe(4);
      const byKey = new Map<string, [number, string | undefined][]>();
      for (const r of await keyed()) byKey.set(r.key!.base64, [...(byKey.get(r.key!.base64) ?? []), [r.partition, r.value?.base64]]);
      const twice = [...byKey.values()].filter((l) => l.length === 2);
      expect(twice).toHaveLength(1);
      expect(twice[0]![0]).toEqual(twice[0]![1]);
    }
    expect(pageErrors).toEqual([]);
  });

  it('produces with an older version of a subject from both forms; Confluent decodes each record by that version’s schema id', async () => {
    const registry = new SchemaRegistryClient({ baseURLs: [registryUrl] });
    const v1 = await registry.getSchemaMetadata('payments-value', 1);
    const v2 = await registry.register('payments-value', { schemaType: 'AVRO', schema: JSON.stringify(PAYMENT_V2) }, false);
    expect(v2).not.toBe(v1.id);
    await api(host, 'topics.create', { name: 'versioned-payments', partitions: 1, replicationFactor: 3 });
    const { page, pageErrors } = await openConsole(browser, host);
    await openMessages(page);
    // The Produce card: version 1 of payments-value, chosen from the subject's versions.
    await pick(page, 'produce-topic', 'versioned-payments');
    await page.getByTestId('produce-key').locator('input').fill('form-old');
    await page.getByTestId('produce-value').locator('textarea').fill('{"id": "old-form", "amount": 1.5}');
    await page.getByTestId('produce-value-subject').locator('input').fill('payments-value');
    await pick(page, 'produce-value-version', `v1 · id ${v1.id} · AVRO`);
    await page.getByTestId('produce-submit').click();
    // JSON Lines: version 1, then the latest (version 2, with its new field).
    await pick(page, 'transfer-target', 'versioned-payments');
    await page.getByTestId('lines-input').locator('textarea').fill('{"key": "lines-old", "value": {"id": "old-lines", "amount": 2.5}}');
    await page.getByTestId('lines-subject').locator('input').fill('payments-value');
    await pick(page, 'lines-version', `v1 · id ${v1.id} · AVRO`);
    await page.getByTestId('lines-produce').click();
    const produced = async () => (await api<RecordsSearchView>(host, 'records.search', { topic: 'versioned-payments', from: { beginning: true }, limit: 10 })).records;
    await expect.poll(async () => (await produced()).length, { timeout: 15_000 }).toBe(2);
    await pick(page, 'lines-version', `latest (v2, id ${v2})`);
    await page.getByTestId('lines-input').locator('textarea').fill('{"key": "lines-new", "value": {"id": "new-lines", "amount": 3.5, "note": "v2"}}');
    await page.getByTestId('lines-produce').click();
    await expect.poll(async () => (await produced()).length, { timeout: 15_000 }).toBe(3);
    const deser = new AvroDeserializer(registry, SerdeType.VALUE, {});
    const seen = await Promise.all(
      (await produced()).map(async (r) => {
        const bytes = Buffer.from(r.value!.base64, 'base64');
        return [r.key?.text, bytes[0], bytes.readUInt32BE(1), await deser.deserialize('versioned-payments', bytes)];
      }),
    );
    expect(seen).toEqual([
      ['form-old', 0, v1.id, { id: 'old-form', amount: 1.5 }],
      ['lines-old', 0, v1.id, { id: 'old-lines', amount: 2.5 }],
      ['lines-new', 0, v2, { id: 'new-lines', amount: 3.5, note: 'v2' }],
    ]);
    expect(pageErrors).toEqual([]);
  });

  it('produces the Protobuf message named in the Produce card (not the file’s first); Confluent decodes it by its message index', async () => {
    const registry = new SchemaRegistryClient({ baseURLs: [registryUrl] });
    const proto = 'syntax = "proto3";\npackage shop;\nmessage Order {\n  string id = 1;\n  int32 qty = 2;\n}\nmessage Refund {\n  string order_id = 1;\n  int32 cents = 2;\n}\n';
    const id = await registry.register('refunds-value', { schemaType: 'PROTOBUF', schema: proto }, false);
    await api(host, 'topics.create', { name: 'refunds', partitions: 1, replicationFactor: 3 });
    const { page, pageErrors } = await openConsole(browser, host);
    await openMessages(page);
    await pick(page, 'produce-topic', 'refunds');
    await page.getByTestId('produce-value').locator('textarea').fill('{"order_id": "o-7", "cents": 250}');
    await page.getByTestId('produce-value-subject').locator('input').fill('refunds-value');
    // Leaving the subject reads its versions: a Protobuf one asks which message.
    await page.getByTestId('produce-value').locator('textarea').click();
    await page.getByTestId('produce-value-message').locator('input').fill('shop.Refund');
    await page.getByTestId('produce-submit').click();
    const produced = async () => (await api<RecordsSearchView>(host, 'records.search', { topic: 'refunds', from: { beginning: true } })).records;
    await expect.poll(async () => (await produced()).length, { timeout: 15_000 }).toBe(1);
    const bytes = Buffer.from((await produced())[0]!.value!.base64, 'base64');
    // Confluent's framing: magic 0, the schema id, then the message indexes [1] (zigzag varints: count 1, index 1).
    expect([bytes[0], bytes.readUInt32BE(1), bytes[5], bytes[6]]).toEqual([0, id, 2, 2]);
    const decoded = (await new ProtobufDeserializer(registry, SerdeType.VALUE, {}).deserialize('refunds', bytes)) as Record<string, unknown>;
    expect([decoded['orderId'] ?? decoded['order_id'], decoded['cents']]).toEqual(['o-7', 250]);
    expect(pageErrors).toEqual([]);
  });

  it('exports what a search finds as JSON Lines and imports the file into another topic', async () => {
    const { page, pageErrors } = await openConsole(browser, host);
    await openMessages(page);
    await pick(page, 'browse-topic', 'payments');
    await page.getByTestId('browse-search').click();
    const expected = (await api<RecordsSearchView>(host, 'records.search', { topic: 'payments', from: { beginning: true }, limit: 1000 })).records.length;
    await expect.poll(async () => (await page.getByTestId('browse-records').locator('tbody tr').count()), { timeout: 15_000 }).toBe(expected);
    const download = page.waitForEvent('download');
    await page.getByTestId('export-run').click();
    const file = join(host.dataDir, 'export.jsonl');
    await (await download).saveAs(file);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(expected);
    expect(JSON.parse(lines[0]!)).toMatchObject({ valueFormat: 'base64', valueSchemaId: 1 });
    writeFileSync(file, lines.join('\n') + '\n');

    await pick(page, 'transfer-target', 'payments-copy');
    await page.getByTestId('import-file').setInputFiles(file);
    await page.getByTestId('import-run').click();
    await expect.poll(() => page.getByTestId('transfer-progress').textContent(), { timeout: 15_000 }).toMatch(new RegExp(`Dry run: ${expected} records in ${expected} lines`));
    expect((await api<RecordsSearchView>(host, 'records.search', { topic: 'payments-copy', from: { beginning: true } })).records).toHaveLength(0);
    await page.getByTestId('import-dry-run').click();
    await page.getByTestId('import-run').click();
    await expect.poll(() => page.getByTestId('transfer-progress').textContent(), { timeout: 30_000 }).toMatch(new RegExp(`Done: ${expected} records produced`));
    await shot(page, 'imported');
    const copied = await api<RecordsSearchView>(host, 'records.search', { topic: 'payments-copy', from: { beginning: true }, filter: { cel: 'value.amount == 99.5' } });
    expect(copied.records.map((x) => [x.key?.text, x.value?.json])).toEqual([['console-1', { id: 'c-1', amount: 99.5 }]]);
    expect(pageErrors).toEqual([]);
  });
});
