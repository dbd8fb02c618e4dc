/**
 * Golden frames from a real client: kafkajs 2.2.4 encodes requests (the bytes a broker of ours
 * receives) and decodes responses (the bytes it sends); our generated codecs must agree with it
 * byte for byte, in both directions, for the versions kafkajs 2.2.4 sends.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import * as g from './generated/index.js';
import { Reader, Writer } from './runtime/index.js';

const require = createRequire(import.meta.url);
type KafkajsRequest = { apiKey: number; apiVersion: number; encode: () => Promise<unknown> };
const kafkajs = (path: string): ((args: Record<string, unknown>) => KafkajsRequest) =>
  require(`kafkajs/src/protocol/requests/${path}/request.js`) as never;
const frameOf = require('kafkajs/src/protocol/request.js') as (a: {
  correlationId: number;
  clientId: string;
  request: KafkajsRequest;
}) => Promise<{ buffer: Buffer }>;
const decoderOf = (path: string): ((body: Buffer) => Promise<Record<string, unknown>>) =>
  (require(`kafkajs/src/protocol/requests/${path}/response.js`) as { decode: never }).decode;
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0/index.js') as {
  RecordBatch: (a: Record<string, unknown>) => Promise<{ buffer: Buffer }>;
};
const Record = require('kafkajs/src/protocol/recordBatch/record/v0/index.js') as (a: Record<string, unknown>) => unknown;

/** Encodes `request` as kafkajs puts it on the wire; returns our reader after the header. */
async function receive(request: KafkajsRequest): Promise<{ header: g.RequestHeader; body: Reader; frame: Buffer }> {
  const { buffer: frame } = await frameOf({ correlationId: 42, clientId: 'golden', request });
  const r = new Reader(frame);
  expect(r.int32()).toBe(frame.length - 4);
  const def = g.apiDefinition(request.apiKey)!;
  const header = g.readRequestHeader(r, g.requestHeaderVersion(def, request.apiVersion));
  return { header, body: r, frame };
}

