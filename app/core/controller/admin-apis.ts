/**
 * The controller's admin APIs (KRaft's ReplicationControlManager and ConfigurationControlManager
 * as clients reach them): CreateTopics, DeleteTopics, CreatePartitions, IncrementalAlterConfigs,
 * ElectLeaders (KIP-460) and AlterPartitionReassignments / ListPartitionReassignments (KIP-455).
 *
 * Invariants: every request is validated as Kafka validates it, with Kafka's error codes and
 * messages, before anything is committed; a change is one batch of metadata records committed by
 * the controller (validateOnly commits nothing); new partitions start with the live replicas of
 * their assignment as ISR and the first of them as leader, at epoch 0.
 */
import { KafkaError, type KafkaErrorName } from '../../api/errors.js';
import type { EngineEvent } from '../../api/events.js';
import { validateConfigs } from '../configs/resolve.js';
import { CLUSTER_DEFAULT, type MetadataImage, type TopicImage } from '../metadata/image.js';
import type { CommittedRecord, MetadataRecord, PartitionState, TopicOrigin } from '../metadata/records.js';
import { placeReplicas, type PlacementStrategy } from '../placement/index.js';
import type { Random } from '../random.js';
import type { BrokerRuntimeConfig } from '../runtime-config.js';
import { assertNoCollision, validateTopicName } from '../topic-names.js';
import { reassignmentRequest } from './change-context.js';
import { buildPartitionChange, changeReason, type ChangeContext, type ChangeRequest, type ElectionMode } from './partition-change.js';

export interface CreateTopicInput {
  name: string;
  partitions?: number;
  replicationFactor?: number;
  configs?: Record<string, string>;
  assignments?: number[][];
  validateOnly?: boolean;
  /** The client request that creates it (auto-creation); absent for an admin's CreateTopics. */
  createdBy?: TopicOrigin;
}

export interface AlterConfigsOptions {
  /** Keep broker config names the catalogue does not know (Kafka's AlterConfigs on a BROKER resource does). */
  customBrokerKeys?: boolean;
}

export interface ElectionResult {
  topic: string;
  partition: number;
  leader: number;
  errorCode: KafkaErrorName;
  message?: string;
}

export interface ReassignmentResult {
  topic: string;
  partition: number;
  errorCode: KafkaErrorName;
  message?: string;
}

/** What the admin APIs need from the active controller. */
export interface AdminHost {
  readonly image: MetadataImage;
  readonly random: Random;
  readonly placement: PlacementStrategy;
  now(): number;
  config(): BrokerRuntimeConfig;
  requireActive(): void;
  commit(records: MetadataRecord[]): CommittedRecord[];
  emit(event: EngineEvent): void;
  /** Who may lead a partition (and whether unclean election is allowed) for a change. */
  changeContext(topic: TopicImage, state: PartitionState, excluded?: number): ChangeContext;
  topicUncleanAllowed(topic: TopicImage): boolean;
  /** What a min.insync.replicas change means for the ELR (features.ts): refusals, and the ELRs it clears. */
  minIsrChange(resourceType: 'topic' | 'broker', resourceName: string, set: Readonly<Record<string, string | null>>): MetadataRecord[];
}

export class ControllerAdmin {
  constructor(private readonly host: AdminHost) {}


  /**
   * A topic id as Kafka's Uuid.randomUuid prints it: 16 random bytes in URL-safe base64 without
   * padding (22 characters, the last carrying only 2 bits, so one of A, Q, g, w), never starting
   * with '-' (Kafka draws again so the id is not read as a command-line option). Exactly 22 draws,
   * so a seeded cluster's later random choices do not depend on the ids it made.
   */
  private newTopicId(): string {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    let id = alphabet[this.host.random.nextInt(64) % 62]!; // a first '-' or '_' becomes 'A' or 'B': one draw, never a leading '-'
    for (let i = 1; i < 21; i++) id += alphabet[this.host.random.nextInt(64)];
    return id + alphabet[this.host.random.nextInt(64) & 0b110000];
  }

