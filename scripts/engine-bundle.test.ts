import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_SCRIPT, ENGINE_BUNDLE, ENGINE_SOURCE, engineEntry, HOST_BUNDLE, hostEntry, readManifest, staleReason } from '../main/engine/bundle-entry.js';
import { buildEngineBundle } from './engine-bundle.js';
import { ZSTD_ASMJS_MARKER } from './bundle-omissions.js';
import { startRemoteService } from '../main/engine/forked-engine.js';
import { HOST_NODE_ARGS } from '../main/engine/node-args.js';
import { engineBed } from '../main/engine/test-support/engine-bed.js';

const scratch: string[] = [];
afterAll(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});
const { tempDir, keep } = engineBed('rs-bundle-');

/** A two-file program in a temp dir: entry.ts imports part.ts. */
function program(): { dir: string; entry: string; part: string; bundle: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rs-bundle-src-'));
  scratch.push(dir);
  const part = join(dir, 'part.ts');
  const entry = join(dir, 'entry.ts');
  writeFileSync(part, 'export const answer: number = 42;\n');
  writeFileSync(entry, "import { answer } from './part.js';\n/** The answer — printed. */\nconst said = { answer };\nconsole.log(said.answer, '→');\n");
  return { dir, entry, part, bundle: join(dir, 'out', 'engine.mjs') };
}

/** The command lines of this process's children (every thread's). */
function childCommands(): string[] {
  const out: string[] = [];
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    try {
      for (const pid of readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8').trim().split(/\s+/)) {
        if (pid) out.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '));
      }
    } catch {
      // the thread or the child is gone
    }
  }
  return out;
}

const later = (file: string, ms: number): void => {
  const at = new Date(Date.now() + ms);
  utimesSync(file, at, at);
};