describe('requests encoded by kafkajs 2.2.4 decode with our codecs', () => {
  it('ApiVersions v2: the header names the API, version, correlation id and client id', async () => {
    const { header, body } = await receive(kafkajs('apiVersions/v2')({}));
    expect(header).toEqual({ requestApiKey: 18, requestApiVersion: 2, correlationId: 42, clientId: 'golden' });
    expect(g.readApiVersionsRequest(body, 2)).toEqual({ clientSoftwareName: '', clientSoftwareVersion: '' });
    expect(body.remaining()).toBe(0);
  });

  it('Metadata v6: topic names and the auto-create flag', async () => {
    const { body } = await receive(kafkajs('metadata/v6')({ topics: ['orders', 'payments'], allowAutoTopicCreation: false }));
    const req = g.readMetadataRequest(body, 6);
    expect(req.topics?.map((t) => t.name)).toEqual(['orders', 'payments']);
    expect(req.allowAutoTopicCreation).toBe(false);
    expect(body.remaining()).toBe(0);
  });

  it('Produce v7: acks, timeout, topic, partition and the record batch bytes as sent', async () => {
    const messages = [
      { key: 'k1', value: 'hello', timestamp: 1_700_000_000_000, headers: { trace: 'abc' } },
      { key: null, value: 'world', timestamp: 1_700_000_000_005 },
    ];
    const { body, frame } = await receive(
      kafkajs('produce/v7')({ acks: -1, timeout: 30000, topicData: [{ topic: 'orders', partitions: [{ partition: 3, messages }] }] }),
    );
    const req = g.readProduceRequest(body, 7);
    expect(req.transactionalId).toBeNull();
    expect(req.acks).toBe(-1);
    expect(req.timeoutMs).toBe(30000);
    expect(req.topicData).toHaveLength(1);
    const data = req.topicData[0]!;
    expect(data.name).toBe('orders');
    expect(data.partitionData[0]!.index).toBe(3);
    const records = data.partitionData[0]!.records!;
    const view = new DataView(records.buffer, records.byteOffset, records.byteLength);
    expect(view.getInt8(16)).toBe(2); // magic
    expect(view.getInt32(8)).toBe(records.length - 12); // batchLength
    expect(view.getInt32(57)).toBe(2); // recordCount
    expect(view.getBigInt64(27)).toBe(1_700_000_000_000n); // baseTimestamp
    expect(view.getBigInt64(35)).toBe(1_700_000_000_005n); // maxTimestamp
    // The records field is the tail of the frame, not a copy.
    expect(records.buffer).toBe(frame.buffer);
    expect(body.remaining()).toBe(0);
  });

  it('Fetch v11: limits, isolation level, partitions and rack id', async () => {
    const topics = [{ topic: 'orders', partitions: [{ partition: 0, fetchOffset: '17', logStartOffset: '-1', maxBytes: 1048576 }] }];
    const { body } = await receive(
      kafkajs('fetch/v11')({ replicaId: -1, maxWaitTime: 5000, minBytes: 1, maxBytes: 10485760, topics, isolationLevel: 1, rackId: 'r1' }),
    );
    const req = g.readFetchRequest(body, 11);
    expect(req).toMatchObject({ replicaId: -1, maxWaitMs: 5000, minBytes: 1, maxBytes: 10485760, isolationLevel: 1, sessionId: 0, sessionEpoch: -1, rackId: 'r1' });
    expect(req.topics[0]!.topic).toBe('orders');
    expect(req.topics[0]!.partitions[0]).toMatchObject({ partition: 0, fetchOffset: 17n, logStartOffset: -1n, partitionMaxBytes: 1048576 });
    expect(body.remaining()).toBe(0);
  });

  it('ListOffsets v3: latest (-1) and earliest (-2) lookups', async () => {
    const topics = [{ topic: 'orders', partitions: [{ partition: 0, timestamp: -1 }, { partition: 1, timestamp: -2 }] }];
    const { body } = await receive(kafkajs('listOffsets/v3')({ replicaId: -1, isolationLevel: 1, topics }));
    const req = g.readListOffsetsRequest(body, 3);
    expect(req.isolationLevel).toBe(1);
    expect(req.topics[0]!.partitions.map((p) => [p.partitionIndex, p.timestamp])).toEqual([
      [0, -1n],
      [1, -2n],
    ]);
    expect(body.remaining()).toBe(0);
  });

  it('AlterPartitionReassignments v0: a flexible request, header v2 with its tag section, compact arrays', async () => {
    const topics = [{ topic: 'orders', partitionAssignment: [{ partition: 1, replicas: [3, 1, 2] }] }];
    const { header, body } = await receive(kafkajs('alterPartitionReassignments/v0')({ topics, timeout: 5000 }));
    expect(header.clientId).toBe('golden');
    const req = g.readAlterPartitionReassignmentsRequest(body, 0);
    expect(req.timeoutMs).toBe(5000);
    expect(req.topics).toEqual([{ name: 'orders', partitions: [{ partitionIndex: 1, replicas: [3, 1, 2] }] }]);
    expect(body.remaining()).toBe(0);
  });
});

/** Encodes `response` with our codec (the body only) and lets kafkajs decode it. */
async function send<T>(write: (w: Writer, v: number, x: T) => void, version: number, response: T, path: string): Promise<Record<string, unknown>> {
  const w = new Writer();
  write(w, version, response);
  return decoderOf(path)(Buffer.from(w.toBytes()));
}

