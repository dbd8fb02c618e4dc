/**
 * Time in the core is virtual: a Clock tells the time, a Scheduler runs callbacks at a time.
 * ManualScheduler keeps the queue; tests advance it by hand, and the service layer drives it
 * from real time (with a time scale) so that the same core code runs under both.
 *
 * Invariant: tasks run in (time, insertion order); the clock never moves backwards, and while a
 * task runs `now()` equals its due time.
 */
export interface Clock {
  /** Milliseconds on the engine's clock. */
  now(): number;
}

export interface TimerHandle {
  readonly id: number;
}

export interface Scheduler extends Clock {
  /** Run `fn` after `delayMs` (0 = after the current task, in order). */
  schedule(delayMs: number, fn: () => void): TimerHandle;
  cancel(handle: TimerHandle | undefined | null): void;
}

const NOOP = (): void => {};

/**
 * A scheduled callback; it is also the handle `schedule` returns. Once it has run or been
 * cancelled it lets go of its callback, so a timer that waits in the queue after being cancelled
 * (every acks=all produce and request arms a timeout that is usually cancelled) keeps nothing of
 * the request it guarded alive.
 */
class Task implements TimerHandle {
  state: 'pending' | 'ran' | 'cancelled' = 'pending';
  constructor(
    readonly id: number,
    readonly at: number,
    public fn: () => void,
  ) {}
}

/** A binary-heap priority queue of tasks ordered by (at, id). */
class TaskHeap {
  private readonly items: Task[] = [];
  get size(): number {
    return this.items.length;
  }
  peek(): Task | undefined {
    return this.items[0];
  }
  push(task: Task): void {
    const a = this.items;
    a.push(task);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const t = a[i]!;
      const up = a[parent]!;
      if (!before(t, up)) break;
      a[i] = up;
      a[parent] = t;
      i = parent;
    }
  }
  /** Every task, left in place (in no particular order). */
  times(): readonly Task[] {
    return this.items;
  }
  /** Remove and return every task (in no particular order). */
  drain(): Task[] {
    return this.items.splice(0);
  }
  pop(): Task | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && before(a[l]!, a[m]!)) m = l;
        if (r < a.length && before(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        const t = a[i]!;
        a[i] = a[m]!;
        a[m] = t;
        i = m;
      }
    }
    return top;
  }
}

function before(x: Task, y: Task): boolean {
  return x.at < y.at || (x.at === y.at && x.id < y.id);
}

export class ManualScheduler implements Scheduler {
  private time: number;
  private nextId = 1;
  private readonly heap = new TaskHeap();
  /**
   * Tasks scheduled with no delay, in id order. Each is due at the instant it was scheduled and
   * ids grow with the clock, so the queue is already in (time, id) order: it takes the message
   * deliveries of a network without latency without going through the heap, and the next task is
   * whichever of its head and the heap's top comes first — the same order a single heap gives.
   */
  private readonly immediate: (Task | undefined)[] = [];
  private immediateHead = 0;
  /** Cancelled tasks still in the heap or the queue. */
  private cancelled = 0;
  private executed = 0;
  /** Tasks allowed at one instant before advanceTo reports a livelock. */
  livelockLimit = 1_000_000;

  constructor(startMs = 0) {
    this.time = startMs;
  }

  now(): number {
    return this.time;
  }

  /** Tasks in the queue, including cancelled ones not yet dropped. */
  pendingCount(): number {
    return this.heap.size + this.immediate.length - this.immediateHead;
  }

  /** Due times of the live tasks, in no particular order (a model checker's view of the timers). */
  dueTimes(): number[] {
    const queued = this.immediate.slice(this.immediateHead) as Task[];
    return [...this.heap.times(), ...queued].filter((t) => t.state === 'pending').map((t) => t.at);
  }

  /** Number of tasks run so far; useful to bound loops in tests. */
  get tasksRun(): number {
    return this.executed;
  }

  schedule(delayMs: number, fn: () => void): TimerHandle {
    const id = this.nextId++;
    const delay = Number.isFinite(delayMs) && delayMs > 0 ? delayMs : 0;
    const task = new Task(id, this.time + delay, fn);
    if (delay === 0) this.immediate.push(task);
    else this.heap.push(task);
    return task;
  }

