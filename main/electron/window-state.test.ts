import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BOUNDS, loadBounds, restoreBounds, saveBounds } from './window-state.js';

const screen = [{ x: 0, y: 0, width: 1920, height: 1080 }];

describe('window state', () => {
  it('restores a saved size and position on a display that still exists', () => {
    expect(restoreBounds(JSON.stringify({ x: 100, y: 50, width: 1200, height: 800, maximized: false }), screen)).toEqual({ x: 100, y: 50, width: 1200, height: 800, maximized: false });
  });

  it('drops a position on a display that is gone (window would be off-screen) but keeps the size', () => {
    expect(restoreBounds(JSON.stringify({ x: 2500, y: 50, width: 1200, height: 800 }), screen)).toEqual({ width: 1200, height: 800, maximized: false });
  });

  it('never restores below the minimum size, and ignores malformed files', () => {
    expect(restoreBounds(JSON.stringify({ width: 200, height: 100 }), screen)).toMatchObject({ width: 900, height: 600 });
    for (const bad of ['', 'not json', '[]', '{"width":"1200","height":800}', 'null']) expect(restoreBounds(bad, screen)).toEqual(DEFAULT_BOUNDS);
  });

  it('round-trips through the file, and a missing file gives the defaults', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-win-'));
    try {
      const file = join(dir, 'window-state.json');
      expect(loadBounds(file, screen)).toEqual(DEFAULT_BOUNDS);
      saveBounds(file, { x: 10, y: 20, width: 1000, height: 700, maximized: true });
      expect(loadBounds(file, screen)).toEqual({ x: 10, y: 20, width: 1000, height: 700, maximized: true });
      writeFileSync(file, '{broken');
      expect(loadBounds(file, screen)).toEqual(DEFAULT_BOUNDS);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
