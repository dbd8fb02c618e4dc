import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function startCli(dataDir: string, extraArgs: string[] = []): { child: ChildProcess; firstLine: Promise<string>; exit: Promise<number | null>; stderr: () => string } {
  const kafkaPort = extraArgs.includes('--kafka-port') ? [] : ['--kafka-port', '0'];
  const child = spawn(process.execPath, ['--import', 'tsx', 'main/cli/cli.ts', '--data', dataDir, '--port', '0', ...kafkaPort, ...extraArgs], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exit = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const firstLine = new Promise<string>((done, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => done(line));
    child.once('exit', (code) => reject(new Error(`exited with ${code} before printing a line: ${stderr}`)));
  });
  firstLine.catch(() => {}); // observed by the tests that need it
  return { child, firstLine, exit, stderr: () => stderr };
}

/** A contract call with the token from a start URL, as a script would make it. */
async function call(url: string, method: string, input: unknown): Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }> {
  const { origin, searchParams } = new URL(url);
  const res = await fetch(`${origin}/api/${method}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${searchParams.get('token')}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(10_000),
  });
  return (await res.json()) as { ok: boolean; value?: unknown; error?: { code: string; message: string } };
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms))]);
}

// Each test starts one or two hosts (a tsx process and an engine process each): minutes on a loaded CI machine.
describe('npm run serve (main/cli/cli.ts)', { timeout: 300_000 }, () => {
  it('prints the start URL first, serves the API, refuses a second instance on the same data dir, and exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-cli-'));
    dirs.push(dir);
    const first = startCli(dir);
    const url = await within(first.firstLine, 90_000, 'the start URL');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64}$/);
    const { origin, searchParams } = new URL(url);
    const res = await fetch(`${origin}/api/cluster.describe`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${searchParams.get('token')}`, 'Content-Type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(10_000),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, value: { brokers: [{ id: 1 }, { id: 2 }, { id: 3 }] } });

    const second = startCli(dir);
    expect(await within(second.exit, 60_000, 'the second instance to exit')).toBe(1);
    // On a loaded machine the refusal can come after the host's "opening …" progress line (printed
    // once opening has taken 5 s); the refusal itself is one line, and the last.
    const lines = second.stderr().trim().split('\n').filter((line) => !/: opening .*\(\d+ s\)$/.test(line));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/locked by another process/);

    first.child.kill('SIGTERM');
    expect(await within(first.exit, 60_000, 'an orderly exit')).toBe(0);
  });

  it('answers requests that offer h2c (curl --http2, Java\'s HttpClient), and SIGTERM still ends host and engine, Kafka ports included, while such clients hold their sockets open', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-cli-'));
    dirs.push(dir);
    const cli = startCli(dir);
    const url = await within(cli.firstLine, 90_000, 'the start URL');
    const { port, searchParams } = new URL(url);
    const bootstrap = ((await call(url, 'cluster.describe', {})).value as { bootstrapServers: string }).bootstrapServers;
    const kafkaPort = Number(bootstrap.split(',')[0]!.split(':')[1]);
    const held: Socket[] = [];
    for (let i = 0; i < 3; i++) {
      const body = JSON.stringify({ name: `h2c-${i}`, partitions: 1, replicationFactor: 1 });
      const answer = await within(new Promise<string>((resolve, reject) => {
        const s = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
        held.push(s);
        let text = '';
        s.on('data', (d: Buffer) => {
          text += d.toString();
          if (text.trimEnd().endsWith('}')) resolve(text);
        });
        s.on('error', reject);
        s.write(
          `POST /api/topics.create HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${searchParams.get('token')}\r\n` +
            `Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        );
      }), 15_000, 'an answer to an h2c offer');
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(answer).toContain(`"name":"h2c-${i}"`);
    }
    cli.child.kill('SIGTERM');
    expect(await within(cli.exit, 90_000, 'an exit after SIGTERM')).toBe(0);
    const refused = await new Promise<boolean>((resolve) => {
      const s = connect({ port: kafkaPort, host: '127.0.0.1' });
      s.once('connect', () => (s.destroy(), resolve(false)));
      s.once('error', () => resolve(true));
    });
    expect(refused).toBe(true);
    for (const s of held) s.destroy();
  });

  it('prints the URL only once every broker has registered: a script creates an RF 3 topic at once, on a new cluster started from the balanced profile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-cli-'));
    dirs.push(dir);
    const cli = startCli(dir);
    const url = await within(cli.firstLine, 90_000, 'the start URL');
    // No retry: before, this answered INVALID_REPLICATION_FACTOR (all brokers fenced) for a moment.
    expect(await call(url, 'topics.create', { name: 'right-away', partitions: 3, replicationFactor: 3 })).toMatchObject({ ok: true });
    const brokers = (await call(url, 'brokers.list', {})).value as { id: number; rack: string | null; state: string }[];
    expect(brokers.map((b) => [b.id, b.rack, b.state])).toEqual([
      [1, 'rack-1', 'running'],
      [2, 'rack-2', 'running'],
      [3, 'rack-3', 'running'],
    ]);
    const configs = (await call(url, 'configs.describe', { resource: { type: 'broker', name: '' } })).value as { name: string; value: string }[];
    expect(configs.find((c) => c.name === 'min.insync.replicas')?.value).toBe('2');
    cli.child.kill('SIGTERM');
    expect(await within(cli.exit, 60_000, 'an orderly exit')).toBe(0);
  });

  it('--profile picks the built-in profile of a new cluster, is ignored with a note for an existing one, and an unknown name is a usage error naming the built-in profiles', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-cli-'));
    dirs.push(dir);
    const bad = startCli(dir, ['--profile', 'nope']);
    expect(await within(bad.exit, 30_000, 'the usage error')).toBe(2);
    expect(bad.stderr()).toMatch(/--profile must name a built-in profile \([a-z, ]+\), got "nope"/);
    for (const name of ['balanced', 'durability', 'throughput']) expect(bad.stderr()).toContain(name);

    const first = startCli(dir, ['--profile', 'durability']);
    const url = await within(first.firstLine, 90_000, 'the start URL');
    const brokers = (await call(url, 'brokers.list', {})).value as { rack: string | null }[];
    expect(brokers.map((b) => b.rack)).toEqual(['rack-a', 'rack-b', 'rack-c', 'rack-a', 'rack-b', 'rack-c']);
    first.child.kill('SIGTERM');
    expect(await within(first.exit, 60_000, 'an orderly exit')).toBe(0);

    const both = startCli(dir, ['--profile', 'durability', '--brokers', '3']);
    expect(await within(both.exit, 30_000, 'the usage error')).toBe(2);
    expect(both.stderr()).toContain('--profile and --brokers are two ways to start a new cluster: give one');

    const again = startCli(dir, ['--profile', 'throughput']);
    const url2 = await within(again.firstLine, 90_000, 'the start URL');
    expect(((await call(url2, 'brokers.list', {})).value as unknown[]).length).toBe(6);
    expect(again.stderr()).toContain('holds a cluster already; --profile throughput applies only to a new one');
    again.child.kill('SIGTERM');
    expect(await within(again.exit, 60_000, 'an orderly exit')).toBe(0);
  });

  it('--brokers N starts a new cluster of N brokers with Kafka\'s own defaults (no racks, no profile)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-cli-'));
    dirs.push(dir);
    const cli = startCli(dir, ['--brokers', '4']);
    const url = await within(cli.firstLine, 90_000, 'the start URL');
    const brokers = (await call(url, 'brokers.list', {})).value as { id: number; rack: string | null }[];
    expect(brokers.map((b) => [b.id, b.rack])).toEqual([[1, null], [2, null], [3, null], [4, null]]);
    const configs = (await call(url, 'configs.describe', { resource: { type: 'broker', name: '' } })).value as { name: string; value: string; source: string }[];
    expect(configs.find((c) => c.name === 'min.insync.replicas')).toMatchObject({ value: '1', source: 'DEFAULT_CONFIG' });
    cli.child.kill('SIGTERM');
    expect(await within(cli.exit, 60_000, 'an orderly exit')).toBe(0);
  });
});
