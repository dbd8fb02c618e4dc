/**
 * The Produce request a transactional producer of the fault run sends: one batch of text records,
 * acks=all, in its transaction (producer id, epoch and the partition's next sequence).
 */
import type { ClientProduceRequest } from '../../core/broker/messages.js';
import { createCompressionCodecs } from '../../protocol/records/compression.js';
import { encodeRecordBatch } from '../../protocol/records/record-batch.js';
import { textRecord } from '../simulation.js';

const codecs = createCompressionCodecs();

export interface TxnProducer {
  transactionalId: string;
  producerId: number;
  epoch: number;
}

export function transactionalProduce(producer: TxnProducer, topic: string, partition: number, values: readonly string[], baseSequence: number): ClientProduceRequest {
  const records = values.map((v) => textRecord(v));
  const wire = encodeRecordBatch(
    { baseOffset: 0, lastOffset: records.length - 1, leaderEpoch: -1, appendTimeMs: 0, records, sizeBytes: 0, transactional: true },
    { codecs, producer: { id: producer.producerId, epoch: producer.epoch, baseSequence } },
  );
  return {
    type: 'produce',
    acks: -1,
    timeoutMs: 5_000,
    transactionalId: producer.transactionalId,
    partitions: [{ topic, partition, wire, producer: { producerId: producer.producerId, producerEpoch: producer.epoch, baseSequence, transactional: true } }],
  };
}
