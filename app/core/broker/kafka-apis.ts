/**
 * The requests one broker answers (Kafka's KafkaApis): Produce, Fetch (followers and clients,
 * through the fetch purgatory), ListOffsets, OffsetForLeaderEpoch, Metadata, DeleteRecords
 * (delete-records.ts), the transaction APIs (a partition leader's in txn-apis.ts, the rest to the
 * broker's transaction coordinator), and the controller's metadata pushes. Every answer is per partition, with Kafka's error codes.
 *
 * Invariants: a request that needs leadership is refused with NOT_LEADER_OR_FOLLOWER as soon as
 * this broker's metadata says another broker leads, and one that names a leader epoch other than
 * the replica's with FENCED_LEADER_EPOCH (older) or UNKNOWN_LEADER_EPOCH (newer); clients read
 * only below the high watermark; acks=0 gets no response, and a refused acks=0 write closes the
 * connection instead; Metadata is answered from this broker's own copy of the metadata, which may
 * lag the controller's.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { MetadataImage } from '../metadata/image.js';
import type { CommittedRecord } from '../metadata/records.js';
import type { GroupNetworkRequest } from '../group/messages.js';
import type { NodeId } from '../network.js';
import type { BrokerRuntimeConfig, TopicRuntimeConfig } from '../runtime-config.js';
import { isInternalTopic } from '../topic-names.js';
import type { FetchPurgatory } from './fetch-purgatory.js';
import type { ClientFetchSessionCache } from './client-fetch-sessions.js';
import type {
  BrokerRequest,
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
  FetchResponse,
} from './messages.js';
import { metadataAnswer } from './metadata-answer.js';
import { isAutoCreatable, type AutoCreateOutcome, type AutoTopicCreation } from './auto-topic-creation.js';
import { offsetForTimestamp } from './offset-lookup.js';
import { deleteRecords } from './delete-records.js';
import type { ProduceOutcome, ReplicaPartition } from './partition.js';
import type { ProducerIdAnswer } from './producer-ids.js';
import type { ReplicaManager } from './replica-manager.js';
import { describeProducers, type TxnApisHost, type Verdict, verifyTransactionalProduce, writeTxnMarkers } from './txn-apis.js';
import type { TxnNetworkRequest } from '../txn/messages.js';

/** What the request handlers need from their broker. */
export interface ApisHost extends TxnApisHost {
  readonly brokerId: number;
  readonly image: MetadataImage;
  topicConfig(topicId: string): TopicRuntimeConfig;
  applyMetadata(records: readonly CommittedRecord[]): void;
  /** The group APIs (FindCoordinator, JoinGroup, …): the broker's group coordinator answers. */
  handleGroupRequest(msg: GroupNetworkRequest, reply: (res: unknown) => void): void;
  brokerConfig(): BrokerRuntimeConfig;
  /** Asks the controller for topics a client's Metadata named (auto-topic-creation.ts). */
  readonly autoTopics: AutoTopicCreation;
  generateProducerId(done: (answer: ProducerIdAnswer) => void): void;
  /** The transaction APIs a transaction coordinator answers (AddPartitionsToTxn, EndTxn, …). */
  handleTxnRequest(msg: TxnNetworkRequest, reply: (res: unknown) => void): void;
  /** InitProducerId with a transactional id: the broker's transaction coordinator answers. */
  txnInitProducerId(req: ClientInitProducerIdRequest, reply: (res: ClientInitProducerIdResponse) => void): void;
  /** The leader's log start moved (DeleteRecords): fetch sessions must tell followers. */
  onLeaderStateChanged(partition: ReplicaPartition): void;
}

export class KafkaApis {
  constructor(
    private readonly host: ApisHost,
    private readonly replicas: ReplicaManager,
    private readonly purgatory: FetchPurgatory,
    private readonly clientSessions: ClientFetchSessionCache,
  ) {}

