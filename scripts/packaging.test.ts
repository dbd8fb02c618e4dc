/**
 * Packaging checks that run without Electron's binary: electron-builder.yml is valid for
 * electron-builder's own schema (its validateConfiguration, i.e. app-builder-lib/scheme.json),
 * and everything it names exists once `npm run build` has run (npm test builds first).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { PNG_SIZES } from './build-icons.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
type BuilderConfig = Parameters<typeof validateConfiguration>[0];
const noDebug = { isEnabled: false, add: () => {} } as unknown as Parameters<typeof validateConfiguration>[1];

function config(): Record<string, unknown> {
  return yaml.load(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8')) as Record<string, unknown>;
}

/** Files under `dir`, recursively (relative paths). */
function walk(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? walk(full, `${prefix}${name}/`) : [`${prefix}${name}`];
  });
}

describe('electron-builder.yml', () => {
  it('passes electron-builder’s own schema validation', async () => {
    await expect(validateConfiguration(config() as BuilderConfig, noDebug)).resolves.toBeUndefined();
  });

  it('is rejected by the same validation when it names an option electron-builder does not have', async () => {
    const broken = { ...config(), linux: { ...(config().linux as object), targetz: ['AppImage'] } };
    await expect(validateConfiguration(broken as BuilderConfig, noDebug)).rejects.toThrow(/Invalid configuration object[\s\S]*configuration\.linux/);
  });

  it('targets AppImage and deb on Linux, dmg on macOS, nsis on Windows, and sets the security fuses', () => {
    const c = config() as { linux: { target: string[] }; mac: { target: string[] }; win: { target: string[] }; electronFuses: Record<string, boolean>; appId: string; productName: string };
    expect(c.appId).toMatch(/^[a-z]+(\.[a-z0-9-]+)+$/);
    expect(c.productName).toBe('Replica Studio');
    expect(c.linux.target).toEqual(['AppImage', 'deb']);
    expect(c.mac.target).toEqual(['dmg']);
    expect(c.win.target).toEqual(['nsis']);
    expect(c.electronFuses).toMatchObject({ runAsNode: false, onlyLoadAppFromAsar: true, enableNodeOptionsEnvironmentVariable: false, enableNodeCliInspectArguments: false, enableEmbeddedAsarIntegrityValidation: true });
  });

  it('names only built files, and every one of them exists after npm run build', () => {
    const c = config() as { files: string[] };
    const roots = c.files.filter((f) => !f.startsWith('!')).map((f) => f.replace(/\/\*\*\/\*$/, ''));
    expect(roots.sort()).toEqual(['dist/electron', 'dist/renderer']);
    const electron = walk(join(ROOT, 'dist/electron'));
    expect(electron).toEqual(expect.arrayContaining(['main.cjs', 'preload.cjs']));
    expect(walk(join(ROOT, 'dist/renderer'))).toContain('index.html');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { main: string };
    expect(existsSync(join(ROOT, pkg.main))).toBe(true);
    expect(pkg.main.startsWith('dist/electron/')).toBe(true);
  });

  it('unpacks better-sqlite3 (its native module cannot load from inside app.asar)', () => {
    const c = config() as { asarUnpack: string[]; npmRebuild: boolean };
    expect(c.asarUnpack).toContain('node_modules/better-sqlite3/**/*');
    expect(existsSync(join(ROOT, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))).toBe(true);
    expect(c.npmRebuild).toBe(true);
  });

  it('ships the built-in profiles as extra resources and the icons every target needs', () => {
    const c = config() as { extraResources: { from: string; to: string }[]; icon: string; linux: { icon: string }; mac: { icon: string }; win: { icon: string } };
    const profiles = c.extraResources.find((r) => r.to === 'profiles')!;
    expect(readdirSync(join(ROOT, profiles.from)).filter((f) => f.endsWith('.json'))).toEqual(expect.arrayContaining(['durability.json', 'balanced.json', 'throughput.json']));
    for (const file of [c.icon, c.mac.icon, c.win.icon]) expect(existsSync(join(ROOT, file)), file).toBe(true);
    const pngs = walk(join(ROOT, c.linux.icon));
    for (const size of PNG_SIZES) expect(pngs).toContain(`${size}x${size}.png`);
  });
});

describe('icons', () => {
  it('are rendered from the SVG at their nominal sizes, with ICNS and ICO headers', () => {
    const build = join(ROOT, 'resources/icons/build');
    for (const size of [16, 256, 1024]) {
      const png = readFileSync(join(build, 'png', `${size}x${size}.png`));
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([size, size]);
    }
    expect(readFileSync(join(build, 'icon.icns')).subarray(0, 4).toString('latin1')).toBe('icns');
    const ico = readFileSync(join(build, 'icon.ico'));
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2)]).toEqual([0, 1]);
    expect(ico.readUInt16LE(4)).toBeGreaterThanOrEqual(1);
  });
});

describe('npm run dist', () => {
  it('stops with one clear line when Electron cannot be downloaded', async () => {
    // A port that was free a moment ago on loopback stands in for "no route to the download site".
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/dist.ts'), '--check'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, ELECTRON_MIRROR: `http://127.0.0.1:${port}/`, electron_config_cache: join(ROOT, 'node_modules', '.cache', 'no-electron-here') },
    });
    expect(r.status).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^npm run dist: cannot download Electron \d+\.\d+\.\d+ from 127\.0\.0\.1:\d+ \(ECONNREFUSED\); installers need that binary/);
  });
});
