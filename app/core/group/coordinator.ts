/**
 * A broker's group coordinator (Kafka's GroupCoordinator with its KafkaApis entry points):
 * FindCoordinator, which any broker answers, and the group APIs, which only the leader of the
 * group's `__consumer_offsets` partition serves. The membership protocol is in membership.ts,
 * the records and loading in group-store.ts; this file routes requests and serves the offset
 * and admin APIs (OffsetCommit, OffsetFetch, ListGroups, DescribeGroups, DeleteGroups,
 * OffsetDelete).
 *
 * Invariants (Kafka's):
 * - FindCoordinator names the live leader of the group's offsets partition, else answers
 *   COORDINATOR_NOT_AVAILABLE; the first FindCoordinator asks the controller to create
 *   `__consumer_offsets`.
 * - A commit is acknowledged once its record is replicated (acks=all); a commit from outside group
 *   management (generation −1, no member id) is accepted only while the group is Empty, and
 *   creates the group if it does not exist.
 * - An offset for a topic or partition that does not exist is refused (UNKNOWN_TOPIC_OR_PARTITION).
 * - Only an Empty group may be deleted (NON_EMPTY_GROUP); OffsetDelete refuses topics an active
 *   consumer group subscribes to (GROUP_SUBSCRIBED_TO_TOPIC).
 */
import type { KafkaErrorName } from '../../api/errors.js';
import { type ClassicGroup, splitTpKey, tpKey } from './group.js';
import { GroupStore, offsetCommitError } from './group-store.js';
import { OFFSETS_TOPIC, type CoordinatorHost } from './host.js';
import { Membership } from './membership.js';
import {
  COORDINATOR_TYPE_GROUP,
  type DescribedGroup,
  type DescribeGroupsResponse,
  type DeleteGroupsResponse,
  type FindCoordinatorRequest,
  type FindCoordinatorResponse,
  type GroupNetworkRequest,
  type ListGroupsRequest,
  type ListGroupsResponse,
  type OffsetCommitRequest,
  type OffsetCommitResponse,
  type OffsetDeleteRequest,
  type OffsetDeleteResponse,
  type OffsetFetchRequest,
  type OffsetFetchResponse,
  type TxnOffsetCommitRequest,
  type TxnOffsetCommitResponse,
} from './messages.js';
import type { OffsetAndMetadata } from './record-codec.js';

const EMPTY = new Uint8Array(0);

export class GroupCoordinator {
  private readonly store: GroupStore;
  private readonly membership: Membership;

  constructor(private readonly host: CoordinatorHost) {
    this.store = new GroupStore(host, { onGroupLoaded: (g) => this.membership.onGroupLoaded(g), onGroupUnloaded: (g) => this.membership.onGroupUnloaded(g) });
    this.membership = new Membership(host, this.store);
  }

  /** The broker process started: serve groups, and check for expired offsets periodically. */
  startup(): void {
    this.store.active = true;
    this.store.startExpiration();
  }

  /** The broker process ended: everything in memory is gone. */
  shutdown(): void {
    this.store.shutdown();
  }

  /** This broker's metadata changed: load or unload offsets partitions whose leadership moved. */
  onMetadata(removedTopics: readonly string[]): void {
    if (!this.store.active) return;
    this.store.reconcileLeadership();
    // Kafka's handleDeletedPartitions: offsets of a deleted topic go at once, without retention.
    if (removedTopics.length > 0) {
      const gone = new Set(removedTopics);
      this.store.cleanup(this.store.groups.values(), (g) => [...g.offsets.keys(), ...g.pendingOffsetCommits.keys()].filter((k) => gone.has(splitTpKey(k).topic)));
    }
  }

  /** One group request from a client; `reply` gets exactly one answer (parked ones later). */
  handle(req: GroupNetworkRequest, reply: (res: unknown) => void): void {
    switch (req.api) {
      case 'findCoordinator':
        return reply(this.findCoordinator(req));
      case 'joinGroup':
        return this.membership.join(req, reply);
      case 'syncGroup':
        return this.membership.sync(req, reply);
      case 'heartbeat':
        return reply(this.membership.heartbeat(req));
      case 'leaveGroup':
        return reply(this.membership.leave(req));
      case 'offsetCommit':
        return this.commitOffsets(req, reply);
      case 'offsetFetch':
        return reply(this.fetchOffsets(req));
      case 'listGroups':
        return reply(this.listGroups(req));
      case 'describeGroups':
        return reply(this.describeGroups(req.groups));
      case 'deleteGroups':
        return reply(this.deleteGroups(req.groups));
      case 'offsetDelete':
        return reply(this.deleteOffsets(req));
      case 'txnOffsetCommit':
        return this.txnCommitOffsets(req, reply);
    }
  }

