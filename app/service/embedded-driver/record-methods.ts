/**
 * The embedded driver's `records.produce` and `records.consume`: the console's own producer and
 * reader. A produce request is split by partition as Kafka's producer partitioner would place its
 * records (or all to the partition named), each part produced as one batch with the request's
 * acks; a read error becomes Kafka's error with the offsets that explain it.
 */
import { KafkaError } from '../../api/errors.js';
import type { MethodParsedInput } from '../../api/contract.js';
import type { ConsumeResult, Engine, ProduceResult } from '../../core/engine.js';
import type { LogRecord } from '../../core/log/records.js';
import type { Random } from '../../core/random.js';
import type { ManualScheduler } from '../../core/time.js';
import { consumedRecordView, produceBatchView } from '../cluster-views.js';
import { ProducerPartitioner } from '../producer-partitioner.js';
import type { Answer, EmbeddedMethods } from './embedded-methods.js';

export interface RecordMethodsContext {
  engine: Engine;
  scheduler: ManualScheduler;
  /** Answers an engine request started after the method awaited something (cluster-service.ts). */
  answer: Answer;
  answerLater: Answer;
  /** The workbench's conversion of the request's records (schemas, encodings) to log records. */
  producedRecords: (input: MethodParsedInput<'records.produce'>, nowMs: number) => LogRecord[] | Promise<LogRecord[]>;
  /** Where the partitioner picks sticky partitions for records without a key. */
  random: Random;
}

export function recordMethods({ engine, scheduler, answer, answerLater, producedRecords, random }: RecordMethodsContext) {
  const image = engine.metadata;
  const partitioner = new ProducerPartitioner(random);

  /**
   * The records of one produce request grouped by partition (first-appearance order): all of them
   * when a partition is named or the topic is unknown (the engine answers that), else each where
   * Kafka's producer partitioner puts it.
   */
  function groupByPartition(topic: string, named: number | undefined, records: LogRecord[]): { partition: number | undefined; indexes: number[] }[] {
    const t = image.topicsByName.get(topic);
    if (named !== undefined || !t) return [{ partition: named, indexes: records.map((_, i) => i) }];
    const partitions = [...t.partitions.values()].sort((a, b) => a.partition - b.partition).map((p) => ({ partition: p.partition, hasLeader: p.leader >= 0 }));
    const groups = new Map<number, number[]>();
    partitioner.assign(topic, partitions, records).forEach((p, i) => {
      const g = groups.get(p);
      if (g) g.push(i);
      else groups.set(p, [i]);
    });
    return [...groups].map(([partition, indexes]) => ({ partition, indexes }));
  }

  return {
    'records.produce': async (input) => {
      const converted = producedRecords(input, scheduler.now());
      const records = Array.isArray(converted) ? converted : await converted;
      const groups = groupByPartition(input.topic, input.partition, records);
      const batches = await Promise.all(
        groups.map(async ({ partition, indexes }) => {
          const result = await answerLater<ProduceResult>((done) =>
            engine.produce(
              {
                topic: input.topic,
                ...(partition !== undefined ? { partition } : {}),
                acks: input.acks,
                records: indexes.map((i) => records[i]!),
                ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
                ...(input.compression !== undefined ? { compression: input.compression } : {}),
              },
              done,
            ),
          );
          return { ...produceBatchView(result), records: indexes };
        }),
      );
      const headline = batches.find((b) => b.errorCode !== 'NONE') ?? batches[0]!;
      const { records: _indexes, ...fields } = headline;
      return { ...fields, batches };
    },
    'records.consume': async (input) => {
      const result = await answer<ConsumeResult>((done) =>
        engine.consume({ topic: input.topic, partition: input.partition, offset: input.offset, ...(input.maxRecords !== undefined ? { maxRecords: input.maxRecords } : {}) }, done),
      );
      if (result.errorCode !== 'NONE') throw consumeError(input, result);
      return { records: result.records.map(consumedRecordView), nextOffset: result.nextOffset, highWatermark: result.highWatermark, logStartOffset: result.logStartOffset };
    },
  } satisfies Partial<EmbeddedMethods>;
}

function consumeError(input: { topic: string; partition: number; offset: number }, r: ConsumeResult): KafkaError {
  const tp = `${input.topic}-${input.partition}`;
  const details = { highWatermark: r.highWatermark, logStartOffset: r.logStartOffset };
  switch (r.errorCode) {
    case 'OFFSET_OUT_OF_RANGE':
      return new KafkaError(r.errorCode, `Offset ${input.offset} is out of range for ${tp} (log start ${r.logStartOffset}, high watermark ${r.highWatermark}).`, details);
    case 'UNKNOWN_TOPIC_OR_PARTITION':
      return new KafkaError(r.errorCode, `This server does not host this topic-partition: ${tp}`);
    case 'LEADER_NOT_AVAILABLE':
      return new KafkaError(r.errorCode, `Partition ${tp} has no leader (offline).`);
    default:
      return new KafkaError(r.errorCode, `Fetching ${tp} at offset ${input.offset} failed with ${r.errorCode}.`, details);
  }
}