  handle(_from: NodeId, msg: BrokerRequest, reply: (res: unknown) => void): void {
    switch (msg.type) {
      case 'fetch':
        return this.purgatory.followerFetch(msg, reply as (r: FetchResponse) => void);
      case 'produce':
        return this.produce(msg, reply);
      case 'clientFetch':
        return this.clientFetch(msg, reply as (r: ClientFetchResponse) => void);
      case 'listOffsets':
        return reply(this.listOffsets(msg));
      case 'offsetForLeaderEpoch':
        return reply(this.offsetForLeaderEpoch(msg));
      case 'metadata':
        return this.metadata(msg, reply);
      case 'metadataPush':
        return this.host.applyMetadata(msg.records);
      case 'group':
        return this.host.handleGroupRequest(msg, reply);
      case 'initProducerId':
        return this.initProducerId(msg, reply);
      case 'deleteRecords':
        return deleteRecords(this.host, this.replicas, msg, reply);
      case 'txn':
        if (msg.api === 'writeTxnMarkers') return writeTxnMarkers(this.host, this.replicas, msg, reply);
        if (msg.api === 'describeProducers') return reply(describeProducers(this.replicas, msg));
        return this.host.handleTxnRequest(msg, reply);
    }
  }

  /** A consumer's Fetch: its fetch session (KIP-227) decides what is read and what is answered. */
  private clientFetch(req: ClientFetchRequest, reply: (r: ClientFetchResponse) => void): void {
    const ctx = this.clientSessions.newContext(req);
    if (ctx.kind === 'error') return reply(this.clientSessions.respond(ctx, { partitions: [] }));
    const read = ctx.kind === 'incremental' ? { ...req, partitions: [], sessionView: ctx.view } : ctx.partitions === req.partitions ? req : { ...req, partitions: ctx.partitions };
    this.purgatory.clientFetch(read, (res) => reply(this.clientSessions.respond(ctx, res)));
  }

  /**
   * Metadata from this broker's image. With auto-creation allowed (the request's flag and
   * `auto.create.topics.enable`) and named topics, each missing topic a client may create is
   * created first and answered with the creation's outcome, as Kafka's AutoTopicCreationManager
   * reported it when the broker could reach the controller: LEADER_NOT_AVAILABLE once created
   * (or created by someone else meanwhile) until this broker's metadata holds it, the
   * controller's refusal otherwise (INVALID_REPLICATION_FACTOR with fewer live brokers than
   * `default.replication.factor`). Every topic (v1+ null) never creates anything.
   */
  private metadata(req: ClientMetadataRequest, reply: (res: ClientMetadataResponse) => void): void {
    const answer = metadataAnswer(this.host.image, req.topics);
    const creator = req.autoCreate;
    if (!creator || req.topics === null || !this.host.brokerConfig().autoCreateTopicsEnable) return reply(answer);
    const missing = new Set(answer.topics.filter((t) => t.error === 'UNKNOWN_TOPIC_OR_PARTITION' && isAutoCreatable(t.name)).map((t) => t.name));
    if (missing.size === 0) return reply(answer);
    const outcomes = new Map<string, AutoCreateOutcome>();
    for (const name of missing) {
      this.host.autoTopics.create(name, { api: 'Metadata', clientId: creator.clientId }, (o) => {
        outcomes.set(name, o);
        if (outcomes.size < missing.size) return;
        const now = metadataAnswer(this.host.image, req.topics);
        for (const t of now.topics) {
          const o = t.error === 'UNKNOWN_TOPIC_OR_PARTITION' ? outcomes.get(t.name) : undefined;
          if (o) t.error = o.error === 'NONE' || o.error === 'TOPIC_ALREADY_EXISTS' ? 'LEADER_NOT_AVAILABLE' : o.error;
        }
        reply(now);
      });
    }
  }

  /**
   * InitProducerId: with a transactional id its transaction coordinator answers (this broker must
   * be it); without, an idempotent producer gets a new producer id at epoch 0 (Kafka gives a
   * non-transactional producer a fresh id each time). A producer id without an epoch, or the
   * reverse, is INVALID_REQUEST.
   */
  private initProducerId(req: ClientInitProducerIdRequest, reply: (res: ClientInitProducerIdResponse) => void): void {
    if (req.transactionalId !== null) return this.host.txnInitProducerId(req, reply);
    if (((req.producerId ?? -1) === -1) !== ((req.producerEpoch ?? -1) === -1)) return reply({ error: 'INVALID_REQUEST', producerId: -1, producerEpoch: -1 });
    this.host.generateProducerId((a) => reply(a.error === 'NONE' ? { error: 'NONE', producerId: a.producerId, producerEpoch: 0 } : { error: a.error, producerId: -1, producerEpoch: -1 }));
  }

  /** Verify a transactional request's partitions with its coordinator (KIP-890), then append. */
  private produce(req: ClientProduceRequest, reply: (res: ClientProduceReply) => void): void {
    verifyTransactionalProduce(this.host, this.replicas, req.transactionalId, req.partitions, (verdicts) => this.append(req, verdicts, reply));
  }