  /** A producer's COMMIT or ABORT marker is written to these `__consumer_offsets` partitions. */
  onTransactionCompleted(producerId: number, partitions: readonly number[], isCommit: boolean): void {
    this.store.handleTxnCompletion(producerId, new Set(partitions), isCommit);
  }

  // ================================================================ TxnOffsetCommit

  /**
   * Kafka's handleTxnCommitOffsets (KIP-98, KIP-447): a transactional producer commits a group's
   * offsets inside its transaction. The group is created if it does not exist; the group's
   * offsets partition is verified with the transaction coordinator (KIP-890); a member id or
   * generation (v3+) is checked as for OffsetCommit, but a commit without them is allowed even in
   * a group with members (older producers send none).
   */
  private txnCommitOffsets(req: TxnOffsetCommitRequest, reply: (r: TxnOffsetCommitResponse) => void): void {
    const errors = new Map<string, KafkaErrorName>();
    const offsets = new Map<string, OffsetAndMetadata>();
    const now = this.host.scheduler.now();
    for (const t of req.topics) {
      const topic = this.host.image.topicsByName.get(t.name);
      for (const p of t.partitions) {
        const k = tpKey(t.name, p.partition);
        if (!topic || !topic.partitions.has(p.partition)) errors.set(k, 'UNKNOWN_TOPIC_OR_PARTITION');
        else offsets.set(k, { offset: p.offset, leaderEpoch: p.leaderEpoch, metadata: p.metadata ?? '', commitTimestampMs: now, expireTimestampMs: null });
      }
    }
    const respond = (byKey: ReadonlyMap<string, KafkaErrorName>): void =>
      reply({
        topics: req.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => {
            const e = errors.get(tpKey(t.name, p.partition)) ?? byKey.get(tpKey(t.name, p.partition)) ?? 'NONE';
            return { partition: p.partition, errorCode: req.apiVersion < 2 && e === 'COORDINATOR_LOAD_IN_PROGRESS' ? 'COORDINATOR_NOT_AVAILABLE' : e };
          }),
        })),
      });
    const all = (error: KafkaErrorName): Map<string, KafkaErrorName> => new Map([...offsets.keys()].map((k) => [k, error]));
    if (offsets.size === 0) return respond(new Map());
    const status = this.store.validateGroupStatus(req.groupId, false);
    if (status) return respond(all(status));
    const group = this.store.getOrCreate(req.groupId, true)!;
    const producer = { producerId: req.producerId, producerEpoch: req.producerEpoch };
    this.host.verifyTxnPartition(req.transactionalId, producer, this.store.partitionFor(req.groupId), (v) => {
      if (!v.ok) return respond(all(offsetCommitError(v.error)));
      const invalid = this.validateTxnOffsetCommit(group, req);
      if (invalid) return respond(all(invalid));
      this.store.storeTxnOffsets(group, producer, offsets, v.guard, respond);
    });
  }

  private validateTxnOffsetCommit(group: ClassicGroup, req: TxnOffsetCommitRequest): KafkaErrorName | null {
    if (group.is('Dead')) return 'COORDINATOR_NOT_AVAILABLE';
    if (req.generationId < 0 && group.is('Empty')) return null;
    if (req.generationId >= 0 || req.memberId !== '' || req.groupInstanceId !== null) return this.validateOffsetCommit(group, { ...req, api: 'offsetCommit', retentionTimeMs: -1, topics: [] });
    return null;
  }

  // ================================================================ FindCoordinator

  private findCoordinator(req: FindCoordinatorRequest): FindCoordinatorResponse {
    const answer = (key: string, errorCode: KafkaErrorName, nodeId = -1, errorMessage: string | null = null) => ({ key, nodeId, errorCode, errorMessage });
    if (req.keyType !== COORDINATOR_TYPE_GROUP) return { coordinators: req.keys.map((k) => answer(k, 'INVALID_REQUEST', -1, `Unknown coordinator type ${req.keyType}.`)) };
    const image = this.host.image;
    const topic = image.topicsByName.get(OFFSETS_TOPIC);
    if (!topic) {
      this.host.requestOffsetsTopic(req.clientId ?? '');
      return { coordinators: req.keys.map((k) => answer(k, 'COORDINATOR_NOT_AVAILABLE')) };
    }
    return {
      coordinators: req.keys.map((key) => {
        const leader = topic.partitions.get(this.store.partitionFor(key))?.leader ?? -1;
        const broker = image.brokers.get(leader);
        return leader >= 0 && broker && !broker.fenced ? answer(key, 'NONE', leader) : answer(key, 'COORDINATOR_NOT_AVAILABLE');
      }),
    };
  }

  // ================================================================ OffsetCommit

  private commitOffsets(req: OffsetCommitRequest, reply: (r: OffsetCommitResponse) => void): void {
    const errors = new Map<string, KafkaErrorName>();
    const offsets = new Map<string, OffsetAndMetadata>();
    const now = this.host.scheduler.now();
    const expireTimestampMs = req.retentionTimeMs === -1 ? null : now + req.retentionTimeMs;
    for (const t of req.topics) {
      const topic = this.host.image.topicsByName.get(t.name);
      for (const p of t.partitions) {
        const k = tpKey(t.name, p.partition);
        if (!topic || !topic.partitions.has(p.partition)) errors.set(k, 'UNKNOWN_TOPIC_OR_PARTITION');
        else {
          const commitTimestampMs = p.commitTimestampMs === -1 ? now : p.commitTimestampMs;
          offsets.set(k, { offset: p.offset, leaderEpoch: p.leaderEpoch, metadata: p.metadata ?? '', commitTimestampMs, expireTimestampMs });
        }
      }
    }
    const respond = (byKey: ReadonlyMap<string, KafkaErrorName>): void =>
      reply({
        topics: req.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({ partition: p.partition, errorCode: errors.get(tpKey(t.name, p.partition)) ?? byKey.get(tpKey(t.name, p.partition)) ?? 'NONE' })),
        })),
      });
    const all = (error: KafkaErrorName): Map<string, KafkaErrorName> => new Map([...offsets.keys()].map((k) => [k, error]));
    if (offsets.size === 0) return respond(new Map());
    const status = this.store.validateGroupStatus(req.groupId, true);
    if (status) return respond(all(status));
    let group = this.store.groups.get(req.groupId);
    if (!group) {
      // Not relying on Kafka's group management: allowed, and the group is created for the offsets.
      if (req.generationId >= 0) return respond(all('ILLEGAL_GENERATION'));
      group = this.store.getOrCreate(req.groupId, true)!;
    }
    const error = this.validateOffsetCommit(group, req);
    if (error) return respond(all(error));
    switch (group.state) {
      case 'CompletingRebalance':
        // The member has this generation but not yet its assignment: let it finish the rebalance.
        return respond(all('REBALANCE_IN_PROGRESS'));
      case 'Stable':
      case 'PreparingRebalance': {
        const member = group.get(req.memberId);
        this.membership.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
        break;
      }
    }
    this.store.storeOffsets(group, offsets, respond);
  }

  private validateOffsetCommit(group: ClassicGroup, req: OffsetCommitRequest): KafkaErrorName | null {
    if (group.is('Dead')) return 'COORDINATOR_NOT_AVAILABLE';
    if (req.generationId < 0 && group.is('Empty')) return null;
    if (req.generationId >= 0 || req.memberId !== '' || req.groupInstanceId !== null) {
      if (req.groupInstanceId !== null) {
        const current = group.staticMembers.get(req.groupInstanceId);
        if (current === undefined) return 'UNKNOWN_MEMBER_ID';
        if (current !== req.memberId) return 'FENCED_INSTANCE_ID';
      }
      if (!group.has(req.memberId)) return 'UNKNOWN_MEMBER_ID';
      return req.generationId !== group.generationId ? 'ILLEGAL_GENERATION' : null;
    }
    // Only members may commit to a group that has them.
    return group.is('Empty') ? null : 'UNKNOWN_MEMBER_ID';
  }

  // ================================================================ OffsetFetch

  private fetchOffsets(req: OffsetFetchRequest): OffsetFetchResponse {
    const status = this.store.validateGroupStatus(req.groupId, true);
    if (status) return { errorCode: status, topics: [] };
    const keys = req.topics === null ? null : req.topics.flatMap((t) => t.partitions.map((p) => tpKey(t.name, p)));
    const found = this.store.getOffsets(req.groupId, req.requireStable, keys);
    const byTopic = new Map<string, OffsetFetchResponse['topics'][number]>();
    for (const [k, { offset, errorCode }] of found) {
      const { topic, partition } = splitTpKey(k);
      const entry = byTopic.get(topic) ?? { name: topic, partitions: [] };
      byTopic.set(topic, entry);
      entry.partitions.push({ partition, offset: offset?.offset ?? -1, leaderEpoch: offset?.leaderEpoch ?? -1, metadata: offset?.metadata ?? '', errorCode });
    }
    return { errorCode: 'NONE', topics: [...byTopic.values()] };
  }

  // ================================================================ ListGroups, DescribeGroups

  private listGroups(req: ListGroupsRequest): ListGroupsResponse {
    if (!this.store.active) return { errorCode: 'COORDINATOR_NOT_AVAILABLE', groups: [] };
    const states = new Set(req.statesFilter.map((s) => s.toLowerCase()));
    const groups = [...this.store.groups.values()]
      .filter((g) => states.size === 0 || states.has(g.state.toLowerCase()))
      .map((g) => ({ groupId: g.groupId, protocolType: g.protocolType ?? '', state: g.state }));
    return { errorCode: this.store.isLoading ? 'COORDINATOR_LOAD_IN_PROGRESS' : 'NONE', groups };
  }

  private describeGroups(ids: readonly string[]): DescribeGroupsResponse {
    return {
      groups: ids.map((groupId): DescribedGroup => {
        const status = this.store.validateGroupStatus(groupId, true);
        if (status) return { errorCode: status, groupId, state: '', protocolType: '', protocol: '', members: [] };
        const g = this.store.groups.get(groupId);
        if (!g) return { errorCode: 'NONE', groupId, state: 'Dead', protocolType: '', protocol: '', members: [] };
        // Metadata and assignments are shown only once a generation is stable (Kafka's summary).
        const stable = g.is('Stable');
        return {
          errorCode: 'NONE',
          groupId,
          state: g.state,
          protocolType: g.protocolType ?? '',
          protocol: stable ? (g.protocolName ?? '') : '',
          members: [...g.members.values()].map((m) => ({
            memberId: m.memberId,
            groupInstanceId: m.groupInstanceId,
            clientId: m.clientId,
            clientHost: m.clientHost,
            metadata: stable ? m.metadata(g.protocolName ?? '') : EMPTY,
            assignment: stable ? m.assignment : EMPTY,
          })),
        };
      }),
    };
  }

  // ================================================================ DeleteGroups, OffsetDelete

  /** The error for a group this broker has no live copy of. */
  private missingGroupError(groupId: string): KafkaErrorName {
    return this.store.groupNotExists(groupId) ? 'GROUP_ID_NOT_FOUND' : 'NOT_COORDINATOR';
  }

  private deleteGroups(ids: readonly string[]): DeleteGroupsResponse {
    const results = new Map<string, KafkaErrorName>();
    const eligible: ClassicGroup[] = [];
    for (const groupId of ids) {
      const status = this.store.validateGroupStatus(groupId, true);
      const g = status ? undefined : this.store.groups.get(groupId);
      if (status) results.set(groupId, status);
      else if (!g || g.is('Dead')) results.set(groupId, this.missingGroupError(groupId));
      else if (!g.is('Empty')) results.set(groupId, 'NON_EMPTY_GROUP');
      else {
        g.transitionTo('Dead', this.host.scheduler.now(), 'deleted');
        eligible.push(g);
        results.set(groupId, 'NONE');
      }
    }
    this.store.cleanup(eligible, (g) => [...g.offsets.keys()]);
    return { results: ids.map((groupId) => ({ groupId, errorCode: results.get(groupId)! })) };
  }

  private deleteOffsets(req: OffsetDeleteRequest): OffsetDeleteResponse {
    const status = this.store.validateGroupStatus(req.groupId, false);
    if (status) return { errorCode: status, topics: [] };
    const g = this.store.groups.get(req.groupId);
    if (!g || g.is('Dead')) return { errorCode: this.missingGroupError(req.groupId), topics: [] };
    const consuming = g.is('PreparingRebalance') || g.is('CompletingRebalance') || g.is('Stable');
    if (consuming && !g.isConsumerGroup) return { errorCode: 'NON_EMPTY_GROUP', topics: [] };
    const subscribed = (topic: string): boolean => consuming && (g.subscribedTopics?.has(topic) ?? false);
    const deletable = req.topics.filter((t) => !subscribed(t.name)).flatMap((t) => t.partitions.map((p) => tpKey(t.name, p)));
    this.store.cleanup([g], () => deletable);
    return {
      errorCode: 'NONE',
      topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partition: p, errorCode: subscribed(t.name) ? 'GROUP_SUBSCRIBED_TO_TOPIC' : 'NONE' })) })),
    };
  }
}
