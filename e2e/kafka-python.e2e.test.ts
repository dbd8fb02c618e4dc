/**
 * kafka-python 2.0.2 (Debian python3-kafka, run by /usr/bin/python3) against `npm run serve`: its
 * producer (acks=all, gzip) and a consumer without a group (assigned partitions, from the
 * beginning) round-trip keys, values and headers. Skipped with one line without kafka-python.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './support/harness.js';
import { startKafkaServe, type KafkaServe } from './support/kafka-serve.js';
import { checkTool, OPTIONAL_TOOLS } from './support/optional-tools.js';

const tool = checkTool(OPTIONAL_TOOLS.kafkaPython);

const SCRIPT = `
import json, sys
from kafka import KafkaProducer, KafkaConsumer, TopicPartition
bootstrap, topic, count = sys.argv[1].split(','), sys.argv[2], int(sys.argv[3])
producer = KafkaProducer(bootstrap_servers=bootstrap, acks='all', compression_type='gzip', client_id='kafka-python-e2e', request_timeout_ms=20000)
acked = []
for i in range(count):
    md = producer.send(topic, key=('k%d' % i).encode(), value=('v%d' % i).encode(), headers=[('n', str(i).encode())], partition=i % 3).get(timeout=30)
    acked.append([md.partition, md.offset])
producer.flush()
producer.close()
consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False, client_id='kafka-python-e2e', consumer_timeout_ms=10000)
parts = [TopicPartition(topic, p) for p in range(3)]
consumer.assign(parts)
consumer.seek_to_beginning(*parts)
got = []
for m in consumer:
    got.append([m.partition, m.offset, m.key.decode(), m.value.decode(), dict((k, v.decode()) for k, v in m.headers)])
    if len(got) == count:
        break
consumer.close()
print(json.dumps({'acked': acked, 'got': got}))
`;

function python(args: string[], ms = 90_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('/usr/bin/python3', ['-c', SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe.skipIf(!tool.available)('kafka-python against the local cluster', () => {
  let k: KafkaServe;
  beforeAll(async () => {
    k = await startKafkaServe();
    await api(k.host, 'topics.create', { name: 'py', partitions: 3, replicationFactor: 3 });
  });
  afterAll(async () => {
    await k?.stop();
  });

  it('produces with acks=all and gzip, and a group-less consumer reads every acknowledged record back in order', async () => {
    const r = await python([k.bootstrap, 'py', '30']);
    expect(r.code, r.stderr).toBe(0);
    const { acked, got } = JSON.parse(r.stdout) as { acked: [number, number][]; got: [number, number, string, string, Record<string, string>][] };
    expect(acked).toHaveLength(30);
    const byPartition = (p: number) => got.filter((m) => m[0] === p);
    for (const p of [0, 1, 2]) {
      expect(byPartition(p).map((m) => m[1])).toEqual(acked.filter((a) => a[0] === p).map((a) => a[1]));
    }
    expect(got.map((m) => `${m[2]}=${m[3]}#${m[4]['n']}`).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `k${i}=v${i}#${i}`).sort());
    const sent = k.versions('kafka-python');
    console.info(`kafka-python 2.0.2 sent: ${JSON.stringify(sent)}`);
    expect(sent['Produce']).toEqual([7]);
    expect(sent['Fetch']).toEqual([4]);
    expect(sent['Metadata']).toEqual(expect.arrayContaining([0, 1]));
  });
});
