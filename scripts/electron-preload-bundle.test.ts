import Module, { builtinModules } from 'node:module';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { build } from 'vite';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeUtilityProcess } from '../main/electron/test-support/fake-utility-process.js';
import { startUtilityEngine } from '../main/electron/utility-engine.js';
import { ZSTD_ASMJS_MARKER } from './bundle-omissions.js';
import { createCompressionCodecs } from '../app/protocol/records/compression.js';
import type { KafkajsCodec } from '../app/kafka-client/kafkajs-codecs.js';
import { electronBuildConfig } from '../vite.electron.config.js';

const ROOT = join(import.meta.dirname, '..');
/**
 * The modules a built bundle loads at run time, as the bundler resolved them: the externals its
 * chunks import. (Text that only looks like a require is not one: protobufjs's doc comments and
 * the code ajv generates into template strings both contain `require("…")`.)
 */
const requiresOf = (result: Awaited<ReturnType<typeof build>>): string[] => {
  const outputs = Array.isArray(result) ? result : [result];
  const names = outputs.flatMap((o) => ('output' in o ? o.output : []).flatMap((c) => (c.type === 'chunk' ? [...c.imports, ...c.dynamicImports] : [])));
  return [...new Set(names)].sort();
};
const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the preload bundle', () => {
  it('is one file that requires nothing but electron (a sandboxed preload cannot require local files)', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'rs-preload-'));
    cleanup.push(outDir);
    const built = await build(electronBuildConfig('preload', outDir));
    const code = readFileSync(join(outDir, 'preload.cjs'), 'utf8');
    expect(requiresOf(built)).toEqual(['electron']);
    expect(code).toContain('exposeInMainWorld');

    // Run it against a stand-in for electron: main sends the events of one turn as an array,
    // and the page's listener hears each, in order, without the IPC event (it carries `sender`).
    const exposed: Record<string, unknown> = {};
    const handlers: ((event: unknown, payload: unknown) => void)[] = [];
    const electron = {
      contextBridge: { exposeInMainWorld: (key: string, api: unknown) => (exposed[key] = api) },
      ipcRenderer: {
        invoke: () => Promise.resolve(),
        on: (_channel: string, h: (event: unknown, payload: unknown) => void) => handlers.push(h),
        removeListener: (_channel: string, h: (event: unknown, payload: unknown) => void) => handlers.splice(handlers.indexOf(h), 1),
      },
    };
    const module = { exports: {} };
    runInNewContext(code, { require: (name: string) => (name === 'electron' ? electron : undefined), module, exports: module.exports });
    const api = exposed.replicaStudio as { subscribe(listener: (event: unknown) => void): () => void };
    const heard: unknown[][] = [];
    const off = api.subscribe((...args) => heard.push(args));
    const events = [{ type: 'leader.changed', n: 1 }, { type: 'isr.shrunk', n: 2 }];
    for (const h of handlers) h({ sender: 'main' }, events);
    for (const h of handlers) h({ sender: 'main' }, { type: 'topic.created', n: 3 });
    expect(heard).toEqual([[events[0]], [events[1]], [{ type: 'topic.created', n: 3 }]]);
    off();
    expect(handlers).toHaveLength(0);
  }, 20_000);
});

