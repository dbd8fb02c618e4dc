import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_DATA_DIR, MAIN_BUNDLE, findElectronBinary, start, type StartDeps } from './start.js';

function deps(binary: string | undefined): StartDeps & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    findElectron: () => binary,
    runElectron: vi.fn(async () => 0),
    runHeadless: vi.fn(async () => 0),
    log: (line) => lines.push(line),
  };
}

describe('npm start', () => {
  it('without the Electron binary says so in one line and runs the headless host on the default data dir', async () => {
    const d = deps(undefined);
    expect(await start([], d)).toBe(0);
    expect(d.lines).toHaveLength(1);
    expect(d.lines[0]).toMatch(/Electron binary is not installed.*browser mode/);
    expect(d.runHeadless).toHaveBeenCalledWith(['--data', DEFAULT_DATA_DIR]);
    expect(d.runElectron).not.toHaveBeenCalled();
  });

  it('in browser mode keeps a data dir the user passed', async () => {
    const d = deps(undefined);
    await start(['--data', '/tmp/x', '--port', '8080'], d);
    expect(d.runHeadless).toHaveBeenCalledWith(['--data', '/tmp/x', '--port', '8080']);
  });

  it('with the binary runs Electron and prints nothing', async () => {
    const d = deps('/opt/electron/electron');
    await start([], d);
    expect(d.runElectron).toHaveBeenCalledWith('/opt/electron/electron', []);
    expect(d.runHeadless).not.toHaveBeenCalled();
    expect(d.lines).toEqual([]);
    expect(MAIN_BUNDLE).toMatch(/dist[/\\]electron[/\\]main\.cjs$/);
  });
});

describe('findElectronBinary', () => {
  function fakePackage(withPathTxt: boolean, withBinary: boolean): string {
    const dir = mkdtempSync(join(tmpdir(), 'rs-electron-'));
    writeFileSync(join(dir, 'package.json'), '{}');
    if (withPathTxt) writeFileSync(join(dir, 'path.txt'), 'electron');
    if (withBinary) {
      mkdirSync(join(dir, 'dist'));
      writeFileSync(join(dir, 'dist', 'electron'), '');
    }
    return join(dir, 'package.json');
  }

  it('finds nothing when the package is not installed', () => {
    expect(findElectronBinary({}, () => { throw new Error('MODULE_NOT_FOUND'); })).toBeUndefined();
  });

  it('finds nothing when the package is installed but its binary was never downloaded', () => {
    expect(findElectronBinary({}, () => fakePackage(false, false))).toBeUndefined();
    expect(findElectronBinary({}, () => fakePackage(true, false))).toBeUndefined();
  });

  it('finds the downloaded binary', () => {
    const pkg = fakePackage(true, true);
    expect(findElectronBinary({}, () => pkg)).toBe(join(pkg, '..', 'dist', 'electron'));
  });

  it('never triggers the download on this machine (it only answers)', () => {
    expect(() => findElectronBinary()).not.toThrow();
  });
});