  cancel(handle: TimerHandle | undefined | null): void {
    if (!(handle instanceof Task) || handle.state !== 'pending') return;
    handle.state = 'cancelled';
    handle.fn = NOOP;
    this.cancelled++;
    // Cancelled timers stay in the heap until they fall due; drop them when they pile up (every
    // acks=all produce and request arms a timeout that is usually cancelled).
    if (this.cancelled > 4096 && this.cancelled * 2 > this.pendingCount()) this.compact();
  }

  private compact(): void {
    const live = this.heap.drain().filter((t) => t.state === 'pending');
    const queued = (this.immediate.splice(0).slice(this.immediateHead) as Task[]).filter((t) => t.state === 'pending');
    this.immediateHead = 0;
    this.cancelled = 0;
    for (const t of live) this.heap.push(t);
    this.immediate.push(...queued);
  }

  /** The earliest live task (cancelled ones at the front are dropped), left in place; undefined when none. */
  private peek(): Task | undefined {
    for (;;) {
      const top = this.heap.peek();
      const queued = this.immediate[this.immediateHead];
      const fromQueue = queued !== undefined && (top === undefined || before(queued, top));
      const next = fromQueue ? queued : top;
      if (!next) return undefined;
      if (next.state === 'pending') return next;
      this.take(fromQueue);
      this.cancelled--;
    }
  }

  /** Remove the task at the front of the queue or the heap. */
  private take(fromQueue: boolean): void {
    if (!fromQueue) {
      this.heap.pop();
      return;
    }
    this.immediate[this.immediateHead++] = undefined;
    if (this.immediateHead === this.immediate.length) {
      this.immediate.length = 0;
      this.immediateHead = 0;
    } else if (this.immediateHead >= 1024 && this.immediateHead * 2 >= this.immediate.length) {
      this.immediate.splice(0, this.immediateHead);
      this.immediateHead = 0;
    }
  }

  /** Due time of the next live task, or undefined when the queue is empty. */
  nextDueTime(): number | undefined {
    return this.peek()?.at;
  }

  /**
   * Run every task due at or before `targetMs`, then set the clock to `targetMs`. Throws when
   * `livelockLimit` tasks run without the clock moving: a loop that never waits is a bug.
   * Returns false when `shouldPause` stopped it early (the clock is then at the last task run).
   */
  advanceTo(targetMs: number, shouldPause?: () => boolean): boolean {
    let sameInstant = 0;
    for (;;) {
      const task = this.peek();
      if (task === undefined || task.at > targetMs) break;
      // A host may pause a long step between two tasks (to answer requests); the clock then
      // stays at the last task run and the next call continues from there.
      if (shouldPause?.()) return false;
      this.take(this.immediate[this.immediateHead] === task);
      if (task.at > this.time) sameInstant = 0;
      else if (++sameInstant > this.livelockLimit) throw new Error(`livelock: ${this.livelockLimit} tasks ran at t=${this.time} ms without time moving`);
      this.time = Math.max(this.time, task.at);
      this.executed++;
      const fn = task.fn;
      task.state = 'ran';
      task.fn = NOOP;
      fn();
    }
    if (targetMs > this.time) this.time = targetMs;
    return true;
  }

  /** Advance the clock by `ms`, running everything that falls due. */
  advance(ms: number): void {
    this.advanceTo(this.time + ms);
  }

  /** Run only the tasks due now (including ones they schedule with delay 0). */
  flush(): void {
    this.advanceTo(this.time);
  }

  /**
   * Run tasks one due time at a time until `predicate` holds or `maxMs` elapses (the predicate is
   * checked after every instant at which something ran, and at least every `maxStepMs`). Returns
   * the elapsed virtual time when it held, or -1.
   */
  runUntil(predicate: () => boolean, maxMs: number, maxStepMs = Number.POSITIVE_INFINITY): number {
    const start = this.time;
    const deadline = start + maxMs;
    this.flush();
    while (!predicate()) {
      if (this.time >= deadline) return -1;
      const due = this.nextDueTime();
      this.advanceTo(Math.min(due ?? deadline, deadline, this.time + maxStepMs));
    }
    return this.time - start;
  }
}
