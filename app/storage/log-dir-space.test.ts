/**
 * DescribeLogDirs v4 over a cluster on real SQLite files: a broker's log directory reports the
 * size of the file system it is on and the space left to use, as Kafka reads them (statfs).
 */
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiKey } from '../protocol/generated/index.js';
import { WireSim } from '../protocol/test-support/wire-sim.js';
import { SqliteStorage } from './sqlite-storage.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('DescribeLogDirs total and usable bytes', () => {
  it('v4 gives the data directory\'s file system size and usable space; v1 has neither; replicas are listed in every version', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'log-dir-space-'));
    dirs.push(dir);
    const storage = SqliteStorage.open(dir);
    try {
      const w = new WireSim({ seed: 37, storage });
      storage.batch(() => w.sim.createTopic('t', 1, 3, {}, [[2, 1, 3]]));
      const v4 = await w.respond(2, ApiKey.DescribeLogDirs, 4, { topics: null });
      const fs = statfsSync(dir);
      const [result] = v4.results;
      expect(result!.logDir).toBe('broker-2');
      expect(result!.totalBytes).toBe(BigInt(fs.blocks * fs.bsize));
      // Usable space moves as anything on the machine writes: within 64 MB of statfs's now.
      expect(Number(result!.usableBytes)).toBeGreaterThan(0);
      expect(Math.abs(Number(result!.usableBytes) - fs.bavail * fs.bsize)).toBeLessThan(64 * 1024 * 1024);
      expect(result!.topics.map((t) => t.name)).toEqual(['t']);
      for (const v of [1, 2, 3]) {
        const r = await w.respond(2, ApiKey.DescribeLogDirs, v, { topics: null });
        expect(r.results[0]!.topics.map((t) => t.name)).toEqual(['t']);
      }
    } finally {
      storage.close();
    }
  });
});
