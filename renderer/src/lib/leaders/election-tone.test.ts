import { describe, expect, it } from 'vitest';
import { evenShare, leaderTone } from './election-tone.js';

describe('the election preview’s colours', () => {
  it('calls a broker that sheds leaders towards an even share better, not worse', () => {
    // 12 leaders over 3 brokers: 4 each. Broker 1 led 8 and goes to 4; broker 3 led 0 and goes to 4.
    const share = evenShare([4, 4, 4]);
    expect(share).toBe(4);
    expect(leaderTone(8, 4, share)).toBe('better');
    expect(leaderTone(0, 4, share)).toBe('better');
    expect(leaderTone(4, 4, share)).toBe('same');
  });

  it('calls a move away from the even share worse, whichever way it goes', () => {
    expect(leaderTone(4, 6, 4)).toBe('worse');
    expect(leaderTone(4, 2, 4)).toBe('worse');
  });
});
