/**
 * The host's per-data-dir access token: 32 random bytes as hex in `<dataDir>/host-token`,
 * created owner-only (0600) and re-used on every restart, so a bookmarked start URL keeps working
 * and no other local user can read it.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The token file's name inside the data directory. */
export const TOKEN_FILE = 'host-token';

const TOKEN_PATTERN = /^[0-9a-f]{64}$/;

/** Read the data dir's token, creating it (mode 0600) when it is missing or malformed. */
export function loadOrCreateToken(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, TOKEN_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    let existing: string | undefined;
    try {
      existing = readFileSync(file, 'utf8').trim();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    if (existing !== undefined) {
      if (TOKEN_PATTERN.test(existing)) {
        // An older or hand-copied file may be wider: never leave the token readable by others.
        chmodSync(file, 0o600);
        return existing;
      }
      unlinkSync(file); // malformed: replace it
    }
    const token = randomBytes(32).toString('hex');
    let fd: number;
    try {
      // 'wx': fail if another process created it in between; then read theirs on the next pass.
      fd = openSync(file, 'wx', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw e;
    }
    try {
      writeSync(fd, `${token}\n`);
    } finally {
      closeSync(fd);
    }
    chmodSync(file, 0o600); // the umask can only narrow the mode, but say it explicitly
    return token;
  }
  throw new Error(`Cannot create the host token file ${file}.`);
}

/** Compare a presented token with the expected one in constant time. */
export function tokenMatches(expected: string, presented: string | undefined | null): boolean {
  if (typeof presented !== 'string') return false;
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(presented, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
