import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MetadataImage } from '../metadata/image.js';
import type { MetadataRecord, PartitionState } from '../metadata/records.js';
import { BrokersToIsrs } from './brokers-to-isrs.js';

const BROKERS = [1, 2, 3, 4, 5];

/** What the index must say, recomputed by a walk of every partition of the image. */
function walk(image: MetadataImage, brokerId: number): { isr: string[]; elr: string[]; leaders: number; replicas: number } {
  const out = { isr: [] as string[], elr: [] as string[], leaders: 0, replicas: 0 };
  for (const { state } of image.allPartitions()) {
    if (state.isr.includes(brokerId)) out.isr.push(`${state.topicId}:${state.partition}`);
    if ((state.elr ?? []).includes(brokerId)) out.elr.push(`${state.topicId}:${state.partition}`);
    if (state.leader === brokerId) out.leaders++;
    if (state.replicas.includes(brokerId)) out.replicas++;
  }
  return out;
}

function indexed(index: BrokersToIsrs, brokerId: number): { isr: string[]; elr: string[]; leaders: number; replicas: number } {
  const keys = (refs: Iterable<{ state: PartitionState }>): string[] => [...refs].map(({ state: s }) => `${s.topicId}:${s.partition}`);
  return { isr: keys(index.isrOf(brokerId)), elr: keys(index.elrOf(brokerId)), leaders: index.leaderCount(brokerId), replicas: index.replicaCount(brokerId) };
}

const sorted = (v: ReturnType<typeof walk>): ReturnType<typeof walk> => ({ ...v, isr: [...v.isr].sort(), elr: [...v.elr].sort() });

/** One step of a random history: a topic created, a partition (re)written, a topic removed. */
const stepArb = fc.oneof(
  fc.record({ kind: fc.constant('topic' as const), topic: fc.integer({ min: 0, max: 3 }) }),
  fc.record({
    kind: fc.constant('partition' as const),
    topic: fc.integer({ min: 0, max: 3 }),
    partition: fc.integer({ min: 0, max: 4 }),
    replicas: fc.shuffledSubarray(BROKERS, { minLength: 1, maxLength: 3 }),
    isrMask: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
    elrMask: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
    leaderAt: fc.integer({ min: -1, max: 2 }),
    frozen: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('remove' as const), topic: fc.integer({ min: 0, max: 3 }) }),
);

describe('BrokersToIsrs', () => {
  it('holds, for every broker, exactly the partitions whose ISR and ELR hold it and the counts it leads and hosts, under random histories', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 80 }), fc.integer({ min: 0, max: 80 }), (steps, rebuildAt) => {
        const image = new MetadataImage();
        let index = new BrokersToIsrs();
        let offset = 0;
        let epoch = 0;
        steps.forEach((step, i) => {
          const topicId = `t${step.topic}`;
          let record: MetadataRecord;
          if (step.kind === 'topic') record = { type: 'Topic', name: `topic-${step.topic}`, topicId };
          else if (step.kind === 'remove') record = { type: 'RemoveTopic', topicId };
          else {
            const isr = step.replicas.filter((_, k) => step.isrMask[k]);
            const elr = step.replicas.filter((b, k) => step.elrMask[k] && !isr.includes(b));
            const leader = step.leaderAt >= 0 && step.leaderAt < isr.length ? isr[step.leaderAt]! : -1;
            const state: PartitionState = {
              topicId,
              partition: step.partition,
              replicas: step.replicas,
              isr,
              leader,
              leaderEpoch: ++epoch,
              partitionEpoch: epoch,
              addingReplicas: [],
              removingReplicas: [],
              leaderRecoveryState: 'RECOVERED',
              ...(elr.length ? { elr } : {}),
            };
            if (step.frozen) Object.freeze(state);
            record = i % 2 ? { type: 'Partition', state } : { type: 'PartitionChange', state, reason: 'isr-shrink' };
          }
          image.apply({ offset: ++offset, timestampMs: 0, record });
          index.note(image, record);
          // A reopen: the index is rebuilt from the image, then follows the records after it.
          if (i === rebuildAt) {
            index = new BrokersToIsrs();
            index.rebuild(image);
          }
        });
        for (const b of BROKERS) {
          expect(sorted(indexed(index, b))).toEqual(sorted(walk(image, b)));
          // Each entry carries the image's current state of its partition.
          for (const ref of [...index.isrOf(b), ...index.elrOf(b)]) expect(image.partition(ref.state.topicId, ref.state.partition)).toBe(ref.state);
        }
      }),
      { numRuns: 300 },
    );
  });
});
