/**
 * Kafka's client requests addressed to one broker — what a wire-protocol listener for that
 * broker calls once it has decoded a request. The request crosses the in-process network from
 * the client node, so a broker that is down, isolated or cut off is as unreachable as it would be
 * over TCP.
 *
 * Every answer is exactly one of: the broker's response; for acks=0 produce, no response (or a
 * closed connection when the broker refused the write); or `unreachable` — `disconnected` when
 * the broker's process is gone (close the client's connection), `timeout` when nothing answered
 * within the client's request timeout (a power-lost or cut-off broker: answer nothing).
 */
import type {
  ClientDeleteRecordsRequest,
  ClientDeleteRecordsResponse,
  ClientFetchRequest,
  ClientFetchResponse,
  ClientInitProducerIdRequest,
  ClientInitProducerIdResponse,
  ClientListOffsetsRequest,
  ClientListOffsetsResponse,
  ClientMetadataRequest,
  ClientMetadataResponse,
  ClientOffsetForLeaderEpochRequest,
  ClientOffsetForLeaderEpochResponse,
  ClientProducePartitionResponse,
  ClientProduceReply,
  ClientProduceRequest,
  ClientRequest,
} from '../broker/messages.js';
import type { KafkaErrorName } from '../../api/errors.js';
import { CLIENT, type ClusterContext } from './context.js';

/** How a broker answered (or did not). */
export type BrokerAnswer<T> = { kind: 'response'; response: T } | Unreachable;
export type Unreachable = { kind: 'unreachable'; reason: 'timeout' | 'disconnected' };

/** A produce request's answer: acks=0 adds no response and a closed connection. */
export type ProduceAnswer =
  | { kind: 'response'; response: { partitions: ClientProducePartitionResponse[] } }
  | { kind: 'no-response' }
  | { kind: 'connection-closed'; error: KafkaErrorName }
  | Unreachable;

/** Kafka's default request.timeout.ms: how long a client waits for any answer. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** A produce waits its own timeoutMs on the broker; the client allows this much on top. */
const PRODUCE_MARGIN_MS = 1_000;

export class KafkaRequests {
  constructor(private readonly ctx: ClusterContext) {}

  private send<T>(brokerId: number, request: ClientRequest, timeoutMs: number, done: (a: BrokerAnswer<T>) => void): void {
    this.ctx.network.request(
      CLIENT,
      brokerId,
      request,
      timeoutMs,
      (response) => done({ kind: 'response', response: response as T }),
      (reason) => done({ kind: 'unreachable', reason }),
    );
  }

  /** Produce: one batch per partition, answered once every partition has its outcome. */
  produce(brokerId: number, request: ClientProduceRequest, done: (a: ProduceAnswer) => void): void {
    this.send<ClientProduceReply>(brokerId, request, request.timeoutMs + PRODUCE_MARGIN_MS, (a) => {
      if (a.kind === 'unreachable') return done(a);
      const r = a.response;
      if (r.kind === 'response') return done({ kind: 'response', response: { partitions: r.partitions } });
      done(r.kind === 'no-response' ? r : { kind: 'connection-closed', error: r.error });
    });
  }

  /** Fetch as a consumer: below the HW, long-polled up to maxWaitMs for minBytes. */
  fetch(brokerId: number, request: ClientFetchRequest, done: (a: BrokerAnswer<ClientFetchResponse>) => void, requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS): void {
    this.send(brokerId, request, request.maxWaitMs + requestTimeoutMs, done);
  }

  listOffsets(brokerId: number, request: ClientListOffsetsRequest, done: (a: BrokerAnswer<ClientListOffsetsResponse>) => void, requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS): void {
    this.send(brokerId, request, requestTimeoutMs, done);
  }

  offsetForLeaderEpoch(
    brokerId: number,
    request: ClientOffsetForLeaderEpochRequest,
    done: (a: BrokerAnswer<ClientOffsetForLeaderEpochResponse>) => void,
    requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
  ): void {
    this.send(brokerId, request, requestTimeoutMs, done);
  }

  initProducerId(brokerId: number, request: ClientInitProducerIdRequest, done: (a: BrokerAnswer<ClientInitProducerIdResponse>) => void, requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS): void {
    this.send(brokerId, request, requestTimeoutMs, done);
  }

  /** DeleteRecords: the broker waits up to the request's timeoutMs for its followers; the client allows a margin on top. */
  deleteRecords(brokerId: number, request: ClientDeleteRecordsRequest, done: (a: BrokerAnswer<ClientDeleteRecordsResponse>) => void): void {
    this.send(brokerId, request, request.timeoutMs + PRODUCE_MARGIN_MS, done);
  }

  metadata(brokerId: number, request: ClientMetadataRequest, done: (a: BrokerAnswer<ClientMetadataResponse>) => void, requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS): void {
    this.send(brokerId, request, requestTimeoutMs, done);
  }
}
