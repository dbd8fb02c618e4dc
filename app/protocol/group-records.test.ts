import { AssignerProtocol } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { groupRecordCodec as codec } from './group-records.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const str = (s: string): string => (s.length.toString(16).padStart(4, '0') + Buffer.from(s).toString('hex'));

describe('the records of __consumer_offsets', () => {
  it("writes an offset commit key as Kafka does: int16 version 1, group, topic, int32 partition", () => {
    expect(hex(codec.offsetCommitKey('g', 'orders', 3))).toBe('0001' + str('g') + str('orders') + '00000003');
    expect(codec.readKey(codec.offsetCommitKey('g', 'orders', 3))).toEqual({ kind: 'offset', group: 'g', topic: 'orders', partition: 3 });
  });

  it('writes a group metadata key as version 2 and reads both key kinds back; an unknown version is reported, not guessed', () => {
    expect(hex(codec.groupMetadataKey('my-group'))).toBe('0002' + str('my-group'));
    expect(codec.readKey(codec.groupMetadataKey('my-group'))).toEqual({ kind: 'group', group: 'my-group' });
    expect(codec.readKey(Uint8Array.from([0, 7, 1, 2]))).toEqual({ kind: 'unknown', version: 7 });
    expect(() => codec.readKey(Uint8Array.from([0, 1, 0]))).toThrow();
  });

  it('writes offset values as v3, or v1 with an expiry, and reads them back', () => {
    const plain = { offset: 42, leaderEpoch: 5, metadata: 'm', commitTimestampMs: 1_700_000_000_000, expireTimestampMs: null };
    const bytes = codec.offsetCommitValue(plain);
    // v3: offset int64, leaderEpoch int32, metadata string, commitTimestamp int64
    expect(hex(bytes)).toBe('0003' + '000000000000002a' + '00000005' + str('m') + (1_700_000_000_000).toString(16).padStart(16, '0'));
    expect(codec.readOffsetCommitValue(bytes)).toEqual(plain);
    const expiring = { ...plain, leaderEpoch: -1, expireTimestampMs: 1_700_000_060_000 };
    const v1 = codec.offsetCommitValue(expiring);
    expect(hex(v1.subarray(0, 2))).toBe('0001');
    expect(codec.readOffsetCommitValue(v1)).toEqual(expiring);
  });

  it('round-trips group metadata with its members, subscriptions and assignments', () => {
    const group = {
      protocolType: 'consumer',
      generation: 7,
      protocol: 'range',
      leader: 'a-1',
      currentStateTimestampMs: 123,
      members: [
        { memberId: 'a-1', groupInstanceId: null, clientId: 'a', clientHost: '/127.0.0.1', rebalanceTimeoutMs: 60_000, sessionTimeoutMs: 30_000, subscription: Uint8Array.from([1]), assignment: Uint8Array.from([2, 3]) },
        { memberId: 'b-1', groupInstanceId: 'b', clientId: 'b', clientHost: '/127.0.0.1', rebalanceTimeoutMs: 60_000, sessionTimeoutMs: 30_000, subscription: Uint8Array.from([]), assignment: Uint8Array.from([]) },
      ],
    };
    const bytes = codec.groupMetadataValue(group);
    expect(hex(bytes.subarray(0, 2))).toBe('0003');
    expect(codec.readGroupMetadataValue(bytes)).toEqual(group);
    expect(() => codec.readGroupMetadataValue(Uint8Array.from([...bytes, 0]))).toThrow(/after the record/);
  });
});

describe("the consumer protocol's bytes", () => {
  it('reads subscriptions and assignments a real client (kafkajs) writes', () => {
    const subscription = AssignerProtocol.MemberMetadata.encode({ version: 1, topics: ['orders', 'audit'], userData: Buffer.alloc(0) });
    expect(codec.subscribedTopics(subscription)).toEqual(['orders', 'audit']);
    const assignment = AssignerProtocol.MemberAssignment.encode({ version: 1, assignment: { orders: [0, 2], audit: [1] }, userData: Buffer.alloc(0) });
    expect(codec.assignedPartitions(assignment)).toEqual([
      { topic: 'orders', partitions: [0, 2] },
      { topic: 'audit', partitions: [1] },
    ]);
  });

  it('writes what kafkajs reads, and answers null for bytes that are no subscription or assignment', () => {
    const decoded = AssignerProtocol.MemberAssignment.decode(Buffer.from(codec.encodeAssignment([{ topic: 't', partitions: [4, 5] }])));
    expect(decoded?.assignment).toEqual({ t: [4, 5] });
    expect(AssignerProtocol.MemberMetadata.decode(Buffer.from(codec.encodeSubscription(['t'])))?.topics).toEqual(['t']);
    expect(codec.subscribedTopics(Uint8Array.from([0xff, 0xff, 1]))).toBeNull();
    expect(codec.assignedPartitions(Uint8Array.from([0, 0, 0x7f, 0xff, 0xff, 0xff]))).toBeNull();
    expect(codec.assignedPartitions(new Uint8Array(0))).toBeNull();
  });
});
