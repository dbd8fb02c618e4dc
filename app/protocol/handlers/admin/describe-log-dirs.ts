/**
 * DescribeLogDirs (35): this broker's log directory and every replica it holds, with its size
 * and its lag (Kafka's ReplicaManager.getLogEndOffsetLag: for a current log, how far its log end
 * offset is below its own high watermark, never negative). One directory per broker, named as
 * its storage is: `broker-<id>` inside the cluster's data directory.
 *
 *   DescribeLogDirs  => [topic [partitions]] | null (every replica)      (v2+: flexible)
 *   Resp             => throttle error_code(v3+) [error_code log_dir [name [partition size
 *                       offset_lag is_future]] total_bytes(v4+) usable_bytes(v4+)]
 *
 * Total and usable bytes are the file system's under the data directory (every broker's file is
 * in it, so brokers of one cluster report the same disk).
 */
import type { ApiHandler } from '../../api-handler.js';
import { ApiKey } from '../../generated/index.js';
import { ADVERTISED_VERSIONS } from '../api-versions.js';
import { type AdminGateway, run } from './gateway.js';

export function describeLogDirsHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.DescribeLogDirs> {
  return {
    apiKey: ApiKey.DescribeLogDirs,
    advertised: ADVERTISED_VERSIONS[ApiKey.DescribeLogDirs]!,
    async handle(request) {
      const asked = request.topics === null ? null : new Map(request.topics.map((t) => [t.topic, new Set(t.partitions)]));
      const topics = await run(gateway, () => {
        const { engine, brokerId } = gateway;
        const out: { name: string; partitions: { partitionIndex: number; partitionSize: bigint; offsetLag: bigint; isFutureKey: boolean }[] }[] = [];
        for (const topic of [...engine.metadata.topicsByName.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
          const want = asked?.get(topic.name);
          if (asked && !want) continue;
          const partitions = [];
          for (const p of [...topic.partitions.keys()].sort((a, b) => a - b)) {
            if (want && !want.has(p)) continue;
            const size = engine.replicaSizeBytes(brokerId, topic.name, p);
            if (size === undefined) continue;
            const state = engine.describePartition(topic.name, p)?.replicaStates.find((r) => r.brokerId === brokerId);
            const lag = state ? Math.max(state.highWatermark - state.logEndOffset, 0) : 0;
            partitions.push({ partitionIndex: p, partitionSize: BigInt(size), offsetLag: BigInt(lag), isFutureKey: false });
          }
          if (partitions.length > 0) out.push({ name: topic.name, partitions });
        }
        return out;
      });
      // v4: the file system's size and free space (-1 when unknown, as Kafka answers for a directory it cannot stat).
      const space = gateway.engine.logDirSpace(gateway.brokerId);
      const totalBytes = BigInt(space?.totalBytes ?? -1);
      const usableBytes = BigInt(space?.usableBytes ?? -1);
      return { throttleTimeMs: 0, errorCode: 0, results: [{ errorCode: 0, logDir: `broker-${gateway.brokerId}`, topics, totalBytes, usableBytes }] };
    },
    errorResponse: (_request, code) => ({ throttleTimeMs: 0, errorCode: code, results: [] }),
  };
}
