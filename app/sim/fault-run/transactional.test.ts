import { describe, expect, it } from 'vitest';
import { runFaultSeed } from './run.js';

const SEEDS = 8;

describe('the fault run with transactional producers', () => {
  it(`after healing, read_committed sees every committed transaction's records once, no aborted one's, and each unknown one whole or not at all (${SEEDS} seeds)`, () => {
    const failures: string[] = [];
    let committed = 0;
    let aborted = 0;
    let coordinatorMoves = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = runFaultSeed(seed, {
        transactional: true,
        inspect: (sim) =>
          sim.engine.subscribe((e) => {
            if (e.type === 'transaction.stateChanged' && e.transactionalId.startsWith('xt-tx-')) {
              if (e.state === 'CompleteCommit') committed++;
              if (e.state === 'CompleteAbort') aborted++;
            }
            if (e.type === 'txnCoordinator.loaded' && e.transactionalIds.some((id) => id.startsWith('xt-tx-'))) coordinatorMoves++;
          }),
      });
      if (!r.ok) failures.push([`seed ${seed} failed`, ...r.violations, 'schedule:', ...r.schedule].join('\n  '));
    }
    expect(failures).toEqual([]);
    // Transactions ran through the faults: committed and aborted ones, and coordinators that moved mid-run.
    expect(committed).toBeGreaterThan(SEEDS * 20);
    expect(aborted).toBeGreaterThan(SEEDS * 5);
    expect(coordinatorMoves).toBeGreaterThan(0);
  }, 600_000);
});
