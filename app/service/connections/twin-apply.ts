/**
 * Apply a twin's drift (twin-topology.ts) to the twin through the contract, as an operator would
 * with Kafka's admin requests: brokers added, configs and features set, topics created with the
 * source's assignments, partitions added, replicas reassigned, leaders moved, synthetic records
 * written up to the source's offsets (`records.fill`: every leader's partitions in one Produce
 * request a round), topics deleted, ACLs and quotas set, brokers the source has down stopped. A
 * leader is moved the only way Kafka offers: a reassignment that puts it first (same replicas, so
 * nothing is copied), a preferred election, and the source's order back.
 *
 * Changes marked `notApplied` are left as they are. A change Kafka refuses fails the call with
 * Kafka's error, naming the change.
 */
import { KafkaError } from '../../api/errors.js';
import type { TwinChangeView } from '../../api/twin-contract.js';
import { aclKey, quotaKey, scaledOffsets, type TwinCall, type TwinTopology } from './twin-topology.js';

/** Partitions one `records.fill` or `records.delete` call names: bounds each call's size. */
const PARTITIONS_PER_CALL = 10_000;
/** A synthetic record's value is at most this long (a record's share of the source's bytes, capped). */
export const MAX_SYNTHETIC_VALUE_BYTES = 4_096;
/** Per record, what a v2 batch stores beside the value (lengths, deltas, attributes) with a null key. */
const RECORD_OVERHEAD_BYTES = 8;

export interface ApplyOptions {
  /** The fraction of the source's offsets the record budget allows. */
  offsetScale: number;
  /** How long (real ms) reassignments may take to finish before the refresh gives up (default 120 000). */
  waitMs?: number;
  /** Told the topics are being created, then `filled` of `partitions` after each `records.fill` call. */
  progress?: (step: 'creating-topics' | 'filling', filled: number, partitions: number) => void;
}

const partitionOf = (subject: string): { topic: string; partition: number } => {
  const cut = subject.lastIndexOf('-');
  return { topic: subject.slice(0, cut), partition: Number(subject.slice(cut + 1)) };
};
const topicOf = (subject: string): string => subject.slice('topic '.length);
const brokerOf = (subject: string): number => Number(subject.slice('broker '.length));

