/**
 * Gives back the heap a burst of work left behind, once the engine is quiet again. V8 lets the old
 * generation grow to a multiple of what is live before its next full collection, and its own
 * memory reducer starts only when allocation is nearly nil, which a replicating cluster never is:
 * after a big cluster's restart, the catch-up (every ISR growing back) would leave its garbage
 * resident for as long as the engine runs.
 *
 * Every `everyMs` the settler looks at the process's CPU since the last look and the heap in use.
 * When the process was quiet (below `quietCores`) and the heap has grown past `growth` × what was
 * live after the last collection (plus `slackBytes`; the first quiet look collects to learn what
 * is live), it asks V8 for one full collection, run
 * concurrently (`gc({ type: 'major', execution: 'async' })`, the engine runs with --expose-gc)
 * and takes what is live after it as the new baseline. A busy engine is left alone: the
 * collection would only be repeated by the next burst.
 */
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';

export interface MemorySettlerDeps {
  heapUsedBytes(): number;
  /** CPU ms the process has used so far. */
  cpuMs(): number;
  now(): number;
  /** One full collection; resolves once it is done. */
  collect(): Promise<void>;
}

export interface MemorySettlerOptions {
  everyMs?: number;
  quietCores?: number;
  growth?: number;
  slackBytes?: number;
}

export class MemorySettler {
  private readonly quietCores: number;
  private readonly growth: number;
  private readonly slackBytes: number;
  readonly everyMs: number;
  private baseline: number | undefined;
  private lastCpu: number;
  private lastAt: number;
  private collecting = false;
  /** Collections asked for so far. */
  collections = 0;

  constructor(
    private readonly deps: MemorySettlerDeps,
    options: MemorySettlerOptions = {},
  ) {
    this.everyMs = options.everyMs ?? 5_000;
    this.quietCores = options.quietCores ?? 0.1;
    this.growth = options.growth ?? 1.3;
    this.slackBytes = options.slackBytes ?? 32 * 1024 * 1024;
    this.lastCpu = deps.cpuMs();
    this.lastAt = deps.now();
  }

  /** One look; resolves true when it collected. */
  async check(): Promise<boolean> {
    const now = this.deps.now();
    const cpu = this.deps.cpuMs();
    const cores = now > this.lastAt ? (cpu - this.lastCpu) / (now - this.lastAt) : 0;
    this.lastAt = now;
    this.lastCpu = cpu;
    if (this.collecting || cores >= this.quietCores) return false;
    const used = this.deps.heapUsedBytes();
    if (this.baseline !== undefined && used < this.baseline) this.baseline = used;
    // Until a first collection, what is live is not known: the first quiet look learns it (the
    // open that came before it leaves garbage too), unless the heap is no larger than the slack.
    const limit = this.baseline === undefined ? this.slackBytes : this.baseline * this.growth + this.slackBytes;
    if (used <= limit) return false;
    this.collecting = true;
    this.collections++;
    try {
      await this.deps.collect();
    } finally {
      this.collecting = false;
    }
    this.baseline = this.deps.heapUsedBytes();
    // The collection's own CPU is not the engine's work: the next look starts after it.
    this.lastAt = this.deps.now();
    this.lastCpu = this.deps.cpuMs();
    return true;
  }
}

/**
 * Whether the settler's collection may also compact the old generation. A burst such as a reopen
 * leaves its pages part live, part free, and a full collection alone frees only empty pages (the
 * memory reducer, which compacts, is off: see node-args.ts), so a reopened engine keeps far more
 * old space committed than is live, and only a compacting collection gives it back. Compaction is
 * asked for by turning V8's --compact-on-every-full-gc on for one collection. Node lets V8 flags
 * change after start (it does not freeze them); an embedder that freezes them aborts the process
 * on a write, so in Electron's utility process (Chromium's V8) the settler collects without
 * compacting.
 */
function mayCompact(): boolean {
  return process.versions['electron'] === undefined;
}

/**
 * After a full collection, whether the old generation holds more than 10 % (and 16 MB) of free
 * space in its pages: then a second, compacting collection follows. A burst of new work (topics
 * created) leaves little free space and is not worth the compaction's CPU, which an idle engine
 * pays; a reopen of a big cluster leaves much more. Below 16 MB the compaction costs more idle CPU
 * than the memory it gives back is worth (docs/performance.md).
 */
function fragmented(): boolean {
  const old = getHeapSpaceStatistics().find((s) => s.space_name === 'old_space');
  if (!old) return false;
  const free = old.space_size - old.space_used_size;
  return free > 16 * 1024 * 1024 && free > old.space_used_size * 0.1;
}

type GcFunction = (options: { type: 'major'; execution: 'async' }) => Promise<void> | undefined;

/**
 * Start settling this process's heap; returns a stop function. Without --expose-gc (V8 gives no
 * other way to ask for a collection) it does nothing.
 */
export function startMemorySettler(options: MemorySettlerOptions = {}): () => void {
  const gc = (globalThis as { gc?: GcFunction }).gc;
  if (typeof gc !== 'function') return () => {};
  const settler = new MemorySettler(
    {
      heapUsedBytes: () => getHeapStatistics().used_heap_size,
      cpuMs: () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
      },
      now: () => performance.now(),
      collect: async () => {
        await gc({ type: 'major', execution: 'async' });
        if (!mayCompact() || !fragmented()) return;
        setFlagsFromString('--compact-on-every-full-gc');
        try {
          await gc({ type: 'major', execution: 'async' });
        } finally {
          setFlagsFromString('--no-compact-on-every-full-gc');
        }
      },
    },
    options,
  );
  const timer = setInterval(() => void settler.check(), settler.everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