  /** CreateTopics. Returns the partitions it would create (validateOnly) or created. */
  createTopic(input: CreateTopicInput): { topicId: string; partitions: PartitionState[] } {
    this.host.requireActive();
    validateTopicName(input.name);
    if (this.host.image.topicsByName.has(input.name)) throw new KafkaError('TOPIC_ALREADY_EXISTS', `Topic '${input.name}' already exists.`);
    assertNoCollision(input.name, this.host.image.topicsByName.keys());
    const configs = input.configs ?? {};
    validateConfigs('topic', configs);
    const cfg = this.host.config();
    let assignment: number[][];
    if (input.assignments) {
      const np = input.partitions ?? -1;
      const rf = input.replicationFactor ?? -1;
      if (rf !== -1) throw new KafkaError('INVALID_REQUEST', 'A manual partition assignment was specified, but replication factor was not set to -1.');
      if (np !== -1) throw new KafkaError('INVALID_REQUEST', 'A manual partition assignment was specified, but numPartitions was not set to -1.');
      assignment = this.validateManualAssignment(input.assignments, 0);
    } else {
      const np = input.partitions === undefined || input.partitions === -1 ? cfg.numPartitions : input.partitions;
      const rf = input.replicationFactor === undefined || input.replicationFactor === -1 ? cfg.defaultReplicationFactor : input.replicationFactor;
      if (!Number.isInteger(np) || np <= 0) throw new KafkaError('INVALID_PARTITIONS', 'Number of partitions was set to an invalid non-positive value.');
      if (!Number.isInteger(rf) || rf <= 0) throw new KafkaError('INVALID_REPLICATION_FACTOR', 'Replication factor must be larger than 0, or -1 to use the default value.');
      assignment = this.place(np, rf, 0);
    }
    const topicId = this.newTopicId();
    const partitions = assignment.map((replicas, p) => this.initialState(topicId, p, replicas));
    if (input.validateOnly) return { topicId, partitions };
    const records: MetadataRecord[] = [{ type: 'Topic', name: input.name, topicId, ...(input.createdBy ? { createdBy: input.createdBy } : {}) }];
    for (const [name, value] of Object.entries(configs)) records.push({ type: 'Config', resourceType: 'topic', resourceName: input.name, name, value });
    for (const state of partitions) records.push({ type: 'Partition', state });
    this.host.commit(records);
    this.host.emit({
      type: 'topic.created',
      atMs: this.host.now(),
      topic: input.name,
      topicId,
      partitions: partitions.length,
      replicationFactor: partitions[0]?.replicas.length ?? 0,
      ...(input.createdBy ? { createdBy: { api: input.createdBy.api, clientId: input.createdBy.clientId, brokerId: input.createdBy.brokerId } } : {}),
    });
    return { topicId, partitions };
  }

  private initialState(topicId: string, partition: number, replicas: number[]): PartitionState {
    const isr = replicas.filter((b) => this.host.image.isActive(b));
    return {
      topicId,
      partition,
      replicas: [...replicas],
      isr,
      leader: isr[0] ?? -1,
      leaderEpoch: 0,
      partitionEpoch: 0,
      addingReplicas: [],
      removingReplicas: [],
      leaderRecoveryState: 'RECOVERED',
    };
  }

  private place(numPartitions: number, replicationFactor: number, startPartitionId: number): number[][] {
    return placeReplicas({
      brokers: [...this.host.image.brokers.values()].map((b) => ({ id: b.id, rack: b.rack, fenced: b.fenced, inControlledShutdown: b.inControlledShutdown })),
      numPartitions,
      replicationFactor,
      startPartitionId,
      strategy: this.host.placement,
      random: this.host.random,
    });
  }

