/**
 * The controller's side of AlterPartition (KIP-497): a leader proposes a new ISR (and leader
 * recovery state) for partitions it leads; each proposal is checked as Kafka's
 * ReplicationControlManager.alterPartition checks it (epochs, leadership, ISR members that are
 * replicas, registered, unfenced, not shutting down and with their replica online) and, when
 * accepted, becomes a PartitionChange record.
 *
 * Invariant: the answers are in the request's order, one per proposal; every accepted change is
 * committed before the answers leave, so a leader never acts on an ISR the log does not hold.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { AlterPartitionBatchResponse, AlterPartitionItem, AlterPartitionRequest, AlterPartitionResponse } from '../broker/messages.js';
import { clonePartition, type MetadataImage, type TopicImage } from '../metadata/image.js';
import type { ChangeReason, CommittedRecord, MetadataRecord, PartitionState } from '../metadata/records.js';
import { buildPartitionChange, type ChangeContext } from './partition-change.js';

/** What the checks need from the controller. */
export interface AlterPartitionContext {
  readonly image: MetadataImage;
  commit(records: MetadataRecord[]): CommittedRecord[];
  changeContext(topic: TopicImage, state: PartitionState): ChangeContext;
}

/**
 * AlterPartition: each proposal is checked against the image in order, and the accepted changes
 * are committed as one record batch. A partition proposed twice in one request is checked
 * against the first proposal's outcome (the batch so far is committed first).
 */
export function handleAlterPartition(c: AlterPartitionContext, req: AlterPartitionRequest): AlterPartitionBatchResponse {
  const reg = c.image.brokers.get(req.brokerId);
  if (!reg || reg.brokerEpoch !== req.brokerEpoch) return { partitions: req.partitions.map(() => ({ error: 'STALE_BROKER_EPOCH' })) };
  const batch: MetadataRecord[] = [];
  const inBatch = new Set<string>();
  const answers = req.partitions.map((item) => {
    const key = `${item.topicId}:${item.partition}`;
    if (inBatch.has(key)) {
      c.commit(batch.splice(0));
      inBatch.clear();
    }
    const { answer, record } = alterOne(c, req.brokerId, item);
    if (record) {
      batch.push(record);
      inBatch.add(key);
    }
    return answer;
  });
  c.commit(batch);
  return { partitions: answers };
}

function alterOne(c: AlterPartitionContext, brokerId: number, req: AlterPartitionItem): { answer: AlterPartitionResponse; record?: MetadataRecord } {
  const fail = (error: KafkaErrorName): { answer: AlterPartitionResponse } => ({ answer: { error } });
  const topic = c.image.topicsById.get(req.topicId);
  const part = topic?.partitions.get(req.partition);
  if (!topic || !part) return fail(topic ? 'UNKNOWN_TOPIC_OR_PARTITION' : 'UNKNOWN_TOPIC_ID');
  if (req.leaderEpoch > part.leaderEpoch || req.partitionEpoch > part.partitionEpoch) return fail('NOT_CONTROLLER');
  if (req.leaderEpoch < part.leaderEpoch) return fail('FENCED_LEADER_EPOCH');
  if (brokerId !== part.leader) return fail('INVALID_REQUEST');
  if (req.partitionEpoch < part.partitionEpoch) return fail('INVALID_UPDATE_VERSION');
  const newIsr = req.newIsr.map((m) => m.brokerId);
  if (!newIsr.includes(part.leader) || newIsr.some((b) => !part.replicas.includes(b))) return fail('INVALID_REQUEST');
  if (req.leaderRecoveryState === 'RECOVERING' && (newIsr.length > 1 || part.leaderRecoveryState === 'RECOVERED')) return fail('INVALID_REQUEST');
  for (const m of req.newIsr) {
    const r = c.image.brokers.get(m.brokerId);
    if (!r || r.fenced || r.inControlledShutdown || (m.brokerEpoch !== -1 && m.brokerEpoch !== r.brokerEpoch)) return fail('INELIGIBLE_REPLICA');
    if (r.offlineReplicas.includes(`${req.topicId}:${req.partition}`)) return fail('INELIGIBLE_REPLICA');
  }
  const reason: ChangeReason = newIsr.length < part.isr.length ? 'isr-shrink' : 'isr-expand';
  const change = buildPartitionChange(part, { targetIsr: newIsr, recoveryState: req.leaderRecoveryState }, c.changeContext(topic, part));
  if (!change) return { answer: { error: 'NONE', state: clonePartition(part) } };
  const record: MetadataRecord = { type: 'PartitionChange', state: change.state, reason: change.reassignmentCompleted ? 'reassignment' : reason, unclean: change.unclean };
  if (change.reassignmentCompleted && change.state.leader !== brokerId) return { answer: { error: 'NEW_LEADER_ELECTED', state: clonePartition(change.state) }, record };
  return { answer: { error: 'NONE', state: clonePartition(change.state) }, record };
}
