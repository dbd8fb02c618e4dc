import { describe, expect, it } from 'vitest';
import type { StoredTxn } from '../core/txn/record-codec.js';
import { txnRecordCodec } from './txn-records.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('the transaction log records (Kafka TransactionLog)', () => {
  it('writes a key as version 0 and the transactional id, as Kafka does', () => {
    expect(hex(txnRecordCodec.key('tx-1'))).toBe('0000' + '0004' + Buffer.from('tx-1').toString('hex'));
    expect(txnRecordCodec.readKey(txnRecordCodec.key('orders-app-0'))).toBe('orders-app-0');
  });

  it('writes an Ongoing transaction as value v0 with its partitions, field by field', () => {
    const t: StoredTxn = {
      producerId: 4000,
      producerEpoch: 3,
      transactionTimeoutMs: 60_000,
      state: 'Ongoing',
      partitions: [{ topic: 'out', partitions: [0, 2] }],
      lastUpdateTimestampMs: 1_700_000_000_500,
      startTimestampMs: 1_700_000_000_000,
    };
    const bytes = txnRecordCodec.value(t);
    const v = Buffer.from(bytes);
    expect(v.readInt16BE(0)).toBe(0); // value version
    expect(v.readBigInt64BE(2)).toBe(4000n); // ProducerId
    expect(v.readInt16BE(10)).toBe(3); // ProducerEpoch
    expect(v.readInt32BE(12)).toBe(60_000); // TransactionTimeoutMs
    expect(v.readInt8(16)).toBe(1); // TransactionStatus: Ongoing
    expect(v.readInt32BE(17)).toBe(1); // one topic
    expect(txnRecordCodec.readValue(bytes)).toEqual(t);
  });

  it('writes an Empty transaction with null partitions and reads every state id back', () => {
    const empty: StoredTxn = { producerId: 1, producerEpoch: 0, transactionTimeoutMs: 1000, state: 'Empty', partitions: [], lastUpdateTimestampMs: 5, startTimestampMs: -1 };
    const v = Buffer.from(txnRecordCodec.value(empty));
    expect(v.readInt32BE(17)).toBe(-1); // null array
    expect(txnRecordCodec.readValue(v)).toEqual(empty);
    for (const state of ['PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort', 'PrepareEpochFence'] as const) {
      expect(txnRecordCodec.readValue(txnRecordCodec.value({ ...empty, state })).state).toBe(state);
    }
  });

  it('refuses what it cannot read: an unknown version, an unknown state, trailing bytes', () => {
    const good = Buffer.from(txnRecordCodec.value({ producerId: 1, producerEpoch: 0, transactionTimeoutMs: 1000, state: 'Empty', partitions: [], lastUpdateTimestampMs: 5, startTimestampMs: -1 }));
    const v9 = Buffer.from(good);
    v9.writeInt16BE(9, 0);
    expect(() => txnRecordCodec.readValue(v9)).toThrow(/version 9/);
    const badState = Buffer.from(good);
    badState.writeInt8(42, 16);
    expect(() => txnRecordCodec.readValue(badState)).toThrow(/state id 42/);
    expect(() => txnRecordCodec.readValue(Buffer.concat([good, Buffer.from([0])]))).toThrow(/bytes after/);
    expect(() => txnRecordCodec.readKey(Buffer.from('0001', 'hex'))).toThrow();
  });
});
