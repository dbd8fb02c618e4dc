/**
 * Exhaustive small-scope exploration of the real engine (a stateless model checker): breadth-first
 * over every sequence of moves up to a depth (world.ts says which moves exist), each path replayed
 * from a fresh cluster (the engine cannot be cloned; it is deterministic, so a replay reaches the
 * same state), with the invariants of invariants.ts checked after every move.
 *
 * State hashing: a state whose fingerprint (fingerprint.ts) was already reached is not expanded
 * again. Breadth-first order reaches every state first at its smallest depth, so pruning never
 * hides a state the depth bound would otherwise have reached. Invariant: every path of length
 * <= depth either was checked move by move, or passes through a state equal (by fingerprint) to
 * one that was.
 */
import { fingerprint } from './fingerprint.js';
import { PathChecker } from './invariants.js';
import { World, type ExploreScope } from './world.js';

export interface ExploreOptions extends ExploreScope {
  depth: number;
  /** Stop at the first violation. */
  bail?: boolean;
  /** Give up after this many states (a bound on the run; reported as incomplete). */
  maxStates?: number;
  onProgress?: (depth: number, states: number) => void;
}

export interface Finding {
  /** The moves from the settled cluster to the state where the invariant broke. */
  trace: string[];
  messages: string[];
}

export interface ExploreResult {
  /** Distinct states reached (the settled start included). */
  states: number;
  /** Moves made while exploring (replays not counted). */
  transitions: number;
  /** The deepest level explored completely. */
  depthReached: number;
  complete: boolean;
  violations: Finding[];
  /** Losses Kafka allows (unclean election, power loss of the whole ISR) that were found. */
  excused: Finding[];
}

/** Replay `trace` on a fresh cluster, checking every invariant after each move. */
export function replay(scope: ExploreScope, trace: readonly string[]): { world: World; checker: PathChecker; failedAt: number } {
  const world = new World(scope);
  const checker = new PathChecker(world);
  checker.check();
  for (const [i, move] of trace.entries()) {
    world.apply(move);
    checker.check();
    if (checker.violations.length > 0) return { world, checker, failedAt: i };
  }
  return { world, checker, failedAt: -1 };
}

export function explore(options: ExploreOptions): ExploreResult {
  const seen = new Set<string>();
  const result: ExploreResult = { states: 0, transitions: 0, depthReached: 0, complete: true, violations: [], excused: [] };
  const excusedKinds = new Set<string>();
  const start = replay(options, []);
  seen.add(fingerprint(start.world, start.checker.summary()));
  result.states = 1;
  let frontier: { path: string[]; moves: string[] }[] = [{ path: [], moves: start.world.moves() }];
  for (let depth = 1; depth <= options.depth && frontier.length > 0; depth++) {
    const next: { path: string[]; moves: string[] }[] = [];
    for (const { path, moves } of frontier) {
      for (const move of moves) {
        const trace = [...path, move];
        const { world, checker, failedAt } = replay(options, trace);
        result.transitions++;
        if (failedAt >= 0) {
          result.violations.push({ trace: trace.slice(0, failedAt + 1), messages: [...new Set(checker.violations)] });
          if (options.bail) return { ...result, complete: false };
          continue;
        }
        for (const e of checker.excused) {
          const kind = e.replace(/\d+/g, '#');
          if (!excusedKinds.has(kind)) {
            excusedKinds.add(kind);
            result.excused.push({ trace, messages: [e] });
          }
        }
        const key = fingerprint(world, checker.summary());
        if (seen.has(key)) continue;
        seen.add(key);
        result.states++;
        next.push({ path: trace, moves: world.moves() });
        if (options.maxStates !== undefined && result.states >= options.maxStates) return { ...result, complete: false };
      }
    }
    result.depthReached = depth;
    options.onProgress?.(depth, result.states);
    frontier = next;
  }
  return result;
}
