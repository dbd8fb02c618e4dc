/**
 * The transaction coordinator's record codec (app/core's `TxnRecordCodec` port) over the
 * generated codecs of Kafka's schemas (Kafka's TransactionLog):
 *
 *   key    int16 version 0, TransactionLogKey (transactional id)
 *   value  int16 version, TransactionLogValue: written as v0 (Kafka writes v1, the flexible one,
 *          only once the transaction.version feature is 1 or more, which this cluster does not
 *          offer); read in v0 and v1. An Empty transaction is written with null partitions.
 *
 * Reading never trusts the bytes: a short or malformed record, an unknown version or state id
 * throws (the coordinator skips the record, as Kafka skips an unknown key version).
 */
import { TXN_STATE_IDS, type StoredTxn, type TxnRecordCodec } from '../core/txn/record-codec.js';
import { readTransactionLogKey, readTransactionLogValue, writeTransactionLogKey, writeTransactionLogValue } from './generated/index.js';
import { MalformedMessageError, Reader, Writer } from './runtime/index.js';

const KEY_VERSION = 0;
const VALUE_VERSION = 0;

function versioned(version: number, write: (w: Writer) => void): Uint8Array {
  const w = new Writer(64);
  w.int16(version);
  write(w);
  return w.toBytes();
}

function readVersioned<T>(bytes: Uint8Array, known: readonly number[], read: (r: Reader, version: number) => T): T {
  const r = new Reader(bytes);
  const version = r.int16();
  if (!known.includes(version)) throw new MalformedMessageError(`unknown record version ${version}`);
  const value = read(r, version);
  if (r.remaining() !== 0) throw new MalformedMessageError(`${r.remaining()} bytes after the record's struct`);
  return value;
}

export const txnRecordCodec: TxnRecordCodec = {
  key: (transactionalId) => versioned(KEY_VERSION, (w) => writeTransactionLogKey(w, KEY_VERSION, { transactionalId })),

  readKey: (key) => readVersioned(key, [0], (r, version) => readTransactionLogKey(r, version).transactionalId),

  value(t: StoredTxn): Uint8Array {
    return versioned(VALUE_VERSION, (w) =>
      writeTransactionLogValue(w, VALUE_VERSION, {
        producerId: BigInt(t.producerId),
        producerEpoch: t.producerEpoch,
        transactionTimeoutMs: t.transactionTimeoutMs,
        transactionStatus: TXN_STATE_IDS.indexOf(t.state),
        transactionPartitions: t.state === 'Empty' ? null : t.partitions.map((p) => ({ topic: p.topic, partitionIds: p.partitions })),
        transactionLastUpdateTimestampMs: BigInt(t.lastUpdateTimestampMs),
        transactionStartTimestampMs: BigInt(t.startTimestampMs),
      }),
    );
  },

  readValue(value: Uint8Array): StoredTxn {
    return readVersioned(value, [0, 1], (r, version) => {
      const v = readTransactionLogValue(r, version);
      const state = TXN_STATE_IDS[v.transactionStatus];
      if (state === undefined) throw new MalformedMessageError(`unknown transaction state id ${v.transactionStatus}`);
      return {
        producerId: Number(v.producerId),
        producerEpoch: v.producerEpoch,
        transactionTimeoutMs: v.transactionTimeoutMs,
        state,
        partitions: state === 'Empty' ? [] : (v.transactionPartitions ?? []).map((p) => ({ topic: p.topic, partitions: p.partitionIds })),
        lastUpdateTimestampMs: Number(v.transactionLastUpdateTimestampMs),
        startTimestampMs: Number(v.transactionStartTimestampMs),
      };
    });
  },
};
