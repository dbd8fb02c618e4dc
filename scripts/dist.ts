/**
 * `npm run dist`: build, then make installers with electron-builder for this OS (Linux: AppImage
 * + deb; macOS: dmg; Windows: nsis — see electron-builder.yml). electron-builder downloads the
 * Electron binary for the target first (and @electron/rebuild rebuilds better-sqlite3 for its
 * ABI). Where that download cannot happen (offline, a firewall), it stops at once with one line
 * saying why instead of a long stack trace.
 *
 *   npm run dist [-- --check]     --check: only say whether installers can be built here
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export function electronVersion(): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'electron', 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** Where electron-builder would fetch the Electron zip from (ELECTRON_MIRROR honoured). */
export function electronZipUrl(version: string, platform = process.platform, arch = process.arch): string {
  const mirror = process.env.ELECTRON_MIRROR ?? 'https://github.com/electron/electron/releases/download/';
  return `${mirror.replace(/\/?$/, '/')}v${version}/electron-v${version}-${platform}-${arch}.zip`;
}

function cachedZip(version: string): string | undefined {
  const cacheDir = process.env.electron_config_cache ?? (process.platform === 'darwin' ? join(homedir(), 'Library', 'Caches', 'electron') : join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'electron'));
  const file = join(cacheDir, `electron-v${version}-${process.platform}-${process.arch}.zip`);
  return existsSync(file) ? file : undefined;
}

/** Undefined when Electron can be had (cached or reachable), else the reason in a few words. */
export async function whyNotPackageable(version: string, timeoutMs = 5000): Promise<string | undefined> {
  if (cachedZip(version)) return undefined;
  const url = electronZipUrl(version);
  try {
    const res = await fetch(url, { method: 'HEAD', redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) });
    if (res.ok) return undefined;
    return `${new URL(url).host} answered ${res.status} for Electron ${version}`;
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e instanceof Error ? e.name : String(e));
    return `cannot download Electron ${version} from ${new URL(url).host} (${cause})`;
  }
}

async function main(): Promise<void> {
  const version = electronVersion();
  const why = await whyNotPackageable(version);
  if (why) {
    process.stderr.write(`npm run dist: ${why}; installers need that binary — run it where the download works, or set ELECTRON_MIRROR or electron_config_cache (see README, Packaging).\n`);
    process.exit(1);
  }
  if (process.argv.includes('--check')) {
    process.stdout.write(`npm run dist: Electron ${version} is available; installers can be built here.\n`);
    return;
  }
  const run = (cmd: string, args: string[]): void => {
    const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  };
  run('npm', ['run', 'build']);
  run('npx', ['electron-builder', '--config', 'electron-builder.yml', '--publish', 'never']);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) void main();
