/**
 * Topic auto-creation on one broker (Kafka's AutoTopicCreationManager): a client's request for a
 * topic that does not exist — Metadata with `allow_auto_topic_creation` while
 * `auto.create.topics.enable` is true, or the first FindCoordinator for `__consumer_offsets` —
 * asks the active controller to create it, with what Kafka's `creatableTopic` gives each name:
 * `__consumer_offsets` its `offsets.topic.*` shape and configs, `__transaction_state` its
 * `transaction.state.log.*` ones (the first FindCoordinator for a transactional id), any other topic `num.partitions`
 * and `default.replication.factor` and no configs.
 *
 * Rules: one request per topic name in flight (a second ask for the same name waits on the
 * first, as Kafka's `inflightTopics` keeps it from being sent twice); the answer is the
 * controller's outcome — NONE, TOPIC_ALREADY_EXISTS (someone else created it first), or why it
 * refused (INVALID_REPLICATION_FACTOR when fewer brokers are live than the factor, a name it
 * refuses) — or UNKNOWN_TOPIC_OR_PARTITION when no controller answered (nothing is known to have
 * been created). The topic records which client's request created it (`TopicOrigin`).
 */
import type { KafkaErrorName } from '../../api/errors.js';
import { OFFSETS_TOPIC, offsetsTopicConfigs } from '../group/host.js';
import { TRANSACTION_STATE_TOPIC, transactionTopicConfigs } from '../txn/host.js';
import type { TopicOrigin } from '../metadata/records.js';
import type { BrokerRuntimeConfig } from '../runtime-config.js';
import type { CreateTopicRequest } from './messages.js';

export interface AutoCreateOutcome {
  error: KafkaErrorName;
  message?: string;
}

/** What the manager needs from its broker. */
export interface AutoCreateHost {
  readonly brokerId: number;
  brokerConfig(): BrokerRuntimeConfig;
  now(): number;
  /** Send a CreateTopics to the active controller; `done` gets its answer or UNKNOWN_TOPIC_OR_PARTITION when none came. */
  sendCreateTopic(req: Omit<CreateTopicRequest, 'type'>, done: (outcome: AutoCreateOutcome) => void): void;
}

/** The topics a client's request may create: every valid name but the internal topics this cluster has no coordinator for. */
export function isAutoCreatable(name: string): boolean {
  return !NO_COORDINATOR.has(name);
}

/** Internal topics of coordinators this cluster does not run (share groups): never created here. */
const NO_COORDINATOR = new Set(['__share_group_state']);

export class AutoTopicCreation {
  private readonly inflight = new Map<string, ((o: AutoCreateOutcome) => void)[]>();

  constructor(private readonly host: AutoCreateHost) {}

  /** Ask the controller to create `name` for the client `origin` names; `done` gets the outcome. */
  create(name: string, origin: Pick<TopicOrigin, 'api' | 'clientId'>, done?: (o: AutoCreateOutcome) => void): void {
    const waiting = this.inflight.get(name);
    if (waiting) {
      if (done) waiting.push(done);
      return;
    }
    this.inflight.set(name, done ? [done] : []);
    const createdBy: TopicOrigin = { ...origin, brokerId: this.host.brokerId, atMs: this.host.now() };
    this.host.sendCreateTopic({ ...this.creatableTopic(name), createdBy }, (outcome) => {
      const waiters = this.inflight.get(name) ?? [];
      this.inflight.delete(name);
      for (const w of waiters) w(outcome);
    });
  }

  /** A new incarnation of the broker: nothing is in flight. */
  reset(): void {
    this.inflight.clear();
  }

  private creatableTopic(name: string): Omit<CreateTopicRequest, 'type' | 'createdBy'> {
    const cfg = this.host.brokerConfig();
    if (name === OFFSETS_TOPIC) {
      const g = cfg.groups;
      return { name, partitions: g.offsetsTopicNumPartitions, replicationFactor: g.offsetsTopicReplicationFactor, configs: offsetsTopicConfigs(g.offsetsTopicSegmentBytes) };
    }
    if (name === TRANSACTION_STATE_TOPIC) {
      const t = cfg.txn;
      return { name, partitions: t.topicNumPartitions, replicationFactor: t.topicReplicationFactor, configs: transactionTopicConfigs(t.topicMinIsr, t.topicSegmentBytes) };
    }
    return { name, partitions: cfg.numPartitions, replicationFactor: cfg.defaultReplicationFactor, configs: {} };
  }
}
