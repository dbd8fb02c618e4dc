/**
 * Tests of engine processes: temp data directories and the engines started on them, closed in
 * order and deleted after each test (the hook is registered by `engineBed`, called at the top of
 * a test file).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { RemoteService } from '../remote-service.js';

export interface EngineBed {
  /** A new empty directory, deleted after the test. */
  tempDir(): string;
  /** Close this engine after the test (before its directory is deleted). */
  keep<T extends RemoteService>(service: T): T;
}

export function engineBed(prefix: string): EngineBed {
  const dirs: string[] = [];
  const services: RemoteService[] = [];
  afterEach(async () => {
    for (const service of services.splice(0)) await service.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    tempDir() {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    keep(service) {
      services.push(service);
      return service;
    },
  };
}
