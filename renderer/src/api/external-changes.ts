/**
 * Which calls change a cluster, and the confirmation an external cluster's changes wait for
 * (issue 14: "every action on an external cluster that changes it asks for confirmation naming the
 * cluster"). The check sits in the client, under every store, so no page can send a change to a
 * real cluster without the user having said yes to that cluster by name and bootstrap servers;
 * previews (validateOnly, dryRun, the default of groups.resetOffsets and profiles.apply) and reads
 * pass as they are. The dialog itself is the console's (lib/confirm-external.ts installs it);
 * without one installed (tests, scripts) changes pass.
 *
 * One dialog, not two: a page whose own confirmation names the external cluster (its connection
 * name and bootstrap servers, components/ExternalTargetNote.vue) sends through `confirmedOnPage`,
 * and the client asks no second time for the methods it names, on that connection, for calls made
 * synchronously inside it (the store's first call). A call after an await, another method, or a
 * window switched to another connection meanwhile asks again: the pass can only add a dialog,
 * never let a change through unnamed.
 */
import type { MethodName } from '../../../app/api/contract.js';
import { activeConnection, type ActiveConnection } from './active-connection.js';

type Input = Record<string, unknown>;

/** Each changing method and how to say what it does, from its input. */
const CHANGES: Partial<Record<MethodName, (input: Input) => string | null>> = {
  'topics.create': (i) => (i['validateOnly'] ? null : `create topic ${String(i['name'])}`),
  'topics.createMany': (i) => (i['validateOnly'] ? null : `create ${count(i['topics'], 'topic')}`),
  'topics.delete': (i) => `delete topic ${String(i['name'])}`,
  'topics.deleteMany': (i) => `delete ${count(i['names'], 'topic')}`,
  'partitions.add': (i) => (i['validateOnly'] ? null : `grow ${String(i['topic'])} to ${String(i['totalCount'])} partitions`),
  'topics.setReplicationFactor': (i) => (i['validateOnly'] ? null : `change the replication factor of ${String(i['topic'])} to ${String(i['replicationFactor'])}`),
  'configs.alter': (i) => (i['validateOnly'] ? null : configChange((i['set'] as Input | undefined) ?? {}, i['resource'])),
  'reassignments.execute': (i) => `move the replicas of ${count(i['partitions'], 'partition')}`,
  'reassignments.cancel': (i) => (i['partitions'] ? `cancel the reassignment of ${count(i['partitions'], 'partition')}` : 'cancel every reassignment'),
  'leaders.elect': (i) => (i['validateOnly'] ? null : `run ${String(i['type'])} leader elections`),
  'groups.resetOffsets': (i) => (i['dryRun'] === false ? `reset the committed offsets of group ${String(i['groupId'])}` : null),
  'groups.delete': (i) => `delete group ${String(i['groupId'])}`,
  'profiles.apply': (i) => (i['dryRun'] === false ? `apply profile ${String(i['name'])}` : null),
  'schemas.register': (i) => `register a schema in subject ${String(i['subject'])}`,
  'records.delete': (i) => `delete records of ${count(i['partitions'], 'partition')}`,
  'cluster.updateFeatures': (i) => (i['validateOnly'] ? null : `set feature ${((i['updates'] as Input[] | undefined) ?? []).map((u) => `${String(u['feature'])}=${String(u['maxVersionLevel'])}`).join(', ')}`),
  'acls.create': (i) => `create ${count(i['bindings'], 'ACL binding')}`,
  'acls.delete': (i) => (i['dryRun'] ? null : `delete the ACL bindings of ${count(i['filters'], 'filter')}`),
  'users.upsert': (i) => `set the ${String(i['mechanism'])} password of user ${String(i['name'])}`,
  'users.delete': (i) => `delete the SCRAM credentials of user ${String(i['name'])}`,
  'quotas.alter': (i) => (i['validateOnly'] ? null : `change the client quotas of ${quotaEntity(i['entity'])}`),
  'transactions.abort': (i) => (i['dryRun'] === false ? `abort a transaction on ${String(i['topic'])}-${String(i['partition'])} (an ABORT marker)` : null),
  'clients.beginTransaction': (i) => `write ${count(i['records'], 'record')} in a transaction of ${String(i['transactionalId'])}`,
};

function quotaEntity(e: unknown): string {
  const entity = (e ?? {}) as Record<string, string | null>;
  const parts = Object.entries(entity).map(([type, name]) => `${type} ${name === null ? '<default>' : name}`);
  return parts.length > 0 ? parts.join(', ') : 'no entity';
}

function count(list: unknown, noun: string): string {
  const n = Array.isArray(list) ? list.length : 0;
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** "reset" when every key goes back to its inherited value (set null), "change" otherwise. */
function configChange(set: Input, r: unknown): string {
  const keys = Object.keys(set);
  const verb = keys.length > 0 && keys.every((k) => set[k] === null) ? 'reset' : 'change';
  return `${verb} ${keys.join(', ')} of ${resource(r)}`;
}

function resource(r: unknown): string {
  const x = (r ?? {}) as { type?: string; name?: string };
  if (x.type === 'broker') return x.name ? `broker ${x.name}` : 'every broker (cluster-wide default)';
  return `topic ${x.name ?? ''}`;
}

/** What a call changes, in words, or null when it changes nothing (a read, a preview). */
export function describeChange(method: MethodName, input: unknown): string | null {
  const describe = CHANGES[method];
  return describe ? describe((input ?? {}) as Input) : null;
}

/** Ask the user; resolve true to send the change. */
export type ExternalConfirmer = (request: { connection: ActiveConnection; change: string; method: MethodName }) => Promise<boolean>;

let confirmer: ExternalConfirmer | undefined;

export function setExternalConfirmer(c: ExternalConfirmer | undefined): void {
  confirmer = c;
}

/** The external cluster this window changes, for a page's own dialog to name; null otherwise. */
export function externalTarget(): ActiveConnection | null {
  const c = activeConnection();
  return c?.kind === 'external' ? c : null;
}

let pagePass: { connectionId: string; methods: readonly MethodName[] } | null = null;

/**
 * Run `send` after the page's own dialog confirmed a change naming `connection` (the external
 * cluster it showed): calls of `methods` that `send` makes before its first await are not asked
 * again.
 */
export function confirmedOnPage<T>(connection: ActiveConnection | null, methods: readonly MethodName[], send: () => T): T {
  if (!connection) return send();
  const outer = pagePass;
  pagePass = { connectionId: connection.id, methods };
  try {
    return send();
  } finally {
    pagePass = outer;
  }
}

/**
 * Whether to send `method` on `connection`: true at once unless it changes an external cluster.
 * The page's pass is read before the first await, so only calls made inside `confirmedOnPage` see it.
 */
export async function approveChange(connection: ActiveConnection | null, method: MethodName, input: unknown): Promise<boolean> {
  if (!connection || connection.kind !== 'external' || !confirmer) return true;
  if (pagePass && pagePass.connectionId === connection.id && pagePass.methods.includes(method)) return true;
  const change = describeChange(method, input);
  return change === null ? true : confirmer({ connection, change, method });
}
