/**
 * The requests one broker answers (Kafka's KafkaApis): Produce, Fetch (followers, with the fetch
 * purgatory), the in-app consumer's fetch, ListOffsets, and the controller's metadata pushes.
 *
 * Invariants: a request that needs leadership is refused with NOT_LEADER_OR_FOLLOWER as soon as
 * this broker's metadata says another broker leads; consumers read only below the high watermark;
 * acks=0 gets no response, and a refused acks=0 write closes the connection instead (Kafka's
 * answer to an error the client will never read).
 */
import type { KafkaErrorName } from '../../api/errors.js';
import { replicaKey } from '../log/log-store.js';
import type { MetadataImage } from '../metadata/image.js';
import type { CommittedRecord } from '../metadata/records.js';
import type { NodeId } from '../network.js';
import { isInternalTopic } from '../topic-names.js';
import type { FetchPurgatory } from './fetch-purgatory.js';
import type {
  BrokerRequest,
  ConsumerFetchRequest,
  ConsumerFetchResponse,
  FetchResponse,
  ListOffsetsRequest,
  ListOffsetsResponse,
  ProduceRequest,
  ProduceResponse,
} from './messages.js';
import type { ReplicaManager } from './replica-manager.js';

/** What the request handlers need from their broker. */
export interface ApisHost {
  readonly brokerId: number;
  readonly image: MetadataImage;
  applyMetadata(records: readonly CommittedRecord[]): void;
}

export class KafkaApis {
  constructor(
    private readonly host: ApisHost,
    private readonly replicas: ReplicaManager,
    private readonly purgatory: FetchPurgatory,
  ) {}

  handle(_from: NodeId, msg: BrokerRequest, reply: (res: unknown) => void): void {
    switch (msg.type) {
      case 'fetch':
        return this.purgatory.followerFetch(msg, reply as (r: FetchResponse) => void);
      case 'produce':
        return this.produce(msg, reply);
      case 'consumerFetch':
        return reply(this.consumerFetch(msg));
      case 'listOffsets':
        return reply(this.listOffsets(msg));
      case 'metadataPush':
        return this.host.applyMetadata(msg.records);
    }
  }

  private produce(req: ProduceRequest, reply: (res: unknown) => void): void {
    const respond = (r: ProduceResponse): void => reply(r);
    if (req.acks !== 0 && req.acks !== 1 && req.acks !== -1) return respond({ error: 'INVALID_REQUIRED_ACKS', baseOffset: -1 });
    const acks = req.acks;
    const fail = (error: KafkaErrorName, message?: string): void => {
      // acks=0: no response; on error the broker closes the connection instead.
      if (acks === 0) reply({ error, baseOffset: -1, connectionClosed: true });
      else respond({ error, baseOffset: -1, ...(message ? { message } : {}) });
    };
    if (isInternalTopic(req.topic)) return fail('INVALID_TOPIC_EXCEPTION', `Cannot append to internal topic ${req.topic}`);
    const topic = this.host.image.topicsByName.get(req.topic);
    if (!topic || !topic.partitions.has(req.partition)) return fail('UNKNOWN_TOPIC_OR_PARTITION');
    const p = this.replicas.partitionByKey(replicaKey(topic.topicId, req.partition));
    if (!p || !p.isLeader) return fail('NOT_LEADER_OR_FOLLOWER', `Broker ${this.host.brokerId} is not the leader of ${req.topic}-${req.partition}`);
    p.appendAsLeader(req.records, acks, req.timeoutMs, (o) => {
      if (acks === 0) {
        if (o.errorCode !== 'NONE') fail(o.errorCode);
        else reply({ error: 'NONE', baseOffset: -1, noResponse: true });
        return;
      }
      const { leaderEpoch, appendTimeMs } = o;
      respond({ error: o.errorCode, baseOffset: o.baseOffset, ...(o.errorMessage ? { message: o.errorMessage } : {}), ...(leaderEpoch !== undefined ? { leaderEpoch, appendTimeMs } : {}) });
    });
  }

  private consumerFetch(req: ConsumerFetchRequest): ConsumerFetchResponse {
    const empty = { batches: [], highWatermark: -1, logStartOffset: -1, logEndOffset: -1, leaderEpoch: -1 };
    const topic = this.host.image.topicsByName.get(req.topic);
    if (!topic || !topic.partitions.has(req.partition)) return { error: 'UNKNOWN_TOPIC_OR_PARTITION', ...empty };
    const k = replicaKey(topic.topicId, req.partition);
    if (this.replicas.isOffline(k)) return { error: 'KAFKA_STORAGE_ERROR', ...empty };
    const p = this.replicas.partitionByKey(k);
    if (!p || !p.isLeader) return { error: 'NOT_LEADER_OR_FOLLOWER', ...empty };
    const log = p.log;
    const base = { highWatermark: log.highWatermark, logStartOffset: log.logStartOffset, logEndOffset: log.logEndOffset, leaderEpoch: p.leaderEpoch };
    if (req.offset < log.logStartOffset || req.offset > log.logEndOffset) return { error: 'OFFSET_OUT_OF_RANGE', batches: [], ...base };
    const batches = this.replicas.readOrOffline(p, req.offset, log.highWatermark, req.maxBytes);
    if (!batches) return { error: 'KAFKA_STORAGE_ERROR', ...empty };
    return { error: 'NONE', batches, ...base };
  }

  private listOffsets(req: ListOffsetsRequest): ListOffsetsResponse {
    const topic = this.host.image.topicsByName.get(req.topic);
    if (!topic || !topic.partitions.has(req.partition)) return { error: 'UNKNOWN_TOPIC_OR_PARTITION', offset: -1, leaderEpoch: -1 };
    const p = this.replicas.partitionByKey(replicaKey(topic.topicId, req.partition));
    if (!p || !p.isLeader) return { error: 'NOT_LEADER_OR_FOLLOWER', offset: -1, leaderEpoch: -1 };
    if (req.timestamp === -2) return { error: 'NONE', offset: p.log.logStartOffset, leaderEpoch: p.leaderEpoch };
    // KIP-207: a new leader whose HW is still below its epoch start cannot answer "latest" yet.
    if (p.log.highWatermark < p.leaderEpochStartOffset) return { error: 'OFFSET_NOT_AVAILABLE', offset: -1, leaderEpoch: p.leaderEpoch };
    return { error: 'NONE', offset: p.log.highWatermark, leaderEpoch: p.leaderEpoch };
  }
}
