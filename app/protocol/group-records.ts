/**
 * The group coordinator's record codec (app/core's `GroupRecordCodec` port) over the generated
 * codecs of Kafka's schemas. Grammar of every key and value in `__consumer_offsets`, and of the
 * consumer protocol's bytes:
 *
 *   int16 version, then the struct of that version
 *
 *   key version 0–1   OffsetCommitKey    (group, topic, partition)   — written as v1
 *   key version 2     GroupMetadataKey   (group)
 *   OffsetCommitValue  v3 (offset, leaderEpoch, metadata, commitTimestamp), or v1 when the commit
 *                      carried a retention time (it has expireTimestamp), as Kafka 3.x writes them
 *   GroupMetadataValue v3 (protocolType, generation, protocol, leader, currentStateTimestamp,
 *                      members with groupInstanceId, rebalance and session timeouts, subscription,
 *                      assignment)
 *   ConsumerProtocolSubscription / Assignment: a version above the highest known is read with the
 *   highest known one, as Kafka's ConsumerProtocol does (later versions only append fields), and
 *   one that lacks its own later fields as version 0.
 *
 * Reading never trusts the bytes: a short or malformed record throws (the coordinator skips it);
 * the consumer-protocol readers answer null instead, since any client may send any bytes there.
 */
import type { CoordinatorRecordKey, GroupRecordCodec, OffsetAndMetadata, StoredGroup, TopicPartitions } from '../core/group/record-codec.js';
import {
  ConsumerProtocolAssignmentVersions,
  ConsumerProtocolSubscriptionVersions,
  readConsumerProtocolAssignment,
  readConsumerProtocolSubscription,
  readGroupMetadataKey,
  readGroupMetadataValue,
  readOffsetCommitKey,
  readOffsetCommitValue,
  writeConsumerProtocolAssignment,
  writeConsumerProtocolSubscription,
  writeGroupMetadataKey,
  writeGroupMetadataValue,
  writeOffsetCommitKey,
  writeOffsetCommitValue,
} from './generated/index.js';
import { MalformedMessageError, Reader, Writer } from './runtime/index.js';

const OFFSET_COMMIT_KEY_VERSION = 1;
const GROUP_METADATA_KEY_VERSION = 2;
const OFFSET_COMMIT_VALUE_VERSION = 3;
const OFFSET_COMMIT_VALUE_WITH_EXPIRY = 1;
const GROUP_METADATA_VALUE_VERSION = 3;

function versioned(version: number, write: (w: Writer) => void): Uint8Array {
  const w = new Writer(64);
  w.int16(version);
  write(w);
  return w.toBytes();
}

/** The struct after the version prefix, read whole (trailing bytes are an error). */
function readVersioned<T>(bytes: Uint8Array, read: (r: Reader, version: number) => T): T {
  const r = new Reader(bytes);
  const version = r.int16();
  const value = read(r, version);
  if (r.remaining() !== 0) throw new MalformedMessageError(`${r.remaining()} bytes after the record's struct`);
  return value;
}

/**
 * A consumer-protocol struct, with Kafka's forward compatibility; null when unreadable. Bytes
 * that claim a version but lack its later fields (kafkajs 2.2.4 labels its subscription v1 and
 * writes only v0's fields) are read as v0, whose fields every version starts with.
 */
function readConsumerProtocol<T>(bytes: Uint8Array, highest: number, read: (r: Reader, version: number) => T): T | null {
  const attempt = (version: number | null): T | null => {
    try {
      const r = new Reader(bytes);
      const declared = r.int16();
      if (declared < 0) return null;
      return read(r, version ?? Math.min(declared, highest));
    } catch {
      return null;
    }
  };
  return attempt(null) ?? attempt(0);
}

