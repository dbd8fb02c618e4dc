/**
 * The Transactions page in Chromium against npm run serve (3 brokers, KIP-890's verification off
 * so a transaction can be left hanging as on a cluster before it): kafkajs's transactional
 * producer holds one partition's LSO open, and the page lists it with its age and explains the
 * LSO; a transactional batch whose producer id no coordinator knows hangs on the other partition,
 * find-hanging flags it once the threshold allows, and it is aborted from the page after a preview
 * that says how the LSO moves; a read_committed kafkajs consumer then reads past it.
 */
import { Kafka, logLevel, type Producer } from 'kafkajs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaAdminClient } from '../app/kafka-client/admin-client.js';
import { ApiKey } from '../app/protocol/generated/index.js';
import { encodeRecordBatch } from '../app/protocol/records/record-batch.js';
import { clientRecord, codecs } from '../app/protocol/test-support/wire-sim.js';
import type { PartitionTransactionsView } from '../app/api/contract.js';
import { api, launchBrowser, openConsole, removeDir, screenshotter, startServe, type ServedHost } from './support/harness.js';

const TOPIC = 'payments';

async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('Transactions page in Chromium against npm run serve', () => {
  let host: ServedHost;
  let browser: Browser;
  let kafka: Kafka;
  let admin: KafkaAdminClient;
  let producer: Producer;
  const shot = screenshotter('transactions');
  const offsets = async (partition: number) => (await api<PartitionTransactionsView[]>(host, 'transactions.producers', { topic: TOPIC, partitions: [partition] }))[0]!.offsets!;

  beforeAll(async () => {
    host = await startServe({ extraArgs: ['--brokers', '3', '--broker-config', 'transaction.partition.verification.enable=false'] });
    browser = await launchBrowser();
    await api(host, 'topics.create', { name: TOPIC, partitions: 2, replicationFactor: 3 });
    const bootstrap = (await api<{ bootstrapServers: string }>(host, 'cluster.describe', {})).bootstrapServers.split(',');
    kafka = new Kafka({ clientId: 'txn-e2e', brokers: bootstrap, logLevel: logLevel.NOTHING });
    admin = new KafkaAdminClient({ bootstrapServers: bootstrap, security: 'PLAINTEXT' });
    await admin.connect();
  }, 120_000);
  afterAll(async () => {
    await producer?.disconnect().catch(() => undefined);
    await admin?.close();
    await browser?.close();
    expect(await host?.stop()).toBe(0);
    removeDir(host.dataDir);
  });

  /** A transactional batch from a producer id no transactional id has (what a lost AddPartitionsToTxn leaves behind). */
  async function hangingTransaction(partition: number, values: string[]): Promise<number> {
    const init = await admin.send(undefined, ApiKey.InitProducerId, [0, 4], { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 }, 'InitProducerId');
    const records = values.map((v) => clientRecord(v, null, Date.now()));
    const batch = encodeRecordBatch(
      { baseOffset: 0, lastOffset: records.length - 1, leaderEpoch: -1, appendTimeMs: 0, records, sizeBytes: 0, transactional: true },
      { codecs, producer: { id: Number(init.producerId), epoch: init.producerEpoch, baseSequence: 0 } },
    );
    const leader = (await admin.metadata([TOPIC])).topics[0]!.partitions.find((p) => p.partition === partition)!.leader;
    const res = await admin.send(leader, ApiKey.Produce, [3, 8], { transactionalId: 'lost-add-partitions', acks: -1, timeoutMs: 10_000, topicData: [{ name: TOPIC, partitionData: [{ index: partition, records: batch }] }] }, 'Produce');
    expect(res.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    return Number(init.producerId);
  }

  async function send(partition: number, values: string[]): Promise<void> {
    const p = kafka.producer();
    await p.connect();
    await p.send({ topic: TOPIC, acks: -1, messages: values.map((value) => ({ value, partition })) });
    await p.disconnect();
  }

  async function threshold(page: Page, minutes: string): Promise<void> {
    const input = page.getByTestId('hanging-threshold').locator('input');
    await input.fill(minutes);
    await input.press('Enter');
  }

  it('shows the open kafkajs transaction and what holds the LSO, then aborts a hanging one after its preview', async () => {
    await send(0, ['c1', 'c2']);
    await send(1, ['p1', 'p2', 'p3']);
    producer = kafka.producer({ transactionalId: 'payments-tx', maxInFlightRequests: 1, idempotent: true, transactionTimeout: 120_000 });
    await producer.connect();
    const open = await producer.transaction();
    await open.send({ topic: TOPIC, messages: ['o1', 'o2'].map((value) => ({ value, partition: 0 })) });
    const ghost = await hangingTransaction(1, ['g1', 'g2']);
    await send(1, ['after1', 'after2']);
    await until(async () => (await offsets(0)).highWatermark === 4 && (await offsets(1)).highWatermark === 7, 20_000, 'both partitions replicated');

    const { page, pageErrors } = await openConsole(browser, host);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Transactions', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
    const table = page.getByTestId('txn-table');
    await expect.poll(async () => (await table.textContent()) ?? '', { timeout: 20_000 }).toContain('payments-tx');
    expect(await page.getByTestId('txn-state').first().textContent()).toBe('Ongoing');
    expect(await page.getByTestId('txn-age').first().textContent()).toMatch(/ of 2 min$/);
    expect(await table.textContent()).toContain(`${TOPIC}-0`);

    // The page opens on the open transaction's topic: payments-0's LSO is held at 2 by payments-tx, payments-1's at 3 by the hanging one.
    const p0 = page.getByTestId('txn-partition-0');
    await expect.poll(async () => (await p0.getByTestId('lso-explainer').textContent()) ?? '', { timeout: 20_000 }).toMatch(/^The LSO is held at 2 by producer \d+'s open transaction \(payments-tx, Ongoing, started .* ago, timeout 2 min\)\. A read_committed consumer/);
    expect(await p0.getByTestId('txn-offsets').textContent()).toContain('log start 0 · LSO 2 · HW 4 · LEO 4');
    const p1 = page.getByTestId('txn-partition-1');
    expect(await p1.getByTestId('lso-explainer').textContent()).toContain(`The LSO is held at 3 by producer ${ghost}'s open transaction, which no transaction coordinator knows`);
    await shot(page, 'open');

    // Both wrote a moment ago: nothing is hanging at find-hanging's default 15 minutes; with 0 the ghost is.
    // Every topic's partitions are searched, as the tool does without --topic (the internal topics too).
    await expect.poll(async () => (await page.getByTestId('hanging-searched').textContent()) ?? '', { timeout: 20_000 }).toMatch(/Searched \d{2,} partition\(s\): no hanging transaction\./);
    await threshold(page, '0');
    const hanging = page.getByTestId('hanging-table');
    await expect.poll(async () => (await hanging.textContent()) ?? '', { timeout: 20_000 }).toContain(`${TOPIC}-1`);
    expect(await page.getByTestId('hanging-partition').allTextContents()).toEqual([`${TOPIC}-1`]);
    expect(await page.getByTestId('hanging-reason').first().textContent()).toMatch(new RegExp(`^No coordinator lists producer ${ghost}`));

    await page.getByTestId('hanging-abort').first().click();
    const words = page.getByTestId('abort-words');
    await words.waitFor({ timeout: 15_000 });
    expect(await words.textContent()).toMatch(
      new RegExp(`^Writes an ABORT marker for producer ${ghost} \\(epoch 0, coordinator epoch 0\\) at offset 7 of ${TOPIC}-1, through its leader \\(broker \\d\\)\\. The LSO moves from 3 to 8: 2 records of the transaction \\(from offset 3\\) become aborted: read_committed consumers skip them\\. 2 records of other producers become readable to them\\.$`),
    );
    // A preview changes nothing.
    expect((await offsets(1)).lastStableOffset).toBe(3);
    await page.waitForTimeout(400); // the dialog's fade-in, for the picture only
    await shot(page, 'abort-preview');
    await page.getByTestId('abort-confirm').click();
    await page.getByTestId('hanging-empty').waitFor({ timeout: 20_000 });
    expect(await offsets(1)).toMatchObject({ lastStableOffset: 8, highWatermark: 8 });
    await expect.poll(async () => (await p1.getByTestId('lso-explainer').textContent()) ?? '', { timeout: 20_000 }).toBe(
      `No open transaction holds ${TOPIC}-1: read_committed and read_uncommitted consumers both read up to the high watermark 8.`,
    );
    await shot(page, 'aborted');

    // A read_committed consumer (kafkajs's default) now reads past the aborted transaction.
    const consumer = kafka.consumer({ groupId: 'after-abort', sessionTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 200 });
    const seen: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ partition, message }) => void (partition === 1 && seen.push(message.value!.toString())) });
    await until(async () => seen.length >= 5, 30_000, 'five records of payments-1');
    await consumer.disconnect();
    expect(seen).toEqual(['p1', 'p2', 'p3', 'after1', 'after2']);

    // The kafkajs transaction commits: no transaction is open any more.
    await open.commit();
    await page.getByTestId('txn-empty').waitFor({ timeout: 20_000 });
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 240_000);
});