async function waitForReassignments(call: TwinCall, waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const moving = await call('reassignments.list', {});
    if (moving.length === 0) return;
    if (Date.now() > deadline) throw new KafkaError('REQUEST_TIMED_OUT', `The twin's reassignments did not finish in ${waitMs} ms (${moving.length} still moving).`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function reassign(call: TwinCall, partitions: { topic: string; partition: number; replicas: number[] }[], waitMs: number): Promise<void> {
  if (partitions.length === 0) return;
  const results = await call('reassignments.execute', { partitions });
  const failed = results.find((r) => r.errorCode !== 'NONE');
  if (failed) throw new KafkaError(failed.errorCode, `Reassigning ${failed.topic}-${failed.partition} on the twin failed: ${failed.message ?? failed.errorCode}`);
  await waitForReassignments(call, waitMs);
}

/** Apply `changes` to the twin `call` reaches; returns the synthetic records written. */
export async function applyDrift(call: TwinCall, changes: readonly TwinChangeView[], source: TwinTopology, twin: TwinTopology, options: ApplyOptions): Promise<number> {
  const waitMs = options.waitMs ?? 120_000;
  options.progress?.('creating-topics', 0, 0);
  const todo = changes.filter((c) => c.notApplied === undefined);
  const of = (kind: TwinChangeView['kind']): TwinChangeView[] => todo.filter((c) => c.kind === kind);

  for (const c of of('broker-added')) await call('brokers.add', { id: brokerOf(c.subject), rack: source.brokers.get(brokerOf(c.subject))!.rack });
  const cluster = of('cluster-config');
  if (cluster.length > 0) await call('configs.alter', { resource: { type: 'broker', name: '' }, set: Object.fromEntries(cluster.map((c) => [c.subject, c.source === '' ? null : c.source])) });
  const features = of('feature');
  if (features.length > 0) {
    const updates = features.map((c) => ({ feature: c.subject, maxVersionLevel: Number(c.source), ...(Number(c.source) < Number(c.twin) ? { upgradeType: 'safe-downgrade' as const } : {}) }));
    const refused = (await call('cluster.updateFeatures', { updates })).find((r) => r.errorCode !== 'NONE');
    if (refused) throw new KafkaError(refused.errorCode, `The twin refused feature ${refused.feature}: ${refused.message ?? refused.errorCode}`);
  }
  // Topics in a few CreateTopics requests, each of up to PARTITIONS_PER_CALL partitions.
  const added = of('topic-added').map((c) => ({ name: topicOf(c.subject), ...source.topics.get(topicOf(c.subject))! }));
  for (let i = 0; i < added.length; ) {
    let partitions = 0;
    let j = i;
    while (j < added.length && (j === i || partitions + added[j]!.partitions.length <= PARTITIONS_PER_CALL)) partitions += added[j++]!.partitions.length;
    const refused = (await call('topics.createMany', { topics: added.slice(i, j).map((t) => ({ name: t.name, assignments: t.partitions.map((p) => p.replicas), configs: t.configs })) })).find((r) => r.errorCode !== 'NONE');
    if (refused) throw new KafkaError(refused.errorCode, `Creating topic ${refused.name} on the twin failed: ${refused.message ?? refused.errorCode}`);
    i = j;
  }
  for (const c of of('partitions-added')) {
    const name = topicOf(c.subject);
    await call('partitions.add', { topic: name, totalCount: Number(c.source), assignments: source.topics.get(name)!.partitions.slice(Number(c.twin)).map((p) => p.replicas) });
  }
  const topicConfigs = new Map<string, Record<string, string | null>>();
  for (const c of of('topic-config')) {
    const [, topic, name] = /^topic (.+) (\S+)$/.exec(c.subject)!;
    topicConfigs.set(topic!, { ...topicConfigs.get(topic!), [name!]: c.source === '' ? null : c.source });
  }
  for (const [topic, set] of topicConfigs) await call('configs.alter', { resource: { type: 'topic', name: topic }, set });

  const replicasOf = (subject: string): number[] => {
    const { topic, partition } = partitionOf(subject);
    return source.topics.get(topic)!.partitions[partition]!.replicas;
  };
  await reassign(call, of('assignment').map((c) => ({ ...partitionOf(c.subject), replicas: replicasOf(c.subject) })), waitMs);

  const leaders = of('leader').filter((c) => replicasOf(c.subject)[0] !== Number(c.source) && replicasOf(c.subject).includes(Number(c.source)));
  const preferred = of('leader').filter((c) => replicasOf(c.subject)[0] === Number(c.source));
  await reassign(call, leaders.map((c) => ({ ...partitionOf(c.subject), replicas: [Number(c.source), ...replicasOf(c.subject).filter((r) => r !== Number(c.source))] })), waitMs);
  const toElect = [...leaders, ...preferred].map((c) => partitionOf(c.subject));
  if (toElect.length > 0) {
    const refused = (await call('leaders.elect', { type: 'preferred', partitions: toElect })).find((r) => r.errorCode !== 'NONE' && r.errorCode !== 'ELECTION_NOT_NEEDED');
    if (refused) throw new KafkaError(refused.errorCode, `Electing ${refused.topic}-${refused.partition}'s leader on the twin failed.`);
  }
  await reassign(call, leaders.map((c) => ({ ...partitionOf(c.subject), replicas: replicasOf(c.subject) })), waitMs);

  let written = 0;
  const fills: { topic: string; partition: number; records: number; valueBytes: number }[] = [];
  const starts: { topic: string; partition: number; offset: number }[] = [];
  for (const c of of('offsets')) {
    const { topic, partition } = partitionOf(c.subject);
    const s = source.topics.get(topic)!.partitions[partition]!;
    const want = scaledOffsets(s, options.offsetScale);
    const have = twin.topics.get(topic)?.partitions[partition] ?? { highWatermark: 0, logStartOffset: 0 };
    const records = Math.max(1, s.highWatermark - s.logStartOffset);
    const valueBytes = Math.min(MAX_SYNTHETIC_VALUE_BYTES, Math.max(0, Math.round(s.sizeBytes / records) - RECORD_OVERHEAD_BYTES));
    if (want.highWatermark > have.highWatermark) fills.push({ topic, partition, records: want.highWatermark - have.highWatermark, valueBytes });
    if (want.logStartOffset > have.logStartOffset) starts.push({ topic, partition, offset: want.logStartOffset });
  }
  // Every partition's records in a few calls: each round one Produce request per leader (records-fill-contract.ts).
  options.progress?.('filling', 0, fills.length);
  for (let i = 0; i < fills.length; i += PARTITIONS_PER_CALL) {
    if (i > 0) options.progress?.('filling', i, fills.length);
    for (const r of await call('records.fill', { partitions: fills.slice(i, i + PARTITIONS_PER_CALL) })) {
      if (r.errorCode !== 'NONE') throw new KafkaError(r.errorCode, `Writing ${r.topic}-${r.partition}'s synthetic records on the twin failed: ${r.message ?? r.errorCode}`);
      written += r.records;
    }
  }
  options.progress?.('filling', fills.length, fills.length);
  for (let i = 0; i < starts.length; i += PARTITIONS_PER_CALL) {
    const failed = (await call('records.delete', { partitions: starts.slice(i, i + PARTITIONS_PER_CALL) })).find((r) => r.errorCode !== 'NONE');
    if (failed) throw new KafkaError(failed.errorCode, `Moving ${failed.topic}-${failed.partition}'s log start on the twin failed.`);
  }

  const removed = of('topic-removed').map((c) => topicOf(c.subject));
  if (removed.length > 0) {
    const failed = (await call('topics.deleteMany', { names: removed })).find((r) => r.errorCode !== 'NONE');
    if (failed) throw new KafkaError(failed.errorCode, `Deleting topic ${failed.name} on the twin failed: ${failed.message ?? failed.errorCode}`);
  }

  const sourceAcls = new Map((source.acls ?? []).map((b) => [aclKey(b), b]));
  const twinAcls = new Map((twin.acls ?? []).map((b) => [aclKey(b), b]));
  const bindings = of('acl-added').map((c) => sourceAcls.get(c.subject)!);
  if (bindings.length > 0) {
    const failed = (await call('acls.create', { bindings })).find((r) => r.errorCode !== 'NONE');
    if (failed) throw new KafkaError(failed.errorCode, `Creating the ACL ${aclKey(failed.binding)} on the twin failed: ${failed.errorMessage ?? failed.errorCode}`);
  }
  const filters = of('acl-removed').map((c) => twinAcls.get(c.subject)!);
  if (filters.length > 0) await call('acls.delete', { filters });

  const sourceQuotas = new Map(source.quotas.map((q) => [quotaKey(q.entity), q]));
  const twinQuotas = new Map(twin.quotas.map((q) => [quotaKey(q.entity), q]));
  for (const c of of('quota')) {
    const want = sourceQuotas.get(c.subject);
    const have = twinQuotas.get(c.subject);
    const entity = (want ?? have)!.entity;
    const set: Record<string, number | null> = {};
    for (const k of Object.keys(have?.values ?? {})) set[k] = null;
    for (const [k, v] of Object.entries(want?.values ?? {})) if (v !== undefined) set[k] = v;
    await call('quotas.alter', { entity, set });
  }

  for (const c of of('broker-up')) await call('brokers.start', { brokerId: brokerOf(c.subject) });
  for (const c of of('broker-down')) await call('brokers.kill', { brokerId: brokerOf(c.subject) });
  for (const c of of('broker-removed')) {
    const id = brokerOf(c.subject);
    if (twin.brokers.get(id)?.up !== false) await call('brokers.stop', { brokerId: id });
    await call('brokers.remove', { brokerId: id });
  }
  return written;
}