  /** `expectedRf`: CreatePartitions requires the topic's current RF (Kafka passes OptionalInt.of(rf)). */
  private validateManualAssignment(assignments: number[][], firstPartition: number, expectedRf?: number): number[][] {
    const rf = expectedRf ?? assignments[0]?.length ?? 0;
    assignments.forEach((replicas, i) => {
      const p = firstPartition + i;
      if (replicas.length === 0) throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `The manual partition assignment includes an empty replica list for partition ${p}.`);
      if (replicas.length !== rf) throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `The manual partition assignment includes a partition with ${replicas.length} replica(s), but this is not consistent with previous partitions, which have ${rf} replica(s).`);
      if (new Set(replicas).size !== replicas.length) throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `The manual partition assignment includes the broker ${replicas.find((b, j) => replicas.indexOf(b) !== j)} more than once.`);
      for (const b of replicas) {
        if (!this.host.image.brokers.has(b)) throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `The manual partition assignment includes broker ${b}, but no such broker is registered.`);
      }
      if (!replicas.some((b) => this.host.image.isActive(b))) {
        throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `All brokers specified in the manual partition assignment for partition ${p} are fenced or in controlled shutdown.`);
      }
    });
    if (assignments.length === 0) throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', 'The manual partition assignment is empty.');
    return assignments.map((r) => [...r]);
  }

  deleteTopic(name: string): void {
    this.host.requireActive();
    const topic = this.host.image.topicsByName.get(name);
    if (!topic) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `This server does not host this topic: ${name}`);
    if (!this.host.config().deleteTopicEnable) throw new KafkaError('TOPIC_DELETION_DISABLED', 'Topic deletion is disabled (delete.topic.enable=false).');
    this.host.commit([{ type: 'RemoveTopic', topicId: topic.topicId }]);
  }

  /** CreatePartitions: grow a topic to `totalCount` partitions. */
  createPartitions(name: string, totalCount: number, assignments?: number[][], validateOnly = false): PartitionState[] {
    this.host.requireActive();
    const topic = this.host.image.topicsByName.get(name);
    if (!topic) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `This server does not host this topic: ${name}`);
    const current = topic.partitions.size;
    if (totalCount === current) throw new KafkaError('INVALID_PARTITIONS', `Topic already has ${current} partition(s).`);
    if (totalCount < current) throw new KafkaError('INVALID_PARTITIONS', `The topic ${name} currently has ${current} partition(s); ${totalCount} would not be an increase.`);
    const added = totalCount - current;
    let assignment: number[][];
    if (assignments) {
      if (assignments.length !== added) throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `Attempted to add ${added} additional partition(s), but only ${assignments.length} assignment(s) were specified.`);
      assignment = this.validateManualAssignment(assignments, current, topic.partitions.get(0)?.replicas.length);
    } else {
      const rf = topic.partitions.get(0)?.replicas.length ?? 1;
      assignment = this.place(added, rf, current);
    }
    const states = assignment.map((replicas, i) => this.initialState(topic.topicId, current + i, replicas));
    if (validateOnly) return states;
    this.host.commit(states.map((state) => ({ type: 'Partition', state })));
    this.host.emit({ type: 'partitions.added', atMs: this.host.now(), topic: name, previousCount: current, totalCount });
    return states;
  }

  /** IncrementalAlterConfigs for one resource (broker name '' = the cluster-wide default). */
  alterConfigs(resourceType: 'topic' | 'broker', resourceName: string, set: Record<string, string | null>, validateOnly = false, options: AlterConfigsOptions = {}): void {
    this.host.requireActive();
    if (resourceType === 'topic') {
      if (!this.host.image.topicsByName.has(resourceName)) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic ${resourceName} does not exist.`);
    } else if (resourceName !== CLUSTER_DEFAULT && !this.host.image.brokers.has(Number(resourceName))) {
      throw new KafkaError('BROKER_NOT_FOUND', `Broker ${resourceName} is not registered.`);
    }
    validateConfigs(resourceType, set, options);
    const elrChanges = this.host.minIsrChange(resourceType, resourceName, set);
    if (validateOnly) return;
    this.host.commit([...Object.entries(set).map(([name, value]): MetadataRecord => ({ type: 'Config', resourceType, resourceName, name, value })), ...elrChanges]);
  }

  /** ElectLeaders (KIP-460). `partitions` undefined = every partition. */
  electLeaders(type: 'preferred' | 'unclean', partitions: { topic: string; partition: number }[] | undefined, validateOnly = false): ElectionResult[] {
    this.host.requireActive();
    const targets = partitions ?? [...this.host.image.allPartitions()].map(({ topic, state }) => ({ topic: topic.name, partition: state.partition }));
    const results: ElectionResult[] = [];
    const changes: MetadataRecord[] = [];
    for (const { topic: name, partition } of targets) {
      const topic = this.host.image.topicsByName.get(name);
      const state = topic?.partitions.get(partition);
      if (!topic || !state) {
        results.push({ topic: name, partition, leader: -1, errorCode: 'UNKNOWN_TOPIC_OR_PARTITION', message: `Partition ${name}-${partition} does not exist.` });
        continue;
      }
      const mode: ElectionMode = type;
      if (type === 'preferred' && state.leader === state.replicas[0]) {
        results.push({ topic: name, partition, leader: state.leader, errorCode: 'ELECTION_NOT_NEEDED', message: 'The preferred replica is already the leader.' });
        continue;
      }
      if (type === 'unclean' && state.leader >= 0) {
        results.push({ topic: name, partition, leader: state.leader, errorCode: 'ELECTION_NOT_NEEDED', message: 'The partition already has a leader.' });
        continue;
      }
      const change = buildPartitionChange(state, { election: mode }, this.host.changeContext(topic, state));
      if (type === 'preferred' && (!change || change.state.leader !== state.replicas[0])) {
        results.push({ topic: name, partition, leader: state.leader, errorCode: 'PREFERRED_LEADER_NOT_AVAILABLE', message: `The preferred leader ${state.replicas[0]} is not in the ISR or not available.` });
        continue;
      }
      if (type === 'unclean' && (!change || change.state.leader < 0)) {
        results.push({ topic: name, partition, leader: -1, errorCode: 'ELIGIBLE_LEADERS_NOT_AVAILABLE', message: 'No replica of this partition is on a live, unfenced broker.' });
        continue;
      }
      const next = change!.state;
      results.push({ topic: name, partition, leader: next.leader, errorCode: 'NONE' });
      changes.push({ type: 'PartitionChange', state: next, reason: changeReason(change!, 'preferred-election'), unclean: change!.unclean });
    }
    if (!validateOnly) this.host.commit(changes);
    return results;
  }

  /** AlterPartitionReassignments (KIP-455): `replicas` null cancels. */
  alterReassignments(items: { topic: string; partition: number; replicas: number[] | null }[]): ReassignmentResult[] {
    this.host.requireActive();
    return items.map(({ topic: name, partition, replicas }) => {
      const topic = this.host.image.topicsByName.get(name);
      const state = topic?.partitions.get(partition);
      const fail = (errorCode: KafkaErrorName, message: string): ReassignmentResult => ({ topic: name, partition, errorCode, message });
      if (!topic || !state) return fail('UNKNOWN_TOPIC_OR_PARTITION', `Partition ${name}-${partition} does not exist.`);
      const request: ChangeRequest | KafkaError = replicas === null ? this.cancelRequest(topic, state) : reassignmentRequest(this.host.image, state, replicas);
      if (request instanceof KafkaError) return fail(request.code as KafkaErrorName, request.message);
      const change = buildPartitionChange(state, request, this.host.changeContext(topic, state));
      if (change) this.host.commit([{ type: 'PartitionChange', state: change.state, reason: replicas === null ? 'reassignment-cancel' : 'reassignment', unclean: change.unclean }]);
      return { topic: name, partition, errorCode: 'NONE' };
    });
  }

  private cancelRequest(topic: TopicImage, state: PartitionState): ChangeRequest | KafkaError {
    if (state.addingReplicas.length === 0 && state.removingReplicas.length === 0) {
      return new KafkaError('NO_REASSIGNMENT_IN_PROGRESS', `No reassignment is in progress for ${topic.name}-${state.partition}.`);
    }
    const replicas = state.replicas.filter((b) => !state.addingReplicas.includes(b));
    let isr = state.isr.filter((b) => !state.addingReplicas.includes(b));
    if (isr.length === 0) {
      if (!this.host.topicUncleanAllowed(topic)) {
        return new KafkaError('INVALID_REPLICA_ASSIGNMENT', 'Cancelling would need an unclean leader election, which this topic does not allow.');
      }
      isr = [replicas[0]!];
    }
    return { targetReplicas: replicas, targetIsr: isr, targetAdding: [], targetRemoving: [] };
  }

  listReassignments(): { topic: string; partition: number; replicas: number[]; addingReplicas: number[]; removingReplicas: number[] }[] {
    const out = [];
    for (const { topic, state } of this.host.image.allPartitions()) {
      if (state.addingReplicas.length + state.removingReplicas.length === 0) continue;
      out.push({ topic: topic.name, partition: state.partition, replicas: [...state.replicas], addingReplicas: [...state.addingReplicas], removingReplicas: [...state.removingReplicas] });
    }
    return out;
  }
}
