/**
 * `topics.compaction` on the embedded cluster: the topic's resolved compaction settings and, for
 * each partition, every replica its broker serves now as that broker's log cleaner sees it
 * (`Engine.describeCompaction`: each replica compacts its own log).
 */
import type { TopicCompactionView } from '../../api/compaction-contract.js';
import type { MethodParsedInput } from '../../api/contract.js';
import type { Engine } from '../../core/engine.js';
import { resolveTopicRuntimeConfig } from '../../core/runtime-config.js';
import { topicConfigList } from '../../core/configs/resolve.js';
import { requireTopic } from '../cluster-views.js';

export function compactionMethods(engine: Engine) {
  return {
    'topics.compaction': ({ name }: MethodParsedInput<'topics.compaction'>): TopicCompactionView => {
      const topic = requireTopic(engine, name);
      const clusterDefaults = engine.metadata.clusterConfigs();
      const cfg = resolveTopicRuntimeConfig(topic.configs, clusterDefaults, engine.staticConfigs);
      const partitions = [...topic.partitions.keys()].sort((a, b) => a - b);
      return {
        topic: name,
        cleanupPolicy: topicConfigList('cleanup.policy', topic.configs, clusterDefaults, engine.staticConfigs),
        compacted: cfg.cleanupPolicyCompact,
        settings: {
          minCleanableDirtyRatio: cfg.minCleanableDirtyRatio,
          minCompactionLagMs: cfg.minCompactionLagMs,
          maxCompactionLagMs: Number.isFinite(cfg.maxCompactionLagMs) ? cfg.maxCompactionLagMs : null,
          deleteRetentionMs: cfg.deleteRetentionMs,
          segmentMs: cfg.segmentMs,
          segmentBytes: cfg.segmentBytes,
        },
        partitions: partitions.map((partition) => ({
          partition,
          replicas: (engine.describeCompaction(name, partition) ?? []).map((r) => ({
            brokerId: r.brokerId,
            leader: r.leader,
            cleanerCheckpoint: r.cleanerCheckpoint,
            logStartOffset: r.logStartOffset,
            logEndOffset: r.logEndOffset,
            highWatermark: r.highWatermark,
            firstDirtyOffset: r.firstDirtyOffset,
            firstUncleanableOffset: r.firstUncleanableOffset,
            cleanBytes: r.cleanBytes,
            cleanableBytes: r.cleanableBytes,
            dirtyRatio: r.dirtyRatio,
            minCleanableDirtyRatio: r.minCleanableDirtyRatio,
            needCompactionNow: r.needCompactionNow,
            compactionDelayMs: r.compactionDelayMs,
            state: r.state,
            reason: r.reason,
            uncleanableReason: r.uncleanableReason,
            phase: r.phase,
            lastClean: r.lastClean && {
              startedAtMs: r.lastClean.startedAtMs,
              finishedAtMs: r.lastClean.finishedAtMs,
              firstDirtyOffset: r.lastClean.firstDirtyOffset,
              endOffset: r.lastClean.endOffset,
              cleanableRatio: r.lastClean.cleanableRatio,
              bytesRead: r.lastClean.stats.bytesRead,
              bytesWritten: r.lastClean.stats.bytesWritten,
              recordsRead: r.lastClean.stats.recordsRead,
              recordsWritten: r.lastClean.stats.recordsWritten,
              invalidRecords: r.lastClean.stats.invalidRecords,
              tombstonesRemoved: r.lastClean.stats.tombstonesRemoved,
              tombstonesKept: r.lastClean.stats.tombstonesKept,
              earliestDeleteHorizonMs: r.lastClean.stats.earliestDeleteHorizonMs,
            },
            segments: r.segments.map((s) => ({ ...s })),
          })),
        })),
      };
    },
  };
}
