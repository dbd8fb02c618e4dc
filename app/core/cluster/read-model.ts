/**
 * The engine's read model: partitions as the controller records them with every replica's log
 * state, brokers with what they host, and the sizes the balancer weighs.
 *
 * A replica's state comes from its broker while that broker serves it, and from the broker's disk
 * otherwise (the console still shows what a stopped broker holds); -1 marks a disk that cannot be
 * read. Counts are taken from the controller's committed image, the cluster's source of truth.
 */
import { KafkaError } from '../../api/errors.js';
import { replicaKey } from '../log/log-store.js';
import type { ClusterContext } from './context.js';
import type { BrokerInfo, BrokerMember, PartitionDescription, ReplicaCompaction, ReplicaLogState } from './types.js';

export class ReadModel {
  constructor(private readonly ctx: ClusterContext) {}

  /** A partition as the controller records it, with every replica's log state. */
  describePartition(topic: string, partition: number): PartitionDescription | undefined {
    const t = this.ctx.controller.image.topicsByName.get(topic);
    const state = t?.partitions.get(partition);
    if (!t || !state) return undefined;
    const key = replicaKey(t.topicId, partition);
    const replicaStates = state.replicas.map((id) => this.replicaState(id, key));
    const leaderState = replicaStates.find((r) => r.brokerId === state.leader);
    return {
      ...state,
      replicas: [...state.replicas],
      isr: [...state.isr],
      highWatermark: leaderState?.highWatermark ?? Math.max(0, ...replicaStates.map((r) => r.highWatermark)),
      logStartOffset: leaderState?.logStartOffset ?? 0,
      replicaStates,
    };
  }

  private replicaState(brokerId: number, key: string): ReplicaLogState {
    const live = this.ctx.brokers.get(brokerId)?.partitionByKey(key);
    if (live) {
      const l = live.log;
      return { brokerId, logEndOffset: l.logEndOffset, highWatermark: l.highWatermark, logStartOffset: l.logStartOffset, flushedOffset: l.flushedOffset };
    }
    // Not served right now: read what its disk holds (-1 when the disk cannot be read).
    try {
      const disk = this.ctx.opts.storage.broker(brokerId);
      if (!disk.hasReplica(key)) return { brokerId, logEndOffset: 0, highWatermark: 0, logStartOffset: 0, flushedOffset: 0 };
      const store = disk.replica(key);
      const cp = store.loadCheckpoint();
      return { brokerId, logEndOffset: store.endOffset(), highWatermark: cp.highWatermark, logStartOffset: cp.logStartOffset, flushedOffset: cp.flushedOffset };
    } catch (e) {
      if (e instanceof KafkaError && e.code === 'KAFKA_STORAGE_ERROR') return { brokerId, logEndOffset: -1, highWatermark: -1, logStartOffset: -1, flushedOffset: -1 };
      throw e;
    }
  }

  /**
   * The log cleaner's state of every replica of a compacted partition that its broker serves now
   * (each replica compacts its own log); undefined for a partition that does not exist.
   */
  describeCompaction(topic: string, partition: number): ReplicaCompaction[] | undefined {
    const t = this.ctx.controller.image.topicsByName.get(topic);
    const state = t?.partitions.get(partition);
    if (!t || !state) return undefined;
    const key = replicaKey(t.topicId, partition);
    const out: ReplicaCompaction[] = [];
    for (const id of state.replicas) {
      const status = this.ctx.brokers.get(id)?.compactionStatus(key);
      if (status) out.push({ brokerId: id, leader: id === state.leader, ...status });
    }
    return out;
  }

  /** Bytes of a partition's log: its leader's, or any replica's its broker serves now (0 if none). */
  partitionSizeBytes(topic: string, partition: number): number {
    const state = this.ctx.controller.image.topicsByName.get(topic)?.partitions.get(partition);
    for (const id of state ? [state.leader, ...state.replicas] : []) {
      const p = this.ctx.brokers.get(id)?.partitionFor(topic, partition);
      if (p) return p.log.sizeBytes();
    }
    return 0;
  }

  /** Bytes of broker `brokerId`'s replica of a partition; undefined when it holds none (DescribeLogDirs). */
  replicaSizeBytes(brokerId: number, topic: string, partition: number): number | undefined {
    return this.ctx.brokers.get(brokerId)?.partitionFor(topic, partition)?.log.sizeBytes();
  }

  /** Member brokers by id, with their racks. */
  members(): BrokerMember[] {
    return [...this.ctx.brokers.values()].sort((a, b) => a.brokerId - b.brokerId).map((b) => ({ id: b.brokerId, rack: b.rack }));
  }

  listBrokers(): BrokerInfo[] {
    const ctx = this.ctx;
    const image = ctx.controller.image;
    // Kept by the controller's per-broker index as records apply: no pass over the partitions.
    const counts = ctx.controller.brokersToIsrs;
    return [...ctx.brokers.values()]
      .sort((a, b) => a.brokerId - b.brokerId)
      .map((b) => ({
        id: b.brokerId,
        rack: b.rack,
        state: ctx.brokerState(b.brokerId),
        isolated: ctx.network.isIsolated(b.brokerId),
        fetcherStalled: b.fetcherStalled,
        isController: ctx.controller.hostBrokerId === b.brokerId,
        brokerEpoch: image.brokers.get(b.brokerId)?.brokerEpoch ?? -1,
        partitionCount: counts.replicaCount(b.brokerId),
        leaderCount: counts.leaderCount(b.brokerId),
        logBytes: b.logBytes(),
        listener: ctx.kafkaListeners.get(b.brokerId),
      }));
  }
}
