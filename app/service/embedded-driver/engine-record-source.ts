/**
 * The workbench's `RecordSource` on the embedded cluster: Fetch and ListOffsets requests to each
 * partition's leader through the engine's door, as a consumer's would go, read_uncommitted below
 * the high watermark. A batch's bytes as stored (a client's batch) say its codec, timestamp type
 * and transactional flag; a batch the engine wrote itself without them is uncompressed CreateTime.
 */
import { KafkaError } from '../../api/errors.js';
import { NO_LEADER_EPOCH, type Engine, type ListOffsetsResult } from '../../core/engine.js';
import { batchAttributes, type FetchedRecord, type RecordSource } from '../workbench/record-source.js';
import type { Answer } from './group-methods.js';

/** The attributes' offset in a v2 batch: baseOffset 8, batchLength 4, partitionLeaderEpoch 4, magic 1, crc 4. */
const ATTRIBUTES_AT = 21;

export function engineRecordSource(engine: Engine, answer: Answer): RecordSource {
  const state = (topic: string, partition: number) => {
    const s = engine.metadata.topicsByName.get(topic)?.partitions.get(partition);
    if (!s) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `This server does not host this topic-partition: ${topic}-${partition}`);
    if (s.leader < 0) throw new KafkaError('LEADER_NOT_AVAILABLE', `Partition ${topic}-${partition} has no leader (offline).`);
    return s;
  };
  return {
    async partitions(topic) {
      const t = engine.metadata.topicsByName.get(topic);
      if (!t) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic ${topic} does not exist.`);
      return [...t.partitions.keys()].sort((a, b) => a - b);
    },
    async bounds(topic, partitions) {
      return partitions.map((p) => {
        state(topic, p);
        const d = engine.describePartition(topic, p);
        return { partition: p, logStartOffset: d?.logStartOffset ?? 0, highWatermark: d?.highWatermark ?? 0 };
      });
    },
    async offsetForTime(topic, partition, timestampMs) {
      state(topic, partition);
      const r = await answer<ListOffsetsResult>((done) => engine.listOffsets({ topic, partition, timestamp: timestampMs }, done));
      if (r.error !== 'NONE') throw new KafkaError(r.error, `Looking up the offset of ${topic}-${partition} at ${timestampMs} failed with ${r.error}.`);
      // No record at or after the time: the end (Kafka answers -1).
      return r.offset < 0 ? (engine.describePartition(topic, partition)?.highWatermark ?? 0) : r.offset;
    },
    async read(topic, partition, fromOffset, maxBytes) {
      const s = state(topic, partition);
      const a = await answer<Parameters<Parameters<Engine['fetchRequest']>[2]>[0]>((done) =>
        engine.fetchRequest(
          s.leader,
          {
            type: 'clientFetch',
            maxWaitMs: 0,
            minBytes: 1,
            maxBytes,
            isolationLevel: 'read_uncommitted',
            partitions: [{ topic, partition, fetchOffset: fromOffset, currentLeaderEpoch: NO_LEADER_EPOCH, partitionMaxBytes: maxBytes }],
          },
          done,
        ),
      );
      if (a.kind === 'unreachable') throw new KafkaError(a.reason === 'timeout' ? 'REQUEST_TIMED_OUT' : 'NETWORK_EXCEPTION', `The leader of ${topic}-${partition} (broker ${s.leader}) did not answer.`);
      const p = a.response.partitions[0]!;
      if (p.error === 'OFFSET_OUT_OF_RANGE') return [];
      if (p.error !== 'NONE') throw new KafkaError(p.error, `Fetching ${topic}-${partition} at offset ${fromOffset} failed with ${p.error}.`);
      const out: FetchedRecord[] = [];
      for (const b of p.batches) {
        const whole = b.source ?? b;
        const attrs = whole.encoded && whole.encoded.length > ATTRIBUTES_AT + 1 ? batchAttributes((whole.encoded[ATTRIBUTES_AT]! << 8) | whole.encoded[ATTRIBUTES_AT + 1]!) : batchAttributes(0);
        const producer = b.producer;
        b.records.forEach((rec, i) => {
          // A batch the log cleaner rewrote keeps its records at their own offsets; sequences follow offsets.
          const delta = b.offsetDeltas ? b.offsetDeltas[i]! : i;
          const offset = b.baseOffset + delta;
          if (offset < fromOffset || offset >= p.highWatermark) return;
          out.push({
            partition,
            offset,
            timestamp: rec.timestamp,
            ...attrs,
            key: rec.key,
            value: rec.value,
            headers: rec.headers.map((h) => ({ key: h.key, value: h.value })),
            leaderEpoch: b.leaderEpoch,
            producerId: producer?.producerId ?? -1,
            producerEpoch: producer?.producerEpoch ?? -1,
            sequence: producer ? (producer.baseSequence + delta) % 0x80000000 : -1,
          });
        });
      }
      return out;
    },
  };
}
