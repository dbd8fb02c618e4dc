import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemorySettler } from './memory-settler.js';
import { ENGINE_NODE_ARGS } from './node-args.js';

const MB = 1024 * 1024;

/** A process whose heap and CPU the test sets; a collection brings the heap down to `live`. */
function fakeProcess() {
  const state = { now: 0, cpu: 0, used: 100 * MB, live: 100 * MB, collected: 0 };
  const settler = new MemorySettler(
    {
      heapUsedBytes: () => state.used,
      cpuMs: () => state.cpu,
      now: () => state.now,
      collect: async () => {
        state.collected++;
        state.used = state.live;
      },
    },
    { everyMs: 5_000, quietCores: 0.1, growth: 1.3, slackBytes: 32 * MB },
  );
  const look = (cpuMs: number, usedMb: number): Promise<boolean> => {
    state.now += 5_000;
    state.cpu += cpuMs;
    state.used = usedMb * MB;
    return settler.check();
  };
  return { state, settler, look };
}

describe('memory settler', () => {
  it('collects once after a burst that left garbage, when the process has gone quiet, and not again', async () => {
    const { state, look } = fakeProcess();
    state.live = 60 * MB;
    expect(await look(4_000, 300)).toBe(false); // the open: busy, left alone
    expect(await look(10, 300)).toBe(true); // the first quiet look learns what is live
    expect(await look(10, 62)).toBe(false);
    state.live = 110 * MB;
    expect(await look(4_000, 400)).toBe(false); // a burst (0.8 core): left alone
    expect(await look(4_500, 900)).toBe(false);
    expect(await look(50, 900)).toBe(true); // quiet again with 900 MB in use: one collection
    expect(state.collected).toBe(2);
    expect(await look(50, 115)).toBe(false); // 110 MB live after it is the new baseline
    expect(await look(50, 170)).toBe(false); // within 1.3 × 110 + 32 MB
    expect(state.collected).toBe(2);
  });

  it('leaves a heap that grew by less than its slack alone, however quiet', async () => {
    const { state, look } = fakeProcess();
    await look(0, 20); // no larger than the slack: nothing to learn
    expect(state.collected).toBe(0);
    await look(0, 100);
    expect(state.collected).toBe(1);
    for (let i = 0; i < 10; i++) await look(0, 160);
    expect(state.collected).toBe(1);
  });

  it('in a process started with --expose-gc, gives back what a burst left while small allocations go on (a real V8 heap)', () => {
    // A burst leaves ~190 MB of garbage; then a trickle of short-lived objects, as a replicating
    // cluster allocates when idle, keeps V8's own memory reducer from starting.
    const run = (settle: boolean): { burst: number; after: number } => {
      const script = `
        const { startMemorySettler } = await import(${JSON.stringify(resolve(import.meta.dirname, 'memory-settler.ts'))});
        const v8 = await import('node:v8');
        const used = () => Math.round(v8.getHeapStatistics().used_heap_size / 1e6);
        let keep = []; for (let i = 0; i < 2e6; i++) keep.push({ i, s: 'x' + i });
        const burst = used(); keep = null;
        let sink; const trickle = setInterval(() => { const a = []; for (let i = 0; i < 300; i++) a.push({ i, s: 'y' + i }); sink = a; }, 10);
        if (${settle}) startMemorySettler({ everyMs: 500 });
        await new Promise((r) => setTimeout(r, 3000));
        clearInterval(trickle);
        console.log(JSON.stringify({ burst, after: used() }));`;
      const child = spawnSync(process.execPath, ['--expose-gc', ...ENGINE_NODE_ARGS, '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
      expect(child.stderr).toBe('');
      return JSON.parse(child.stdout.trim()) as { burst: number; after: number };
    };
    const alone = run(false);
    expect(alone.burst).toBeGreaterThan(100);
    expect(alone.after).toBeGreaterThan(alone.burst / 2); // V8 alone keeps it
    const settled = run(true);
    expect(settled.after).toBeLessThan(settled.burst / 4);
  });

  it('is part of the engine process: its flags expose the collector', () => {
    expect(ENGINE_NODE_ARGS).toContain('--expose-gc');
  });
});
