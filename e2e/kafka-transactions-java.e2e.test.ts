/**
 * Apache Kafka's Java client (kafka-clients 3.8.0) and transactions against `npm run serve` with
 * three brokers: initTransactions, commit, abort and sendOffsetsToTransaction; read_committed and
 * read_uncommitted consumers; a second producer of the same transactional.id fencing the first;
 * then Admin's describeTransactions, listTransactions and describeProducers. The program is
 * e2e/java-transactions/TransactionTour.java.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileJavaPrograms, javaClient } from './support/java-security.js';
import { startKafkaServe, type KafkaServe } from './support/kafka-serve.js';

const client = javaClient();
if ('skipReason' in client) process.stderr.write(`${client.skipReason}\n`);

describe.skipIf('skipReason' in client)('the Java client and transactions on a local cluster', () => {
  let k: KafkaServe;
  let cp = '';
  beforeAll(async () => {
    [k, cp] = await Promise.all([startKafkaServe({ brokers: 3 }), Promise.resolve().then(() => compileJavaPrograms('java-transactions', (client as { classpath: string }).classpath))]);
  }, 240_000);
  afterAll(async () => {
    await k?.stop();
    if (cp) rmSync(cp.split(':')[0]!, { recursive: true, force: true });
  });

  it('commits, aborts, sends offsets, is fenced, and Admin describes the transaction and its producers', () => {
    const r = spawnSync('java', ['-cp', cp, 'TransactionTour', k.bootstrap], { encoding: 'utf8', timeout: 180_000 });
    const lines = r.stdout.split('\n');
    expect(r.status, `${lines.find((l) => l.startsWith('FAILED')) ?? ''}\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`).toBe(0);
    expect(lines.filter((l) => l.startsWith('OK ')).map((l) => l.slice(3))).toEqual([
      'committed, aborted and committed',
      'read_committed sees the committed records only',
      'read_uncommitted sees the aborted record too',
      "the committed transaction's offsets are the group's",
      'the first producer is fenced',
      "the zombie's record is never committed",
      'describeTransactions',
      'listTransactions',
      'describeProducers',
    ]);
    // The versions the Java client really sent for the transaction APIs.
    const v = k.versions();
    for (const name of ['InitProducerId', 'AddPartitionsToTxn', 'AddOffsetsToTxn', 'TxnOffsetCommit', 'EndTxn', 'DescribeTransactions', 'ListTransactions', 'DescribeProducers']) expect(v[name], name).toBeDefined();
  }, 200_000);
});