describe('the main bundle', () => {
  it('forks the engine bundle next to it as a utility process and never loads SQLite itself', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'rs-main-'));
    cleanup.push(outDir);
    const built = await build(electronBuildConfig('main', outDir));
    const code = readFileSync(join(outDir, 'main.cjs'), 'utf8');
    expect(code).toMatch(/\butilityProcess\.fork\(/);
    expect(code).toMatch(/join\)\(__dirname, "engine\.cjs"\)/);
    expect(requiresOf(built)).not.toContain('better-sqlite3');
    // Node built-ins may be required bare (kafkajs, bundled for external clusters, does).
    expect(requiresOf(built).filter((m) => !m.startsWith('node:') && !builtinModules.includes(m))).toEqual(['electron']);
  }, 20_000);

  it("compresses and decompresses zstd with the Kafka driver's codec table it holds (a zstd produce to an external cluster)", async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'rs-main-zstd-'));
    cleanup.push(outDir);
    await build(electronBuildConfig('main', outDir));
    const code = readFileSync(join(outDir, 'main.cjs'), 'utf8');
    // zstd-codec's WebAssembly build is in; its asm.js build is not.
    expect(code).toContain('zstd-codec-binding-wasm');
    expect(code).not.toContain(ZSTD_ASMJS_MARKER);
    const bundle = loadWithElectronStub(join(outDir, 'main.cjs')) as { kafkajsCodec(name: 'zstd'): KafkajsCodec };
    const payload = Buffer.from('a record batch of an external cluster, '.repeat(200));
    const compressed = await bundle.kafkajsCodec('zstd').compress({ buffer: payload });
    // A zstd frame (magic 0xFD2FB528, little endian), smaller than its input, that the engine's own codecs read back.
    expect([...compressed.subarray(0, 4)]).toEqual([0x28, 0xb5, 0x2f, 0xfd]);
    expect(compressed.length).toBeLessThan(payload.length / 10);
    expect(Buffer.from(createCompressionCodecs().decompress('zstd', new Uint8Array(compressed), 1 << 20))).toEqual(payload);
    expect(await bundle.kafkajsCodec('zstd').decompress(compressed)).toEqual(payload);
  }, 60_000);
});

/**
 * Require a built main bundle in this Node process with a stand-in for `electron` that lets its
 * top level run and stop there (another instance holds the lock, so it quits): its exports, no window.
 */
function loadWithElectronStub(file: string): unknown {
  const electron = {
    app: { isPackaged: false, getAppPath: () => ROOT, requestSingleInstanceLock: () => false, quit: () => {} },
    protocol: { registerSchemesAsPrivileged: () => {} },
  };
  const loader = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
  const original = loader._load;
  loader._load = (request, parent, isMain) => (request === 'electron' ? electron : original.call(Module, request, parent, isMain));
  try {
    return Module.createRequire(file)(file);
  } finally {
    loader._load = original;
  }
}

describe('the engine bundle', () => {
  it('is one file that requires only Node built-ins and better-sqlite3, and runs as the entry of a utility process', async () => {
    // Built where the real one lives (two levels under the repo), so better-sqlite3 and
    // resources/profiles resolve from it as they do from dist/electron/engine.cjs.
    mkdirSync(join(ROOT, 'dist'), { recursive: true });
    const outDir = mkdtempSync(join(ROOT, 'dist', 'engine-bundle-test-'));
    cleanup.push(outDir);
    const built = await build(electronBuildConfig('engine', outDir));
    const enginePath = join(outDir, 'engine.cjs');
    const code = readFileSync(enginePath, 'utf8');
    // Node built-ins may be required bare too (the host's zstd library, compiled by Emscripten, does).
    expect(requiresOf(built).filter((m) => !m.startsWith('node:') && !builtinModules.includes(m))).toEqual(['better-sqlite3']);
    expect(code).not.toMatch(/require\(\s*["']electron["']/);
    // zstd-codec's asm.js build is left out (the engine runs its WebAssembly build).
    expect(code).not.toContain(ZSTD_ASMJS_MARKER);

    const dataDir = mkdtempSync(join(tmpdir(), 'rs-engine-bundle-'));
    cleanup.push(dataDir);
    const service = await startUtilityEngine(fakeUtilityProcess(), { enginePath, dataDir, seed: 1, logger: { error: () => {} } });
    try {
      expect(await service.ready()).toBe(true);
      expect(await service.call('cluster.describe', {})).toMatchObject({ ok: true, value: { brokers: expect.any(Array) } });
      expect(await service.call('profiles.list', {})).toMatchObject({ ok: true, value: expect.arrayContaining([expect.objectContaining({ name: 'durability' })]) });
    } finally {
      expect(await service.close()).toBe(0);
    }
  }, 60_000);
});
