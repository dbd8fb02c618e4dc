/**
 * kcat (librdkafka 2.0.2, Debian) against `npm run serve`: `-L` lists exactly what
 * `topics.describe` shows, `-P`/`-C` round-trip keys, values and headers in every codec, and a
 * killed leader is seen and survived as in production. Skipped with one line without kcat.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './support/harness.js';
import { startKafkaServe, until, type KafkaServe } from './support/kafka-serve.js';
import { checkTool, OPTIONAL_TOOLS } from './support/optional-tools.js';

const kcatTool = checkTool(OPTIONAL_TOOLS.kcat);

/** Run kcat with `args` (stdin `input`), bounded in time; its exit code and output. */
function kcat(args: string[], input = '', ms = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('kcat', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

interface KcatMetadata {
  controllerid: number;
  brokers: { id: number; name: string }[];
  topics: { topic: string; partitions: { partition: number; leader: number; replicas: { id: number }[]; isrs: { id: number }[] }[] }[];
}

describe.skipIf(!kcatTool.available)('kcat against the local cluster', () => {
  let k: KafkaServe;
  beforeAll(async () => {
    k = await startKafkaServe();
    await api(k.host, 'topics.create', { name: 'orders', partitions: 4, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } });
  });
  afterAll(async () => {
    await k?.stop();
  });

  it('kcat -L -J lists the same brokers, controller, leaders, replicas and ISR as cluster.describe and topics.describe', async () => {
    // kcat asks a broker, whose copy of the metadata log may trail the controller's for a moment
    // after the topic was created (as in Kafka): both are read again until they agree, then compared.
    const listed = async () => {
      const r = await kcat(['-b', k.bootstrap, '-L', '-J', '-t', 'orders']);
      const cluster = await k.describe();
      const topic = await k.topic('orders');
      const console_ = {
        code: 0,
        brokers: cluster.brokers.map((b) => `${b.id}@127.0.0.1:${b.listener!.port}`).sort(),
        controller: cluster.controllerId,
        partitions: topic.partitions.map((p) => ({ partition: p.partition, leader: p.leader, replicas: p.replicas, isr: p.isr })),
      };
      if (r.code !== 0) return { kcat: { code: r.code, stderr: r.stderr }, console: console_ };
      const m = JSON.parse(r.stdout) as KcatMetadata;
      return {
        kcat: {
          code: r.code,
          brokers: m.brokers.map((b) => `${b.id}@${b.name}`).sort(),
          controller: m.controllerid,
          partitions: m.topics[0]!.partitions.map((p) => ({ partition: p.partition, leader: p.leader, replicas: p.replicas.map((x) => x.id), isr: p.isrs.map((x) => x.id) })),
        },
        console: console_,
      };
    };
    let seen = await listed();
    await until(async () => JSON.stringify((seen = await listed()).kcat) === JSON.stringify(seen.console), 30_000, 'kcat -L to agree with the console').catch(() => undefined);
    expect(seen.kcat).toEqual(seen.console);
  });

  it('kcat -P then -C round-trips keys, values and headers, uncompressed and with gzip, snappy, lz4 and zstd', async () => {
    const lines = ['k1:hello', 'k2:world'];
    const codecs = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
    for (const codec of codecs) {
      const p = await kcat(['-b', k.bootstrap, '-P', '-t', 'orders', '-p', '1', '-K:', '-H', `codec=${codec}`, '-X', 'acks=all', '-z', codec], lines.map((l) => `${l}-${codec}`).join('\n') + '\n');
      expect(p.code, p.stderr).toBe(0);
    }
    const c = await kcat(['-b', k.bootstrap, '-C', '-t', 'orders', '-p', '1', '-o', 'beginning', '-e', '-J']);
    expect(c.code, c.stderr).toBe(0);
    const got = c.stdout.trim().split('\n').map((l) => JSON.parse(l) as { offset: number; key: string; payload: string; headers: string[]; broker: number });
    expect(got.map((m) => [m.offset, m.key, m.payload, m.headers[1]])).toEqual(
      codecs.flatMap((codec, i) => [
        [2 * i, 'k1', `hello-${codec}`, codec],
        [2 * i + 1, 'k2', `world-${codec}`, codec],
      ]),
    );
    const leader = (await k.topic('orders')).partitions[1]!.leader;
    expect(new Set(got.map((m) => m.broker))).toEqual(new Set([leader]));
    expect(c.stderr).toContain('Reached end of topic orders [1] at offset 10');
  });

  it('reads by time and from the end (ListOffsets), and a produce to a missing partition fails as librdkafka reports it', async () => {
    const before = Date.now();
    await kcat(['-b', k.bootstrap, '-P', '-t', 'orders', '-p', '2'], 'first\n');
    await new Promise((r) => setTimeout(r, 50));
    const middle = Date.now();
    await kcat(['-b', k.bootstrap, '-P', '-t', 'orders', '-p', '2'], 'second\n');
    const fromTime = await kcat(['-b', k.bootstrap, '-C', '-t', 'orders', '-p', '2', '-o', `s@${middle}`, '-e', '-f', '%s\n']);
    expect(fromTime.stdout.trim().split('\n')).toEqual(['second']);
    const last = await kcat(['-b', k.bootstrap, '-C', '-t', 'orders', '-p', '2', '-o', '-1', '-e', '-f', '%o %s\n']);
    expect(last.stdout.trim()).toBe('1 second');
    expect(before).toBeLessThan(middle);
    const missing = await kcat(['-b', k.bootstrap, '-P', '-t', 'orders', '-p', '9', '-X', 'message.timeout.ms=3000'], 'x\n');
    expect(missing.code).not.toBe(0);
  });

  it('survives a killed partition leader: -L shows the new leader, a produce with acks=all goes there, nothing acknowledged is lost', async () => {
    const before = (await k.topic('orders')).partitions[3]!;
    await kcat(['-b', k.bootstrap, '-P', '-t', 'orders', '-p', '3', '-X', 'acks=all'], 'a\nb\n');
    await api(k.host, 'brokers.kill', { brokerId: before.leader });
    await until(async () => (await k.topic('orders')).partitions[3]!.leader !== before.leader && (await k.topic('orders')).partitions[3]!.leader >= 0, 60_000, 'a new leader');
    const after = (await k.topic('orders')).partitions[3]!;
    await until(
      async () => {
        const m = JSON.parse((await kcat(['-b', k.bootstrap, '-L', '-J', '-t', 'orders'])).stdout) as KcatMetadata;
        return m.topics[0]!.partitions.find((p) => p.partition === 3)!.leader === after.leader;
      },
      30_000,
      'kcat to see the new leader',
    );
    const p = await kcat(['-b', k.bootstrap, '-P', '-t', 'orders', '-p', '3', '-X', 'acks=all'], 'c\n');
    expect(p.code, p.stderr).toBe(0);
    const c = await kcat(['-b', k.bootstrap, '-C', '-t', 'orders', '-p', '3', '-o', 'beginning', '-e', '-f', '%s\n']);
    expect(c.stdout.trim().split('\n')).toEqual(['a', 'b', 'c']);
    await api(k.host, 'brokers.start', { brokerId: before.leader });
  });

  it('sent the API versions librdkafka 2.0.2 sends (recorded by the listeners)', () => {
    const sent = k.versions('rdkafka');
    expect(sent['ApiVersions']).toContain(3);
    expect(sent['Metadata']).toEqual(expect.arrayContaining([4]));
    expect(sent['Produce']).toEqual([7]);
    expect(sent['Fetch']).toEqual([11]);
    expect(sent['ListOffsets']).toEqual([2]);
    console.info(`kcat 1.7.1 (librdkafka 2.0.2) sent: ${JSON.stringify(sent)}`);
  });
});