describe('responses encoded by our codecs decode in kafkajs 2.2.4', () => {
  it('ApiVersions v2: the advertised ranges', async () => {
    const apiKeys = [
      { apiKey: 0, minVersion: 0, maxVersion: 8 },
      { apiKey: 18, minVersion: 0, maxVersion: 4 },
    ];
    const decoded = await send(g.writeApiVersionsResponse, 2, { errorCode: 0, apiKeys, throttleTimeMs: 0 }, 'apiVersions/v2');
    expect(decoded['errorCode']).toBe(0);
    expect(decoded['apiVersions']).toEqual(apiKeys);
  });

  it('Metadata v6: brokers, cluster id, controller and partition leaders with replicas, ISR and offline replicas', async () => {
    const decoded = await send(
      g.writeMetadataResponse,
      6,
      {
        brokers: [
          { nodeId: 1, host: '127.0.0.1', port: 19092, rack: 'r1' },
          { nodeId: 2, host: '127.0.0.1', port: 19093, rack: null },
        ],
        clusterId: 'c-1',
        controllerId: 1,
        topics: [
          {
            errorCode: 0,
            name: 'orders',
            isInternal: false,
            partitions: [{ errorCode: 0, partitionIndex: 0, leaderId: 2, replicaNodes: [2, 1], isrNodes: [2], offlineReplicas: [1] }],
          },
        ],
      },
      'metadata/v6',
    );
    expect(decoded['brokers']).toEqual([
      { nodeId: 1, host: '127.0.0.1', port: 19092, rack: 'r1' },
      { nodeId: 2, host: '127.0.0.1', port: 19093, rack: null },
    ]);
    expect(decoded['clusterId']).toBe('c-1');
    expect(decoded['controllerId']).toBe(1);
    expect(decoded['topicMetadata']).toEqual([
      {
        topicErrorCode: 0,
        topic: 'orders',
        isInternal: false,
        partitionMetadata: [{ partitionErrorCode: 0, partitionId: 0, leader: 2, replicas: [2, 1], isr: [2], offlineReplicas: [1] }],
      },
    ]);
  });

  it('Produce v7: base offset, log append time and log start offset per partition', async () => {
    const decoded = await send(
      g.writeProduceResponse,
      7,
      {
        responses: [
          { name: 'orders', partitionResponses: [{ index: 3, errorCode: 0, baseOffset: 120n, logAppendTimeMs: -1n, logStartOffset: 0n }] },
        ],
        throttleTimeMs: 0,
      },
      'produce/v7',
    );
    expect(decoded['topics']).toEqual([
      { topicName: 'orders', partitions: [{ partition: 3, errorCode: 0, baseOffset: '120', logAppendTime: '-1', logStartOffset: '0' }] },
    ]);
  });

  it('Fetch v11: high watermark and the records of a batch kafkajs itself encoded', async () => {
    const records = [
      Record({ key: 'k1', value: 'hello', offsetDelta: 0, timestampDelta: 0, headers: { trace: 'abc' } }),
      Record({ key: 'k2', value: 'world', offsetDelta: 1, timestampDelta: 5 }),
    ];
    const batch = await RecordBatch({ records, firstOffset: 40, firstTimestamp: 1_700_000_000_000, maxTimestamp: 1_700_000_000_005, partitionLeaderEpoch: 3 });
    const decoded = await send(
      g.writeFetchResponse,
      11,
      {
        responses: [
          {
            topic: 'orders',
            partitions: [{ partitionIndex: 0, highWatermark: 42n, lastStableOffset: 42n, logStartOffset: 0n, abortedTransactions: null, records: new Uint8Array(batch.buffer) }],
          },
        ],
      },
      'fetch/v11',
    );
    const partition = (decoded['responses'] as { partitions: Record<string, unknown>[] }[])[0]!.partitions[0]!;
    expect(partition['highWatermark']).toBe('42');
    const got = (partition['messages'] as { offset: string; key: Buffer; value: Buffer; headers: Record<string, Buffer> }[]).map((m) => ({
      offset: m.offset,
      key: m.key.toString(),
      value: m.value.toString(),
    }));
    expect(got).toEqual([
      { offset: '40', key: 'k1', value: 'hello' },
      { offset: '41', key: 'k2', value: 'world' },
    ]);
  });
});
