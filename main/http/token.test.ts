import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadOrCreateToken, TOKEN_FILE, tokenMatches } from './token.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rs-token-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the host token', () => {
  it('is 32 random bytes in hex, in a file only its owner can read', () => {
    const token = loadOrCreateToken(dir);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(join(dir, TOKEN_FILE), 'utf8').trim()).toBe(token);
    if (process.platform !== 'win32') expect(statSync(join(dir, TOKEN_FILE)).mode & 0o777).toBe(0o600);
  });

  it('is re-used on restart, and differs between data directories', () => {
    const token = loadOrCreateToken(dir);
    expect(loadOrCreateToken(dir)).toBe(token);
    const other = mkdtempSync(join(tmpdir(), 'rs-token-'));
    try {
      expect(loadOrCreateToken(other)).not.toBe(token);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('matches only the exact token', () => {
    const token = loadOrCreateToken(dir);
    expect(tokenMatches(token, token)).toBe(true);
    expect(tokenMatches(token, token.slice(1))).toBe(false);
    expect(tokenMatches(token, undefined)).toBe(false);
    expect(tokenMatches(token, `${token.slice(0, -1)}x`)).toBe(false);
  });
});
