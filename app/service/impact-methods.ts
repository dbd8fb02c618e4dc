/**
 * `impact.ofStop` on either driver: the driver reads its cluster (the engine's image, or a fresh
 * snapshot of an external cluster) and its groups; the prediction is app/core/impact's, made by
 * the controller's own change code, so a local and a real cluster in the same state answer the same.
 */
import type { MethodParsedInput } from '../api/contract.js';
import type { StopImpactView } from '../api/impact-contract.js';
import { stopImpact, type ElectionConfig } from '../core/impact/stop-impact.js';
import type { ClusterMetadata, TopicImage } from '../core/metadata/image.js';

/** What a driver reads for one impact question. */
export interface ImpactSource {
  image: ClusterMetadata;
  topicConfig(topic: TopicImage): ElectionConfig;
  elrUnavailable?: string;
}

export function impactMethods(read: () => ImpactSource | Promise<ImpactSource>, groupIds: () => Promise<string[]>) {
  return {
    'impact.ofStop': async (input: MethodParsedInput<'impact.ofStop'>): Promise<StopImpactView> => {
      const source = await read();
      // A cluster whose groups cannot be listed still answers for its partitions.
      let groups: string[] = [];
      let groupsNote: string | undefined;
      try {
        groups = await groupIds();
      } catch (e) {
        groupsNote = `The consumer groups could not be listed: ${e instanceof Error ? e.message : String(e)}`;
      }
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