describe('the engine bundle a forked engine runs', () => {
  it('is built when missing, fresh until one of the files it was built from changes or goes, then built again', async () => {
    const p = program();
    expect(staleReason(p.bundle)).toBe('it has not been built');
    const entry = await engineEntry({ bundle: p.bundle, entry: p.entry, env: {} });
    expect(entry).toEqual({ file: p.bundle, execArgv: [], bundled: true });
    const manifest = readManifest(p.bundle)!;
    // Every file esbuild read, and the build script (its options shape the bundle too).
    expect(manifest.inputs.sort()).toEqual([p.entry, p.part, BUNDLE_SCRIPT].sort());
    expect(staleReason(p.bundle)).toBeUndefined();
    // ASCII only (V8 keeps a source with one wider character as a two-byte string), and it still
    // prints the arrow; no esbuild service process is left beside this one.
    const text = readFileSync(p.bundle, 'utf8');
    expect(text).not.toMatch(/[^\t\n\r\x20-\x7e]/);
    expect(execFileSync(process.execPath, [p.bundle], { encoding: 'utf8' })).toBe('42 →\n');
    expect(childCommands().filter((c) => c.includes('esbuild'))).toEqual([]);

    later(p.part, 5_000);
    expect(staleReason(p.bundle)).toBe(`${p.part} changed`);
    // Edited after that build (and before the next one starts): built again with the change.
    writeFileSync(p.part, 'export const answer: number = 43;\n');
    const editedAt = new Date(manifest.builtAtMs + 1);
    utimesSync(p.part, editedAt, editedAt);
    expect(staleReason(p.bundle)).toBe(`${p.part} changed`);
    await engineEntry({ bundle: p.bundle, entry: p.entry, env: {} });
    expect(staleReason(p.bundle)).toBeUndefined();
    expect(readFileSync(p.bundle, 'utf8')).toContain('43');

    rmSync(p.part);
    expect(staleReason(p.bundle)).toBe(`${p.part} is gone`);
    writeFileSync(p.bundle, 'console.log(1);\n');
    expect(staleReason(p.bundle)).toBe('it has no manifest');
  });

  it('runs the TypeScript sources through tsx when asked, or when the build fails (saying why)', async () => {
    expect(await engineEntry({ env: { REPLICA_STUDIO_ENGINE_SOURCE: '1' } })).toEqual({ file: ENGINE_SOURCE, execArgv: ['--import', 'tsx'], bundled: false });
    const p = program();
    writeFileSync(p.part, 'export const answer: number = ;\n');
    const notices: string[] = [];
    const entry = await engineEntry({ bundle: p.bundle, entry: p.entry, env: {}, notice: (l) => notices.push(l) });
    expect(entry).toEqual({ file: p.entry, execArgv: ['--import', 'tsx'], bundled: false });
    expect(existsSync(p.bundle)).toBe(false);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^could not bundle the engine \(.+\); running its TypeScript sources through tsx$/);
  });

  it('is what startRemoteService forks: the engine opens a cluster from the bundle, profiles and zstd included', async () => {
    await buildEngineBundle();
    // Without zstd-codec's asm.js build, which it never runs (5.4 MB of source V8 would keep).
    expect(readFileSync(ENGINE_BUNDLE, 'utf8')).not.toContain(ZSTD_ASMJS_MARKER);
    const service = await startRemoteService({ dataDir: tempDir(), logger: { error: () => {} } });
    keep(service);
    // The child runs the bundle itself, without tsx.
    const argv = readFileSync(`/proc/${service.pid}/cmdline`, 'utf8').split('\0');
    expect(argv).toContain(ENGINE_BUNDLE);
    expect(argv.join(' ')).not.toContain('tsx');
    expect(await service.ready()).toBe(true);
    // A new cluster starts from the built-in profile the bundle read from resources/profiles.
    const describe = await service.call('cluster.describe', {});
    expect(describe).toMatchObject({ ok: true, value: { brokers: [{}, {}, {}] } });
    const profiles = await service.call('profiles.list', {});
    expect(profiles.ok && profiles.value.filter((p) => p.builtIn).map((p) => p.name).sort()).toEqual(['balanced', 'durability', 'throughput']);
    // zstd's WebAssembly compressor loads inside the bundle: a zstd topic takes records (its
    // loading is asynchronous: until then the answer is UNSUPPORTED_COMPRESSION_TYPE).
    expect((await service.call('topics.create', { name: 'z', partitions: 1, replicationFactor: 3, configs: { 'compression.type': 'zstd' } })).ok).toBe(true);
    const produce = () => service.call('records.produce', { topic: 'z', partition: 0, acks: 'all', records: [{ value: 'zstd inside the bundle' }] });
    let produced = await produce();
    for (let i = 0; i < 200 && !(produced.ok && produced.value.errorCode === 'NONE'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      produced = await produce();
    }
    expect(produced).toMatchObject({ ok: true, value: { errorCode: 'NONE', baseOffset: 0 } });
    const consumed = await service.call('records.consume', { topic: 'z', partition: 0, offset: 0 });
    expect(JSON.stringify(consumed)).toContain('zstd inside the bundle');
  }, 60_000);

  it('the headless host runs from a bundle of its own too: it prints its URL, answers, and forks the engine bundle', async () => {
    const entry = await hostEntry();
    expect(entry).toEqual({ file: HOST_BUNDLE, execArgv: [], bundled: true });
    expect(staleReason(HOST_BUNDLE)).toBeUndefined();
    expect(readFileSync(HOST_BUNDLE, 'utf8')).not.toContain(ZSTD_ASMJS_MARKER);
    const child = spawn(process.execPath, [...HOST_NODE_ARGS, entry.file, '--data', tempDir(), '--port', '0', '--brokers', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<URL>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(new URL(out.split('\n')[0]!.trim()));
        });
        child.once('exit', (code) => reject(new Error(`the host exited with ${code}`)));
      });
      const res = await fetch(`${url.origin}/api/cluster.describe`, { method: 'POST', headers: { Authorization: `Bearer ${url.searchParams.get('token')}`, 'Content-Type': 'application/json' }, body: '{}' });
      expect(await res.json()).toMatchObject({ ok: true, value: { brokers: [{ id: 1 }] } });
      // Its engine is the engine bundle, not the host's own sources through tsx.
      const engines = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/);
      expect(engines.map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8'))).toEqual([expect.stringContaining(ENGINE_BUNDLE)]);
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  }, 60_000);
});