  /** Append each partition's batch on this leader; answer once every partition has its outcome. */
  private append(req: ClientProduceRequest, verdicts: readonly Verdict[], reply: (res: ClientProduceReply) => void): void {
    const acks = req.acks;
    const results: ClientProducePartitionResponse[] = new Array(req.partitions.length);
    let pending = req.partitions.length;
    const finish = (): void => {
      if (acks !== 0) return reply({ kind: 'response', partitions: results });
      const refused = results.find((r) => r.error !== 'NONE');
      reply(refused ? { kind: 'close-connection', error: refused.error } : { kind: 'no-response' });
    };
    if (pending === 0) return finish();
    req.partitions.forEach((entry, i) => {
      const { topic: name, partition } = entry;
      const settle = (r: ClientProducePartitionResponse): void => {
        results[i] = r;
        if (--pending === 0) finish();
      };
      const fail = (error: KafkaErrorName, message?: string): void =>
        settle({ topic: name, partition, error, ...(message ? { message } : {}), baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1 });
      if (acks !== 0 && acks !== 1 && acks !== -1) return fail('INVALID_REQUIRED_ACKS');
      if (isInternalTopic(name)) return fail('INVALID_TOPIC_EXCEPTION', `Cannot append to internal topic ${name}`);
      const found = this.replicas.leaderReplica(name, partition, -1, false);
      if (!found.ok) return fail(found.error, found.error === 'NOT_LEADER_OR_FOLLOWER' ? `Broker ${this.host.brokerId} is not the leader of ${name}-${partition}` : undefined);
      const p = found.replica;
      const verdict = verdicts[i]!;
      if (!verdict.ok) return fail(verdict.error, verdict.message);
      const append = (respond: (o: ProduceOutcome) => void): void =>
        'wire' in entry ? p.appendClientBatchAsLeader(entry.wire, req.apiVersion ?? 8, acks, req.timeoutMs, respond, verdict.guard) : p.appendAsLeader(entry.records, acks, req.timeoutMs, respond, entry.compression);
      append((o) => {
        const appended = o.leaderEpoch !== undefined;
        const logAppendTime = appended && this.host.topicConfig(p.topicId).messageTimestampType === 'LogAppendTime';
        settle({
          topic: name,
          partition,
          error: o.errorCode,
          ...(o.errorMessage ? { message: o.errorMessage } : {}),
          baseOffset: o.baseOffset,
          logAppendTimeMs: logAppendTime ? o.appendTimeMs! : -1,
          logStartOffset: p.log.logStartOffset,
          ...(appended ? { leaderEpoch: o.leaderEpoch, appendTimeMs: o.appendTimeMs } : {}),
          ...(o.recordErrors ? { recordErrors: o.recordErrors } : {}),
        });
      });
    });
  }

  private listOffsets(req: ClientListOffsetsRequest): ClientListOffsetsResponse {
    return {
      partitions: req.partitions.map(({ topic, partition, timestamp, currentLeaderEpoch }) => {
        const found = this.replicas.leaderReplica(topic, partition, currentLeaderEpoch, true);
        if (!found.ok) return { topic, partition, error: found.error, timestamp: -1, offset: -1, leaderEpoch: -1 };
        const lso = req.isolationLevel === 'read_committed' ? this.replicas.lastStableOffsetOrOffline(found.replica) : undefined;
        if (lso === null) return { topic, partition, error: 'KAFKA_STORAGE_ERROR' as const, timestamp: -1, offset: -1, leaderEpoch: -1 };
        return { topic, partition, ...offsetForTimestamp(found.replica, timestamp, (from, until, max) => this.replicas.readOrOffline(found.replica, from, until, max), lso) };
      }),
    };
  }

  private offsetForLeaderEpoch(req: ClientOffsetForLeaderEpochRequest): ClientOffsetForLeaderEpochResponse {
    return {
      partitions: req.partitions.map(({ topic, partition, currentLeaderEpoch, leaderEpoch }) => {
        const found = this.replicas.leaderReplica(topic, partition, currentLeaderEpoch, true);
        if (!found.ok) return { topic, partition, error: found.error, leaderEpoch: -1, endOffset: -1 };
        const log = found.replica.log;
        const end = log.epochCache.endOffsetFor(leaderEpoch, log.logEndOffset);
        return { topic, partition, error: 'NONE', leaderEpoch: end.epoch, endOffset: end.endOffset };
      }),
    };
  }
}
