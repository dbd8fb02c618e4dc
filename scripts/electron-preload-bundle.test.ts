import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';
import { describe, expect, it } from 'vitest';
import { electronBuildConfig } from '../vite.electron.config.js';

describe('the preload bundle', () => {
  it('is one file that requires nothing but electron (a sandboxed preload cannot require local files)', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'rs-preload-'));
    await build(electronBuildConfig('preload', outDir));
    const code = readFileSync(join(outDir, 'preload.cjs'), 'utf8');
    const required = [...code.matchAll(/require\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
    expect(required).toEqual(['electron']);
    expect(code).toContain('exposeInMainWorld');
  }, 20_000);
});
