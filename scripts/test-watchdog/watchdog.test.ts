import { describe, expect, it } from 'vitest';
import type { TestCase, TestModule } from 'vitest/node';
import TestWatchdog from './watchdog.js';

const module = (moduleId: string) => ({ moduleId, project: { name: 'unit' } }) as unknown as TestModule;
const test = (moduleId: string, fullName: string) => ({ module: { moduleId }, fullName }) as unknown as TestCase;

describe('test watchdog reporter', () => {
  it('names a file that runs past the limit, with the test it is in, and forgets it once it ends', () => {
    let now = 0;
    const lines: string[] = [];
    const dog = new TestWatchdog({ afterMs: 300_000, now: () => now, log: (l) => lines.push(l), root: '/repo' });
    dog.onTestModuleStart(module('/repo/app/a.test.ts'));
    dog.onTestCaseReady(test('/repo/app/a.test.ts', 'codecs > refuse junk'));
    now = 120_000;
    dog.onTestModuleStart(module('/repo/app/b.test.ts'));
    now = 299_000;
    expect(dog.check()).toBe(0);
    now = 301_000;
    expect(dog.check()).toBe(1);
    expect(lines).toEqual(['[watchdog] unit app/a.test.ts has been running for 301 s, in "codecs > refuse junk"']);
    dog.onTestModuleEnd(module('/repo/app/a.test.ts'));
    now = 430_000;
    expect(dog.check()).toBe(1);
    expect(lines[1]).toBe('[watchdog] unit app/b.test.ts has been running for 310 s');
  });
});
