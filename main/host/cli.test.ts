import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function startCli(dataDir: string): { child: ChildProcess; firstLine: Promise<string>; exit: Promise<number | null>; stderr: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'main/host/cli.ts', '--data', dataDir, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
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

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms))]);
}

describe('npm run serve (main/host/cli.ts)', () => {
  it('prints the start URL first, serves the API, refuses a second instance on the same data dir, and exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-cli-'));
    dirs.push(dir);
    const first = startCli(dir);
    const url = await within(first.firstLine, 30_000, 'the start URL');
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
    expect(await within(second.exit, 30_000, 'the second instance to exit')).toBe(1);
    const message = second.stderr().trim();
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toMatch(/locked by another process/);

    first.child.kill('SIGTERM');
    expect(await within(first.exit, 30_000, 'an orderly exit')).toBe(0);
  });
});
