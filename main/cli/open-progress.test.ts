import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EngineService } from '../../app/api/service.js';
import { reportLoading, reportOpening } from './open-progress.js';

/** An engine whose brokers run one more at each look. */
function openingEngine(total: number): EngineService {
  let looks = 0;
  const service = {
    call: (method: string) => {
      if (method !== 'brokers.list') throw new Error(`unexpected ${method}`);
      looks++;
      const brokers = Array.from({ length: total }, (_, i) => ({ id: i + 1, rack: null, state: i < looks ? 'running' : 'starting', partitionCount: 0, leaderCount: 0 }));
      return Promise.resolve({ ok: true, value: brokers });
    },
    subscribe: () => () => {},
  };
  return service as unknown as EngineService;
}

describe('the host while a cluster opens', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('says how many brokers run every interval until all do, then stops', async () => {
    const lines: string[] = [];
    const reporter = reportOpening(openingEngine(3), '/data/big', (l) => lines.push(l), 2_000);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(lines).toEqual([]); // a cluster that opens within the first interval prints nothing
    await vi.advanceTimersByTimeAsync(10_000);
    expect(lines).toEqual(['opening /data/big: 1 of 3 brokers running after 2 s', 'opening /data/big: 2 of 3 brokers running after 4 s']);
    reporter.stop();
  });

  it('prints nothing more once stopped', async () => {
    const lines: string[] = [];
    const reporter = reportOpening(openingEngine(5), '/d', (l) => lines.push(l), 1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    reporter.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(lines).toHaveLength(1);
  });

  it('says the engine is busy when it cannot answer for a while, instead of waiting silently', async () => {
    let answer: (() => void) | undefined;
    const busy = {
      call: () =>
        new Promise((resolve) => {
          answer = () => resolve({ ok: true, value: [{ id: 1, rack: null, state: 'starting', partitionCount: 0, leaderCount: 0 }] });
        }),
      subscribe: () => () => {},
    } as unknown as EngineService;
    const lines: string[] = [];
    const reporter = reportOpening(busy, '/d', (l) => lines.push(l), 2_000);
    await vi.advanceTimersByTimeAsync(30_000);
    // Asked at 2 s, no answer since: a line at least every 10 s.
    expect(lines).toEqual([
      'opening /d: still opening after 10 s (the engine is busy starting brokers)',
      'opening /d: still opening after 20 s (the engine is busy starting brokers)',
      'opening /d: still opening after 30 s (the engine is busy starting brokers)',
    ]);
    answer!();
    await vi.advanceTimersByTimeAsync(0);
    expect(lines[3]).toBe('opening /d: 0 of 1 brokers running after 30 s');
    reporter.stop();
  });

  it('says it is loading while the engine opens the data directory, until stopped', async () => {
    const lines: string[] = [];
    const reporter = reportLoading('/d', (l) => lines.push(l), 5_000);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(lines).toEqual([]);
    await vi.advanceTimersByTimeAsync(5_001);
    expect(lines).toEqual(['opening /d: loading its metadata and logs (5 s)', 'opening /d: loading its metadata and logs (10 s)']);
    reporter.stop();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(lines).toHaveLength(2);
  });
});
