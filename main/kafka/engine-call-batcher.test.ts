import { describe, expect, it } from 'vitest';
import { EngineCallBatcher } from './engine-call-batcher.js';
import type { EngineClock } from './engine-clock.js';

/** A clock that logs what it is asked to do, and a hand-run "end of the turn". */
function harness(options: { failCommit?: boolean } = {}) {
  const log: string[] = [];
  const clock: EngineClock = {
    sync: () => log.push('sync'),
    wake: () => log.push('wake'),
    step: (fn) => {
      log.push('step begins');
      fn();
      if (options.failCommit) throw new Error('SQLITE_FULL on commit');
      log.push('step commits');
    },
  };
  const deferred: (() => void)[] = [];
  const batcher = new EngineCallBatcher(clock, (fn) => deferred.push(fn));
  const endOfTurn = (): void => {
    for (const fn of deferred.splice(0)) fn();
  };
  return { log, batcher, endOfTurn, deferred };
}

describe('engine calls of the Kafka listeners (main/kafka/engine-call-batcher.ts)', () => {
  it('runs every request submitted in one turn of the event loop in one step, in order, after the clock caught up', () => {
    const { log, batcher, endOfTurn, deferred } = harness();
    for (const name of ['produce from client 1', 'produce from client 2', 'metadata from client 3']) {
      batcher.submit({ start: () => log.push(name), fail: () => log.push(`${name} failed`) });
    }
    expect(log).toEqual([]); // nothing runs before the turn ends
    expect(deferred).toHaveLength(1); // one step armed, however many requests
    endOfTurn();
    expect(log).toEqual(['step begins', 'sync', 'produce from client 1', 'produce from client 2', 'metadata from client 3', 'sync', 'step commits', 'wake']);
  });

  it('runs a request submitted after the step in a step of its own', () => {
    const { log, batcher, endOfTurn } = harness();
    batcher.submit({ start: () => log.push('first'), fail: () => {} });
    endOfTurn();
    log.length = 0;
    batcher.submit({ start: () => log.push('second'), fail: () => {} });
    endOfTurn();
    expect(log).toEqual(['step begins', 'sync', 'second', 'sync', 'step commits', 'wake']);
  });

  it('fails only the request whose start throws; the others of its step run and commit', () => {
    const { log, batcher, endOfTurn } = harness();
    const failed: unknown[] = [];
    batcher.submit({ start: () => log.push('a'), fail: (e) => failed.push(e) });
    batcher.submit({
      start: () => {
        throw new Error('a handler bug');
      },
      fail: (e) => failed.push((e as Error).message),
    });
    batcher.submit({ start: () => log.push('c'), fail: (e) => failed.push(e) });
    endOfTurn();
    expect(failed).toEqual(['a handler bug']);
    expect(log).toEqual(['step begins', 'sync', 'a', 'c', 'sync', 'step commits', 'wake']);
  });

  it('fails every request of a step whose commit fails, without throwing, and keeps serving', () => {
    const { log, batcher, endOfTurn } = harness({ failCommit: true });
    const failed: string[] = [];
    batcher.submit({ start: () => {}, fail: (e) => failed.push(`1: ${(e as Error).message}`) });
    batcher.submit({ start: () => {}, fail: (e) => failed.push(`2: ${(e as Error).message}`) });
    expect(() => endOfTurn()).not.toThrow();
    expect(failed).toEqual(['1: SQLITE_FULL on commit', '2: SQLITE_FULL on commit']);
    expect(log.at(-1)).toBe('wake');
    batcher.submit({ start: () => log.push('later'), fail: () => {} });
    endOfTurn();
    expect(log).toContain('later');
  });
});
