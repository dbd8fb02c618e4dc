import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../app/api/contract.js';
import { EventBatcher } from './event-batcher.js';

const leaderChanged = (partition: number): EngineEvent => ({
  type: 'leader.changed',
  atMs: 1,
  topic: 'orders',
  partition,
  leader: 2,
  previousLeader: 1,
  leaderEpoch: 1,
  reason: 'controlled-shutdown',
  unclean: false,
});

function bed(maxPerMessage?: number) {
  const messages: EngineEvent[][] = [];
  const turnEnds: (() => void)[] = [];
  const batcher = new EventBatcher({ send: (events) => messages.push(events), defer: (fn) => turnEnds.push(fn), ...(maxPerMessage ? { maxPerMessage } : {}) });
  const endTurn = (): void => {
    for (const fn of turnEnds.splice(0)) fn();
  };
  return { messages, batcher, endTurn };
}

describe('EventBatcher (engine events over the process channel)', () => {
  it('sends the events of one turn together once the turn is over, in order, in bounded messages', () => {
    const { messages, batcher, endTurn } = bed(2_000);
    for (let p = 0; p < 4_500; p++) batcher.push(leaderChanged(p));
    expect(messages).toEqual([]);
    endTurn();
    expect(messages.map((m) => m.length)).toEqual([2_000, 2_000, 500]);
    expect(messages.flat().map((e) => (e.type === 'leader.changed' ? e.partition : -1))).toEqual(Array.from({ length: 4_500 }, (_, p) => p));
  });

  it('lets an answer flush what happened before it, so no answer overtakes an event', () => {
    const { messages, batcher, endTurn } = bed();
    const sent: string[] = [];
    batcher.push(leaderChanged(0));
    batcher.flush();
    sent.push(`events ${messages.length}`, 'answer');
    batcher.push(leaderChanged(1));
    endTurn();
    expect(sent).toEqual(['events 1', 'answer']);
    expect(messages.map((m) => m.map((e) => (e.type === 'leader.changed' ? e.partition : -1)))).toEqual([[0], [1]]);
  });

  it('sends nothing for a turn without events', () => {
    const { messages, batcher, endTurn } = bed();
    batcher.flush();
    endTurn();
    expect(messages).toEqual([]);
  });
});
