/**
 * A vitest reporter that names a test file that runs for too long, while it runs. A test stuck in
 * synchronous code (a decoder looping on fuzzed input, say) cannot be stopped by vitest's
 * testTimeout, and the default reporter prints a file only when it ends, so a hung run used to
 * print nothing until CI's own limit killed it. Every `everyMs` this names each file that has
 * been running longer than `afterMs`, with the test it is in, so the end of CI's output says
 * which test hung.
 */
import type { Reporter, TestCase, TestModule } from 'vitest/node';

export interface WatchdogOptions {
  afterMs?: number;
  everyMs?: number;
  now?: () => number;
  log?: (line: string) => void;
  root?: string;
}

export default class TestWatchdog implements Reporter {
  private readonly afterMs: number;
  private readonly everyMs: number;
  private readonly now: () => number;
  private readonly log: (line: string) => void;
  private readonly root: string;
  private readonly running = new Map<string, { since: number; project: string; test?: string }>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: WatchdogOptions = {}) {
    this.afterMs = options.afterMs ?? 5 * 60_000;
    this.everyMs = options.everyMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.root = options.root ?? process.cwd();
  }

  onTestRunStart(): void {
    this.timer = setInterval(() => this.check(), this.everyMs);
    this.timer.unref();
  }

  onTestModuleStart(module: TestModule): void {
    this.running.set(module.moduleId, { since: this.now(), project: module.project.name });
  }

  onTestCaseReady(test: TestCase): void {
    const entry = this.running.get(test.module.moduleId);
    if (entry) entry.test = test.fullName;
  }

  onTestModuleEnd(module: TestModule): void {
    this.running.delete(module.moduleId);
  }

  onTestRunEnd(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Names every file running longer than `afterMs`; returns how many it named. */
  check(): number {
    const now = this.now();
    let named = 0;
    for (const [id, entry] of this.running) {
      const ms = now - entry.since;
      if (ms < this.afterMs) continue;
      const file = id.startsWith(this.root) ? id.slice(this.root.length).replace(/^\//, '') : id;
      const within = entry.test ? `, in "${entry.test}"` : '';
      this.log(`[watchdog] ${entry.project ? `${entry.project} ` : ''}${file} has been running for ${Math.round(ms / 1000)} s${within}`);
      named++;
    }
    return named;
  }
}
