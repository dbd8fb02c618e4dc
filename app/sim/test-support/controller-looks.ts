/**
 * For the scope tests (fence-scope, unfence-scope): while `isInside()` holds, which partitions the
 * controller checks for a change (`topic-partition`, once per check) and how often it walks every
 * partition of its image. Spies on Controller.prototype.ctx and MetadataImage.allPartitions; the
 * test restores them (vi.restoreAllMocks).
 */
import { vi } from 'vitest';
import { Controller } from '../../core/controller/controller.js';
import { MetadataImage, type TopicImage } from '../../core/metadata/image.js';
import type { PartitionState } from '../../core/metadata/records.js';

export function watchControllerLooks(isInside: () => boolean): { looked: string[]; walks: number } {
  const proto = Controller.prototype as unknown as { ctx(topic: TopicImage, state: PartitionState, ...rest: unknown[]): unknown };
  const seen = { looked: [] as string[], walks: 0 };
  const ctx = proto.ctx;
  const allPartitions = MetadataImage.prototype.allPartitions;
  vi.spyOn(proto, 'ctx').mockImplementation(function (this: unknown, topic: TopicImage, state: PartitionState, ...rest: unknown[]) {
    if (isInside()) seen.looked.push(`${topic.name}-${state.partition}`);
    return ctx.call(this, topic, state, ...rest);
  });
  vi.spyOn(MetadataImage.prototype, 'allPartitions').mockImplementation(function (this: MetadataImage) {
    if (isInside()) seen.walks++;
    return allPartitions.call(this);
  });
  return seen;
}
