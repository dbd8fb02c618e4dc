/**
 * A cluster's topology as a twin copies it, read through the contract (so the same code reads an
 * external cluster through the Kafka driver and a local one through the embedded driver), and the
 * drift between two topologies: what a refresh would change on the twin, in the order it applies.
 *
 * What is read, and what is left out:
 * - brokers with ids, racks and whether they run; the first running broker's static configs
 *   (server.properties as DescribeConfigs reports it) without the broker's identity and listeners
 *   and without anything sensitive;
 * - the cluster-wide dynamic broker configs (the default resource); finalized feature levels;
 * - every topic but Kafka's internal ones (`__consumer_offsets`, `__transaction_state`, … are made by
 *   the twin's own coordinators), with its overrides and each partition's replicas, leader, log
 *   start offset, high watermark and size;
 * - ACL bindings (none when the cluster runs no authorizer) and client quotas; never SCRAM users.
 */
import type { ClusterMethodName, MethodResult } from '../../api/contract.js';
import { isRetriable, KafkaError } from '../../api/errors.js';
import type { AclBindingView, ClientQuotaView, QuotaEntityView } from '../../api/security-contract.js';
import type { TwinChangeView } from '../../api/twin-contract.js';
import { brokerConfigDef } from '../../core/configs/catalogue.js';
import { validateConfigs } from '../../core/configs/resolve.js';

/** One contract call on a connection: its value, or a thrown KafkaError. */
export type TwinCall = <M extends ClusterMethodName>(method: M, input: Record<string, unknown>) => Promise<MethodResult<M>>;

export interface TwinPartition {
  replicas: number[];
  leader: number;
  logStartOffset: number;
  highWatermark: number;
  sizeBytes: number;
}

export interface TwinTopic {
  configs: Record<string, string>;
  partitions: TwinPartition[];
}

export interface TwinTopology {
  clusterId: string;
  brokers: Map<number, { rack: string | null; up: boolean }>;
  staticConfigs: Record<string, string>;
  clusterConfigs: Record<string, string>;
  features: Map<string, number>;
  topics: Map<string, TwinTopic>;
  /** Null: the cluster runs no authorizer (SECURITY_DISABLED). */
  acls: AclBindingView[] | null;
  quotas: ClientQuotaView[];
  /** What was left out and why. */
  notes: string[];
}

/** A broker's own settings: a twin's brokers get theirs from the twin's host. */
const PER_BROKER = /^(broker\.id|node\.id|broker\.rack|listeners|advertised\.listeners|listener\.security\.protocol\.map|inter\.broker\.listener\.name|controller\.listener\.names|controller\.quorum\.(voters|bootstrap\.servers)|process\.roles|log\.dirs?|metadata\.log\.dir|ssl\..*|sasl\..*|listener\.name\..*)$/;

const isInternalTopic = (name: string): boolean => name.startsWith('__');

/** The static configs a twin may start with: known to the catalogue, valid, not a secret, not a broker's own. */
function copyableStatic(entries: { name: string; value: string; source: string; sensitive: boolean }[], notes: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of entries) {
    if (e.source !== 'STATIC_BROKER_CONFIG' || e.sensitive || PER_BROKER.test(e.name) || brokerConfigDef(e.name) === undefined) continue;
    try {
      validateConfigs('broker', { [e.name]: e.value }, { static: true });
      out[e.name] = e.value;
    } catch (error) {
      notes.push(`Static broker config ${e.name}=${e.value} not copied: ${(error as Error).message}`);
    }
  }
  return out;
}

/** How long a read of a topology retries a retriable error (a broker whose metadata trails a change just made). */
export const READ_RETRY_MS = 15_000;

/**
 * `call`, retried while it fails with a retriable Kafka error: an external cluster's brokers learn
 * a change (a reassignment, a new leader) one after another, and a read in between is refused
 * with NOT_LEADER_OR_FOLLOWER where a moment later it succeeds.
 */
