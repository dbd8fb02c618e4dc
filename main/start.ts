/**
 * `npm start`: the desktop app when the Electron binary is installed, otherwise browser mode.
 *
 * Electron ≥ 42 downloads its binary lazily, and `require('electron')` itself tries that
 * download (and throws offline). So the check below never requires the package: it reads the
 * package's `path.txt` and tests that `dist/<path>` exists (or ELECTRON_OVERRIDE_DIST_PATH).
 * With a binary: build the main, preload and engine bundles (`tsx scripts/electron-build.ts`, as a
 * child process: the launcher runs the build script, it does not import it), then run
 * Electron on dist/electron/main.cjs, which forks dist/electron/engine.cjs as a utility process.
 * Without: print one line saying so, then run the headless host (main/cli/cli.ts, from its bundle) on the
 * default data directory; it prints the URL of the same UI for a browser.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import esMain from 'es-main';
import { hostEntry } from './engine/bundle-entry.js';
import { HOST_NODE_ARGS } from './engine/node-args.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_DATA_DIR = '.data/default';
export const MAIN_BUNDLE = join(ROOT, 'dist', 'electron', 'main.cjs');
/** `npm run build:electron`: bundles main, preload and the engine into dist/electron/. */
const ELECTRON_BUILD_SCRIPT = join(ROOT, 'scripts', 'electron-build.ts');

/** The Electron executable if it is installed, without triggering its download. */
export function findElectronBinary(env: NodeJS.ProcessEnv = process.env, resolvePackageJson: () => string = () => createRequire(import.meta.url).resolve('electron/package.json')): string | undefined {
  let dir: string;
  try {
    dir = dirname(resolvePackageJson());
  } catch {
    return undefined; // the electron package is not installed at all
  }
  const pathFile = join(dir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  const binary = override ? join(override, relative || 'electron') : relative ? join(dir, 'dist', relative) : undefined;
  return binary && existsSync(binary) ? binary : undefined;
}

export interface StartDeps {
  findElectron: () => string | undefined;
  /** Build the bundles and run Electron; resolves with its exit code. */
  runElectron: (binary: string, args: string[]) => Promise<number>;
  /** Run the headless host with these CLI arguments; resolves with its exit code. */
  runHeadless: (args: string[]) => Promise<number>;
  log: (line: string) => void;
}

/** Decide and run; `args` are passed on (e.g. `npm start -- --data DIR`). */
export async function start(args: string[], deps: StartDeps): Promise<number> {
  const binary = deps.findElectron();
  if (binary) return deps.runElectron(binary, args);
  deps.log('Electron binary is not installed here (run `npx install-electron` to fetch it); serving the UI in browser mode instead.');
  const hasData = args.some((a) => a === '--data' || a.startsWith('--data='));
  return deps.runHeadless(hasData ? args : ['--data', DEFAULT_DATA_DIR, ...args]);
}

function run(command: string, args: string[]): Promise<number> {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { stdio: 'inherit', cwd: ROOT });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('exit', (code, signal) => resolvePromise(code ?? (signal ? 0 : 1)));
    child.on('error', (e) => {
      process.stderr.write(`replica-studio start: ${e.message}\n`);
      resolvePromise(1);
    });
  });
}

const realDeps: StartDeps = {
  findElectron: () => findElectronBinary(),
  runElectron: async (binary, args) => {
    // Its output goes to this terminal; it says what failed, and a failed build runs nothing.
    const built = await run(process.execPath, ['--import', 'tsx', ELECTRON_BUILD_SCRIPT]);
    if (built !== 0) {
      process.stderr.write(`replica-studio start: building the Electron bundles failed (exit code ${built})\n`);
      return 1;
    }
    return run(binary, [MAIN_BUNDLE, ...args]);
  },
  runHeadless: (args) => {
    const renderer = join(ROOT, 'dist', 'renderer');
    const withStatic = existsSync(join(renderer, 'index.html')) && !args.includes('--static') ? [...args, '--static', renderer] : args;
    // The host's bundle (built first when stale), or its sources through tsx if it cannot be built.
    return hostEntry().then((entry) => run(process.execPath, [...HOST_NODE_ARGS, ...entry.execArgv, entry.file, ...withStatic]));
  },
  log: (line) => process.stderr.write(`${line}\n`),
};

if (esMain(import.meta)) void start(process.argv.slice(2), realDeps).then((code) => process.exit(code));
