/**
 * What a forked Node engine process runs (`npm run serve`, `npm start` in browser mode, the
 * benchmark, the tests' hosts): one bundle of `engine-main.ts`, as the desktop app runs
 * `dist/electron/engine.cjs`, rather than ~360 TypeScript modules through tsx. Loading the bundle
 * takes a fraction of the time of loading the sources through tsx, and that load is on the path
 * from `npm run serve` to a cluster that answers.
 *
 * The bundle is built by `scripts/engine-bundle.ts` into `dist/engine-node/engine.mjs` the first
 * time a host needs it and again whenever one of its inputs changed: its first line is a manifest —
 * when it was built and every file esbuild read for it (our sources and the packages they import)
 * — and the bundle is fresh while every one of those files exists and is no newer than the build
 * (as `make` decides). Editing a source therefore costs the next start one build (~1–2 s); nothing
 * goes stale. The build runs as a child process of its own, so no process that runs the product
 * carries the bundler. `npm run build` builds it too.
 *
 * The bundle sits two folders below the repository like the sources (`dist/engine-node/` as
 * `main/engine/`), so the one source that finds a file relative to itself (`app/service/built-in-profiles.ts`:
 * `../../resources/profiles/`) finds the same file.
 *
 * `REPLICA_STUDIO_ENGINE_SOURCE=1` runs the TypeScript sources through tsx instead (stack traces
 * with source lines); so does a failed build, said on one stderr line. The headless host is run
 * from a bundle of its own the same way (`hostEntry`, `dist/host-node/cli.mjs`).
 */
import { execFile } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The engine process's entry file (TypeScript). */
export const ENGINE_SOURCE = join(ROOT, 'main', 'engine', 'engine-main.ts');
/** Where the bundle goes (two levels below the repository, as the sources are). */
export const ENGINE_BUNDLE = join(ROOT, 'dist', 'engine-node', 'engine.mjs');
/** The headless host's entry file (`npm run serve`, `npm start` in browser mode, the scale benchmark). */
export const HOST_SOURCE = join(ROOT, 'main', 'cli', 'cli.ts');
/** The host's bundle, built and kept fresh the same way (`hostEntry`). */
export const HOST_BUNDLE = join(ROOT, 'dist', 'host-node', 'cli.mjs');
/** The build script: `tsx scripts/engine-bundle.ts [host | ENTRY OUT]`. */
export const BUNDLE_SCRIPT = join(ROOT, 'scripts', 'engine-bundle.ts');

/** The first line of a bundle starts with this, followed by the manifest as JSON. */
export const MANIFEST_PREFIX = '// replica-studio engine bundle ';
/** The manifest line is read in chunks of this size until its newline. */
const READ_CHUNK = 64 * 1024;

/** What the bundle was built from. */
export interface BundleManifest {
  /** Wall-clock ms when the build started: an input modified after it makes the bundle stale. */
  builtAtMs: number;
  /** Absolute paths of every file esbuild read. */
  inputs: string[];
}

/** The file a forked engine runs and the Node flags it needs for it. */
export interface EngineEntry {
  file: string;
  execArgv: string[];
  bundled: boolean;
}

const fromSource = (): EngineEntry => ({ file: ENGINE_SOURCE, execArgv: ['--import', 'tsx'], bundled: false });

/** The manifest at the head of `bundle`, or undefined when there is no bundle or no manifest. */
export function readManifest(bundle: string): BundleManifest | undefined {
  if (!existsSync(bundle)) return undefined;
  const fd = openSync(bundle, 'r');
  try {
    let head = '';
    const chunk = Buffer.alloc(READ_CHUNK);
    for (;;) {
      const n = readSync(fd, chunk, 0, READ_CHUNK, null);
      if (n === 0) break;
      head += chunk.toString('utf8', 0, n);
      if (head.includes('\n')) break;
    }
    const line = head.split('\n', 1)[0]!;
    if (!line.startsWith(MANIFEST_PREFIX)) return undefined;
    const parsed = JSON.parse(line.slice(MANIFEST_PREFIX.length)) as Partial<BundleManifest>;
    if (typeof parsed.builtAtMs !== 'number' || !Array.isArray(parsed.inputs)) return undefined;
    return { builtAtMs: parsed.builtAtMs, inputs: parsed.inputs.filter((f): f is string => typeof f === 'string') };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Why `bundle` cannot be used as it is (undefined: it is fresh). */
export function staleReason(bundle: string): string | undefined {
  const manifest = readManifest(bundle);
  if (!manifest) return existsSync(bundle) ? 'it has no manifest' : 'it has not been built';
  if (manifest.inputs.length === 0) return 'its manifest lists no input';
  for (const input of manifest.inputs) {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(input).mtimeMs;
    } catch {
      return `${input} is gone`;
    }
    if (mtimeMs > manifest.builtAtMs) return `${input} changed`;
  }
  return undefined;
}

/** Run the build script for `entry` into `bundle`; rejects with the first line it printed on failure. */
function runBundleScript(entry: string, bundle: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    execFile(process.execPath, ['--import', 'tsx', BUNDLE_SCRIPT, entry, bundle], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (!error) return resolvePromise();
      const said = stderr.split('\n').find((l) => l.trim() !== '')?.replace(/^(?:engine|host) bundle: /, '');
      reject(new Error(said ?? error.message));
    });
  });
}

/**
 * The entry a forked engine should run: the bundle, built first if it is missing or stale; the
 * TypeScript source through tsx when asked (`REPLICA_STUDIO_ENGINE_SOURCE=1`) or when the build
 * fails (said through `notice`).
 */
export async function engineEntry(options: { bundle?: string; entry?: string; env?: NodeJS.ProcessEnv; notice?: (line: string) => void } = {}): Promise<EngineEntry> {
  const { bundle = ENGINE_BUNDLE, entry = ENGINE_SOURCE, env = process.env, notice = (line: string) => process.stderr.write(`replica-studio: ${line}\n`) } = options;
  const source = entry === ENGINE_SOURCE ? fromSource() : { file: entry, execArgv: ['--import', 'tsx'], bundled: false };
  if (env['REPLICA_STUDIO_ENGINE_SOURCE'] === '1') return source;
  if (staleReason(bundle) !== undefined) {
    try {
      await runBundleScript(entry, bundle);
    } catch (e) {
      notice(`could not bundle ${entry === HOST_SOURCE ? 'the host' : 'the engine'} (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); running its TypeScript sources through tsx`);
      return source;
    }
  }
  return { file: bundle, execArgv: [], bundled: true };
}

/**
 * The entry the headless host should run, as `engineEntry` decides for the engine: its bundle,
 * built first if missing or stale, or its TypeScript sources through tsx. Run from the bundle the
 * host holds less memory (no tsx loader thread with a heap of its own, one source string) and
 * prints its URL sooner (docs/performance.md).
 */
export function hostEntry(options: { env?: NodeJS.ProcessEnv; notice?: (line: string) => void } = {}): Promise<EngineEntry> {
  return engineEntry({ ...options, bundle: HOST_BUNDLE, entry: HOST_SOURCE });
}
