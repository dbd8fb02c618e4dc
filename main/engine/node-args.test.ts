import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_NODE_ARGS, HOST_NODE_ARGS } from './node-args.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('V8 flags of the processes we start', () => {
  it('`npm run serve` starts the host with the host flags, as `npm start` in browser mode and the scale benchmark do', () => {
    const scripts = (JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    // The host's bundle, built first unless fresh (scripts/engine-bundle.ts).
    expect(scripts.serve).toBe(['tsx scripts/engine-bundle.ts host &&', 'node', ...HOST_NODE_ARGS, 'dist/host-node/cli.mjs'].join(' '));
  });

  it('cap the young generation at 2 MiB per semi-space in a Node process started with them', () => {
    // Allocate 2 million short-lived objects, then read the young generation's size (two semi-spaces).
    const probe = "let a = []; for (let i = 0; i < 2e6; i++) a.push({ i }); a = null; console.log(require('v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size)";
    const newSpace = (flags: readonly string[]): number => Number(execFileSync(process.execPath, [...flags, '-e', probe], { encoding: 'utf8' }).trim());
    for (const flags of [ENGINE_NODE_ARGS, HOST_NODE_ARGS]) expect(newSpace(flags)).toBeLessThanOrEqual(4 * 1024 * 1024);
    // Without them V8 grows it well past that.
    expect(newSpace([])).toBeGreaterThan(4 * 1024 * 1024);
  });
});
