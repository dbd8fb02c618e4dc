/**
 * `impact.ofStop` and `impact.ofPlan` on either driver: the driver reads its cluster (the engine's image, or a fresh
 * snapshot of an external cluster) and its groups; the prediction is app/core/impact's, made by
 * the controller's own change code, so a local and a real cluster in the same state answer the same.
 */
import type { MethodParsedInput } from '../api/contract.js';
import type { PlanImpactView, StopImpactView } from '../api/impact-contract.js';
import { planImpact } from '../core/impact/plan-impact.js';
import { stopImpact, type ElectionConfig } from '../core/impact/stop-impact.js';
import type { ClusterMetadata, TopicImage } from '../core/metadata/image.js';

/** What a driver reads for one impact question. */
export interface ImpactSource {
  image: ClusterMetadata;
  topicConfig(topic: TopicImage): ElectionConfig;
  elrUnavailable?: string;
  /** The leader's log size of each partition (read only for a plan: bytes its new replicas copy). */
  sizes(): Promise<(topic: string, partition: number) => number> | ((topic: string, partition: number) => number);
}

/**
 * The groups whose coordinators to follow, or the note why there are none. Without
 * `__consumer_offsets` no group has a coordinator (stopImpact says so): the brokers are not asked.
 */
async function groupsOf(image: ClusterMetadata, groupIds: () => Promise<string[]>): Promise<{ groups: string[]; groupsNote?: string }> {
  if (!image.topicsByName.has(OFFSETS_TOPIC)) return { groups: [] };
  try {
    return { groups: await groupIds() };
  } catch (e) {
    return { groups: [], groupsNote: `The consumer groups could not be listed: ${e instanceof Error ? e.message : String(e)}` };
  }
}

const OFFSETS_TOPIC = '__consumer_offsets';

export function impactMethods(read: () => ImpactSource | Promise<ImpactSource>, groupIds: () => Promise<string[]>) {
  return {
    'impact.ofPlan': async (input: MethodParsedInput<'impact.ofPlan'>): Promise<PlanImpactView> => {
      const source = await read();
      const wantsStop = (input.brokers?.length ?? 0) + (input.racks?.length ?? 0) > 0;
      const { groups } = wantsStop ? await groupsOf(source.image, groupIds) : { groups: [] };
      return planImpact({
        image: source.image,
        topicConfig: source.topicConfig,
        sizeBytes: await source.sizes(),
        targets: input.partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: p.replicas })),
        groups,
        ...(input.throttleBytesPerSec !== undefined ? { throttleBytesPerSec: input.throttleBytesPerSec } : {}),
        ...(input.brokers ? { brokers: input.brokers } : {}),
        ...(input.racks ? { racks: input.racks } : {}),
        ...(input.limit !== undefined ? { limit: input.limit } : {}),
        ...(source.elrUnavailable !== undefined ? { elrUnavailable: source.elrUnavailable } : {}),
      });
    },
    'impact.ofStop': async (input: MethodParsedInput<'impact.ofStop'>): Promise<StopImpactView> => {
      const source = await read();
      // A cluster whose groups cannot be listed still answers for its partitions.
      const { groups, groupsNote } = await groupsOf(source.image, groupIds);
      const view = stopImpact({
        image: source.image,
        topicConfig: source.topicConfig,
        groups,
        ...(input.brokers ? { brokers: input.brokers } : {}),
        ...(input.racks ? { racks: input.racks } : {}),
        ...(input.limit !== undefined ? { limit: input.limit } : {}),
        ...(source.elrUnavailable !== undefined ? { elrUnavailable: source.elrUnavailable } : {}),
      });
      return groupsNote !== undefined && view.coordinators.length === 0 ? { ...view, coordinatorsNote: groupsNote } : view;
    },
  };
}