export const groupRecordCodec: GroupRecordCodec = {
  offsetCommitKey: (group, topic, partition) => versioned(OFFSET_COMMIT_KEY_VERSION, (w) => writeOffsetCommitKey(w, OFFSET_COMMIT_KEY_VERSION, { group, topic, partition })),

  offsetCommitValue(o: OffsetAndMetadata): Uint8Array {
    const version = o.expireTimestampMs === null ? OFFSET_COMMIT_VALUE_VERSION : OFFSET_COMMIT_VALUE_WITH_EXPIRY;
    return versioned(version, (w) =>
      writeOffsetCommitValue(w, version, {
        offset: BigInt(o.offset),
        metadata: o.metadata,
        commitTimestamp: BigInt(o.commitTimestampMs),
        ...(version >= 3 ? { leaderEpoch: o.leaderEpoch } : {}),
        ...(o.expireTimestampMs !== null ? { expireTimestamp: BigInt(o.expireTimestampMs) } : {}),
      }),
    );
  },

  groupMetadataKey: (group) => versioned(GROUP_METADATA_KEY_VERSION, (w) => writeGroupMetadataKey(w, GROUP_METADATA_KEY_VERSION, { group })),

  groupMetadataValue(g: StoredGroup): Uint8Array {
    return versioned(GROUP_METADATA_VALUE_VERSION, (w) =>
      writeGroupMetadataValue(w, GROUP_METADATA_VALUE_VERSION, {
        protocolType: g.protocolType,
        generation: g.generation,
        protocol: g.protocol,
        leader: g.leader,
        currentStateTimestamp: BigInt(g.currentStateTimestampMs),
        members: g.members.map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          rebalanceTimeout: m.rebalanceTimeoutMs,
          sessionTimeout: m.sessionTimeoutMs,
          subscription: m.subscription,
          assignment: m.assignment,
        })),
      }),
    );
  },

  readKey(key: Uint8Array): CoordinatorRecordKey {
    return readVersioned(key, (r, version): CoordinatorRecordKey => {
      if (version === 0 || version === 1) {
        const k = readOffsetCommitKey(r, version);
        return { kind: 'offset', group: k.group, topic: k.topic, partition: k.partition };
      }
      if (version === GROUP_METADATA_KEY_VERSION) return { kind: 'group', group: readGroupMetadataKey(r, version).group };
      r.pos = r.end; // the rest belongs to a schema we do not know
      return { kind: 'unknown', version };
    });
  },

  readOffsetCommitValue(value: Uint8Array): OffsetAndMetadata {
    return readVersioned(value, (r, version) => {
      const v = readOffsetCommitValue(r, version);
      return {
        offset: Number(v.offset),
        leaderEpoch: v.leaderEpoch,
        metadata: v.metadata,
        commitTimestampMs: Number(v.commitTimestamp),
        expireTimestampMs: v.expireTimestamp === -1n ? null : Number(v.expireTimestamp),
      };
    });
  },

  readGroupMetadataValue(value: Uint8Array): StoredGroup {
    return readVersioned(value, (r, version) => {
      const v = readGroupMetadataValue(r, version);
      return {
        protocolType: v.protocolType,
        generation: v.generation,
        protocol: v.protocol,
        leader: v.leader,
        currentStateTimestampMs: Number(v.currentStateTimestamp),
        members: v.members.map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          // Version 0 had no rebalance timeout: Kafka then uses the session timeout.
          rebalanceTimeoutMs: version === 0 ? m.sessionTimeout : m.rebalanceTimeout,
          sessionTimeoutMs: m.sessionTimeout,
          subscription: m.subscription,
          assignment: m.assignment,
        })),
      };
    });
  },

  subscribedTopics(subscription: Uint8Array): string[] | null {
    return readConsumerProtocol(subscription, ConsumerProtocolSubscriptionVersions.highest, readConsumerProtocolSubscription)?.topics ?? null;
  },

  assignedPartitions(assignment: Uint8Array): TopicPartitions[] | null {
    const a = readConsumerProtocol(assignment, ConsumerProtocolAssignmentVersions.highest, readConsumerProtocolAssignment);
    return a ? a.assignedPartitions.map((tp) => ({ topic: tp.topic, partitions: [...tp.partitions] })) : null;
  },

  // Version 0 of both, as the simplest consumers (and kafkajs) send them.
  encodeSubscription: (topics) => versioned(0, (w) => writeConsumerProtocolSubscription(w, 0, { topics: [...topics], userData: null })),
  encodeAssignment: (partitions) =>
    versioned(0, (w) => writeConsumerProtocolAssignment(w, 0, { assignedPartitions: partitions.map((p) => ({ topic: p.topic, partitions: [...p.partitions] })), userData: null })),
};
