/**
 * Which Chromium the browser tests, the UI benchmark and any screenshot tooling drive — decided in
 * this one place, so that `npm install && npm test` needs nothing else on the machine.
 *
 *   1. `CHROMIUM_PATH` names a browser explicitly: that one.
 *   2. Otherwise a system Chromium (Debian's `/usr/bin/chromium`, or `chromium` / `chromium-browser`
 *      / `google-chrome` on PATH) when one is installed — unless `REPLICA_STUDIO_BROWSER=npm`
 *      makes it invisible (CI does that once, so the npm path cannot rot unnoticed).
 *   3. Otherwise the Chromium that arrived with `npm install`: `@sparticuz/chromium` ships a
 *      headless-shell build inside the package (brotli-packed; unpacked to the temp folder on first
 *      use). On a machine that lacks the few shared libraries it links (NSS, NSPR, expat), the
 *      package's own copies are unpacked beside it and put on LD_LIBRARY_PATH for the browser only.
 *
 * `REPLICA_STUDIO_BROWSER=system` insists on a system browser (an error when there is none).
 * The choice is printed once per process (`resolveBrowser` memoises it); the e2e project's global
 * setup resolves it once per run and hands it to the test workers through the environment.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export interface BrowserChoice {
  /** Where it came from: an explicit path, the system, or the npm package. */
  source: 'CHROMIUM_PATH' | 'system' | 'npm';
  executablePath: string;
  /** Command-line switches for this build. */
  args: string[];
  /** Extra environment for the browser process (shared libraries the npm build brings). */
  env: Record<string, string>;
}

/** The environment variable through which a resolved choice reaches other processes (test workers). */
const RESOLVED_ENV = 'REPLICA_STUDIO_BROWSER_RESOLVED';

/** Switches every launch gets: headless on a closed network (no background traffic), as root. */
const COMMON_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Switches of @sparticuz/chromium's recommended set that we leave out: they weaken the very web
 * security our tests check (same-origin, mixed content, site isolation), and a single-process
 * browser cannot hold several isolated contexts reliably.
 */
const DROPPED_NPM_ARGS = new Set(['--disable-web-security', '--allow-running-insecure-content', '--disable-site-isolation-trials', '--single-process']);

const SYSTEM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A system Chromium, if the machine has one. */
export function findSystemChromium(): string | undefined {
  for (const path of SYSTEM_CANDIDATES) if (isExecutable(path)) return path;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
      const path = join(dir, name);
      if (dir && isExecutable(path)) return path;
    }
  }
  return undefined;
}

/** Shared libraries `ldd` cannot find for a binary ([] when ldd is absent or all resolve). */
function missingLibraries(binary: string, env: NodeJS.ProcessEnv = process.env): string[] {
  try {
    const out = execFileSync('ldd', [binary], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'ignore'] });
    return out
      .split('\n')
      .filter((line) => line.includes('not found'))
      .map((line) => line.trim().split(/\s+/)[0] ?? line.trim());
  } catch {
    return [];
  }
}

async function npmChromium(): Promise<BrowserChoice> {
  const { default: packaged, inflate } = await import('@sparticuz/chromium');
  const executablePath = await packaged.executablePath();
  const env: Record<string, string> = {};
  if (missingLibraries(executablePath).length > 0) {
    // The package carries NSS/NSPR/expat for hosts without them; unpack and point the loader there.
    const binDir = join(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '..', 'bin');
    const libDir = join(await inflate(join(binDir, 'al2023.tar.br')), 'lib');
    env.LD_LIBRARY_PATH = [libDir, process.env.LD_LIBRARY_PATH].filter(Boolean).join(delimiter);
    const still = missingLibraries(executablePath, { ...process.env, ...env });
    if (still.length > 0) throw new Error(`the Chromium from @sparticuz/chromium cannot start here: missing shared libraries ${still.join(', ')}`);
  }
  const args = [...packaged.args.filter((a) => !DROPPED_NPM_ARGS.has(a)), ...COMMON_ARGS.filter((a) => !packaged.args.includes(a))];
  return { source: 'npm', executablePath, args, env };
}

async function decide(): Promise<BrowserChoice> {
  const inherited = process.env[RESOLVED_ENV];
  if (inherited) return JSON.parse(inherited) as BrowserChoice;
  const wanted = process.env.REPLICA_STUDIO_BROWSER;
  if (wanted !== undefined && wanted !== '' && wanted !== 'npm' && wanted !== 'system') {
    throw new Error(`REPLICA_STUDIO_BROWSER must be "npm" or "system", got ${JSON.stringify(wanted)}`);
  }
  const explicit = process.env.CHROMIUM_PATH;
  if (explicit && wanted !== 'npm') {
    if (!existsSync(explicit)) throw new Error(`CHROMIUM_PATH names ${explicit}, which does not exist`);
    return { source: 'CHROMIUM_PATH', executablePath: explicit, args: COMMON_ARGS, env: {} };
  }
  if (wanted !== 'npm') {
    const system = findSystemChromium();
    if (system) return { source: 'system', executablePath: system, args: COMMON_ARGS, env: {} };
    if (wanted === 'system') throw new Error('REPLICA_STUDIO_BROWSER=system, but no system Chromium is installed (e.g. apt-get install chromium)');
  }
  return npmChromium();
}

let memo: Promise<BrowserChoice> | undefined;

/** The browser this process uses; the first call prints the choice on one line (stderr). */
export function resolveBrowser(): Promise<BrowserChoice> {
  memo ??= decide().then((choice) => {
    if (!process.env[RESOLVED_ENV]) {
      const why = choice.source === 'npm' ? (process.env.REPLICA_STUDIO_BROWSER === 'npm' ? ' (REPLICA_STUDIO_BROWSER=npm)' : ' (no system Chromium)') : '';
      process.stderr.write(`browser: ${describeChoice(choice)}${why}\n`);
      process.env[RESOLVED_ENV] = JSON.stringify(choice);
    }
    return choice;
  });
  return memo;
}

export function describeChoice(choice: BrowserChoice): string {
  const from = { CHROMIUM_PATH: 'CHROMIUM_PATH', system: 'the system', npm: 'npm (@sparticuz/chromium)' }[choice.source];
  return `Chromium from ${from} at ${choice.executablePath}`;
}

/** Launch the chosen Chromium headless through playwright-core. */
export async function launchBrowser(): Promise<Browser> {
  const choice = await resolveBrowser();
  return chromium.launch({
    executablePath: choice.executablePath,
    headless: true,
    args: choice.args,
    ...(Object.keys(choice.env).length > 0 ? { env: { ...process.env, ...choice.env } as Record<string, string> } : {}),
  });
}