export function retrying(call: TwinCall, withinMs = READ_RETRY_MS): TwinCall {
  return async (method, input) => {
    const deadline = Date.now() + withinMs;
    for (;;) {
      try {
        return await call(method, input);
      } catch (e) {
        if (!(e instanceof KafkaError) || !isRetriable(e.code) || Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
}

/** Read everything a twin copies from the cluster `call` reaches (retriable errors retried for a while). */
export async function readTopology(direct: TwinCall): Promise<TwinTopology> {
  const call = retrying(direct);
  const notes: string[] = [];
  // The whole cluster in one read (over the Kafka protocol: one Metadata, the configs of every
  // topic, one DescribeLogDirs per broker, ListOffsets per leader), before the small reads: at
  // 100,000 partitions a whole-cluster read takes the source's brokers tens of seconds.
  const { cluster, topics: topicViews } = await call('cluster.snapshot', {});
  const brokers = cluster.brokers;
  const [features, clusterEntries] = await Promise.all([call('cluster.features', {}), call('configs.describe', { resource: { type: 'broker', name: '' } })]);
  const up = brokers.filter((b) => b.state === 'running');
  const staticEntries = up[0] ? await call('configs.describe', { resource: { type: 'broker', name: String(up[0].id) } }) : [];
  const acls = await call('acls.list', {}).then(
    (l) => (l.authorizer.enabled ? l.bindings : null),
    (e: unknown) => {
      notes.push(`ACLs not read: ${(e as Error).message}`);
      return null;
    },
  );
  const quotas = await call('quotas.list', {}).catch((e: unknown) => {
    notes.push(`Client quotas not read: ${(e as Error).message}`);
    return [];
  });
  const topics = new Map<string, TwinTopic>();
  for (const t of topicViews) {
    if (isInternalTopic(t.name)) {
      notes.push(`Internal topic ${t.name} not copied: the twin's own coordinators make it.`);
      continue;
    }
    topics.set(t.name, {
      configs: { ...t.configs },
      partitions: [...t.partitions]
        .sort((a, b) => a.partition - b.partition)
        .map((p) => ({ replicas: [...p.replicas], leader: p.leader, logStartOffset: Math.max(0, p.logStartOffset), highWatermark: Math.max(0, p.highWatermark), sizeBytes: p.sizeBytes ?? 0 })),
    });
  }
  const clusterConfigs: Record<string, string> = {};
  for (const e of clusterEntries) if (e.source === 'DYNAMIC_DEFAULT_BROKER_CONFIG' && !e.sensitive) clusterConfigs[e.name] = e.value;
  return {
    clusterId: cluster.clusterId,
    brokers: new Map(brokers.map((b) => [b.id, { rack: b.rack, up: b.state === 'running' }])),
    staticConfigs: copyableStatic(staticEntries, notes),
    clusterConfigs,
    features: new Map(features.filter((f) => f.finalizedLevel > 0).map((f) => [f.name, f.finalizedLevel])),
    topics,
    acls,
    quotas,
    notes,
  };
}

export const aclKey = (b: AclBindingView): string => `${b.permissionType} ${b.principal} ${b.operation} from ${b.host} on ${b.resourceType}:${b.patternType}:${b.resourceName}`;
export const quotaKey = (e: QuotaEntityView): string => JSON.stringify(Object.entries(e).sort(([a], [b]) => (a < b ? -1 : 1)));
const show = (r: Record<string, unknown> | undefined): string => (r === undefined ? '' : JSON.stringify(Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1)))));
const replicasText = (r: readonly number[]): string => `[${r.join(',')}]`;
const offsetsText = (p: TwinPartition | undefined): string => (p ? `${p.logStartOffset}..${p.highWatermark}` : '');

function configDrift(kind: 'cluster-config' | 'topic-config', where: string, twin: Record<string, string>, source: Record<string, string>, out: TwinChangeView[]): void {
  for (const name of [...new Set([...Object.keys(twin), ...Object.keys(source)])].sort()) {
    if (twin[name] !== source[name]) out.push({ kind, subject: where ? `${where} ${name}` : name, twin: twin[name] ?? '', source: source[name] ?? '' });
  }
}

/**
 * What differs from `twin` to `source`, in the order a refresh applies it: brokers first (new
 * replicas need them), configs and features, topics and their partitions, replicas, leaders,
 * offsets, then security; brokers the source has down are stopped last. `offsetScale` (≤ 1) is the
 * fraction of the source's offsets the record budget allows.
 */
export function topologyDrift(twin: TwinTopology, source: TwinTopology, offsetScale = 1): TwinChangeView[] {
  const out: TwinChangeView[] = [];
  for (const [id, b] of [...source.brokers].sort(([a], [c]) => a - c)) {
    const t = twin.brokers.get(id);
    if (!t) out.push({ kind: 'broker-added', subject: `broker ${id}`, twin: '', source: `rack ${b.rack ?? 'none'}` });
    else if (t.rack !== b.rack) out.push({ kind: 'broker-rack', subject: `broker ${id}`, twin: t.rack ?? '', source: b.rack ?? '', notApplied: "A broker's rack is read at start (broker.rack): create a new twin to take it." });
  }
  const staticTwin = Object.fromEntries(Object.entries(twin.staticConfigs).filter(([k]) => k in source.staticConfigs));
  if (show(staticTwin) !== show(source.staticConfigs)) {
    out.push({ kind: 'static-configs', subject: 'server.properties', twin: show(staticTwin), source: show(source.staticConfigs), notApplied: 'Static broker configs are read at start: create a new twin to take them.' });
  }
  configDrift('cluster-config', '', twin.clusterConfigs, source.clusterConfigs, out);
  for (const [name, level] of [...source.features].sort()) {
    if ((twin.features.get(name) ?? 0) !== level) out.push({ kind: 'feature', subject: name, twin: String(twin.features.get(name) ?? 0), source: String(level) });
  }
  for (const [name, s] of [...source.topics].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const t = twin.topics.get(name);
    if (!t) {
      out.push({ kind: 'topic-added', subject: `topic ${name}`, twin: '', source: `${s.partitions.length} partitions ${show(s.configs)}` });
      continue;
    }
    if (s.partitions.length > t.partitions.length) out.push({ kind: 'partitions-added', subject: `topic ${name}`, twin: String(t.partitions.length), source: String(s.partitions.length) });
    configDrift('topic-config', `topic ${name}`, t.configs, s.configs, out);
  }
  for (const [name, s] of source.topics) {
    const t = twin.topics.get(name);
    s.partitions.forEach((p, i) => {
      const tp = t?.partitions[i];
      if (tp && replicasText(tp.replicas) !== replicasText(p.replicas)) out.push({ kind: 'assignment', subject: `${name}-${i}`, twin: replicasText(tp.replicas), source: replicasText(p.replicas) });
    });
  }
  for (const [name, s] of source.topics) {
    const t = twin.topics.get(name);
    s.partitions.forEach((p, i) => {
      const tp = t?.partitions[i];
      if (p.leader >= 0 && tp?.leader !== p.leader && (tp !== undefined || p.leader !== p.replicas[0])) out.push({ kind: 'leader', subject: `${name}-${i}`, twin: String(tp?.leader ?? ''), source: String(p.leader) });
    });
  }
  for (const [name, s] of source.topics) {
    const t = twin.topics.get(name);
    s.partitions.forEach((p, i) => {
      const want = scaledOffsets(p, offsetScale);
      const tp = t?.partitions[i];
      if ((tp?.highWatermark ?? 0) !== want.highWatermark || (tp?.logStartOffset ?? 0) !== want.logStartOffset) {
        const wantText = offsetsText({ ...p, ...want });
        out.push({
          kind: 'offsets',
          subject: `${name}-${i}`,
          twin: offsetsText(tp),
          source: offsetScale < 1 ? `${offsetsText(p)} (scaled to ${wantText})` : wantText,
          ...(tp && (tp.highWatermark > want.highWatermark || tp.logStartOffset > want.logStartOffset) ? { notApplied: "A twin's offsets only move forward: its records cannot be taken back." } : {}),
        });
      }
    });
  }
  for (const name of [...twin.topics.keys()].sort()) if (!source.topics.has(name)) out.push({ kind: 'topic-removed', subject: `topic ${name}`, twin: `${twin.topics.get(name)!.partitions.length} partitions`, source: '' });
  if (source.acls !== null) {
    const have = new Set((twin.acls ?? []).map(aclKey));
    const want = new Set(source.acls.map(aclKey));
    for (const k of [...want].sort()) if (!have.has(k)) out.push({ kind: 'acl-added', subject: k, twin: '', source: 'present', ...(twin.acls === null ? { notApplied: 'The twin runs no authorizer (authorizer.class.name is read at start): create a new twin.' } : {}) });
    for (const k of [...have].sort()) if (!want.has(k)) out.push({ kind: 'acl-removed', subject: k, twin: 'present', source: '' });
  }
  const twinQuotas = new Map(twin.quotas.map((q) => [quotaKey(q.entity), q.values]));
  const sourceQuotas = new Map(source.quotas.map((q) => [quotaKey(q.entity), q.values]));
  for (const key of [...new Set([...twinQuotas.keys(), ...sourceQuotas.keys()])].sort()) {
    if (show(twinQuotas.get(key)) !== show(sourceQuotas.get(key))) out.push({ kind: 'quota', subject: key, twin: show(twinQuotas.get(key)), source: show(sourceQuotas.get(key)) });
  }
  for (const [id, b] of [...source.brokers].sort(([a], [c]) => a - c)) {
    const t = twin.brokers.get(id);
    if (!b.up && (t?.up ?? true)) out.push({ kind: 'broker-down', subject: `broker ${id}`, twin: t ? 'running' : '', source: 'down' });
    if (b.up && t && !t.up) out.push({ kind: 'broker-up', subject: `broker ${id}`, twin: 'down', source: 'running' });
  }
  for (const [id, t] of [...twin.brokers].sort(([a], [c]) => a - c)) {
    if (!source.brokers.has(id)) out.push({ kind: 'broker-removed', subject: `broker ${id}`, twin: `rack ${t.rack ?? 'none'}`, source: '' });
  }
  return out;
}

/** The offsets a twin's partition takes under a record budget: the source's, scaled by `scale` (≤ 1). */
export function scaledOffsets(p: Pick<TwinPartition, 'logStartOffset' | 'highWatermark'>, scale: number): { logStartOffset: number; highWatermark: number } {
  if (scale >= 1) return { logStartOffset: p.logStartOffset, highWatermark: p.highWatermark };
  const highWatermark = Math.floor(p.highWatermark * scale);
  return { logStartOffset: Math.min(highWatermark, Math.floor(p.logStartOffset * scale)), highWatermark };
}

/** The scale of the offsets a twin holding at most `budget` synthetic records takes (1: the source's own). */
export function offsetScaleFor(source: TwinTopology, budget: number): number {
  let needed = 0;
  for (const t of source.topics.values()) for (const p of t.partitions) needed += p.highWatermark;
  return needed <= budget ? 1 : budget / needed;
}
