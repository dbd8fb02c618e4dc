/**
 * `connections.createTwin` and `connections.refreshTwin` (app/api/twin-contract.ts): read the
 * source connection's topology, start a local cluster with the source's broker ids, racks and
 * static configs, and bring it to the source's state by applying the drift between the two
 * (twin-apply.ts) — a create is a refresh of an empty twin. The twin is saved in the connection
 * list with where it came from before its topology is applied, so a twin that a refused change
 * left half made is still listed and its next refresh goes on from there.
 */
import { resolve } from 'node:path';
import type { EventMap, MethodParsedInput, TwinStep } from '../../api/contract.js';
import type { ConnectionView, TwinOriginView } from '../../api/connections.js';
import { KafkaError } from '../../api/errors.js';
import { TWIN_DEFAULT_RECORD_BUDGET, type TwinResultView } from '../../api/twin-contract.js';
import type { StoredConnection } from '../../config-dir/config-files.js';
import type { ClusterDriver } from '../cluster-driver.js';
import type { NewLocalCluster } from './connections-options.js';
import { applyDrift, type ApplyOptions } from './twin-apply.js';
import { appendJournal, twinEntry } from './twin-journal.js';
import { offsetScaleFor, readTopology, topologyDrift, type TwinCall, type TwinTopology } from './twin-topology.js';

export interface TwinDeps {
  /** Contract calls on connection `id` (opening it on first use). */
  callOn(id: string): TwinCall;
  view(id: string): ConnectionView;
  stored(id: string): StoredConnection;
  list(): StoredConnection[];
  save(list: StoredConnection[]): void;
  checkName(name: string): void;
  newId(): string;
  clustersDir: string;
  openLocal(dataDir: string, how: NewLocalCluster): Promise<ClusterDriver>;
  adopt(id: string, driver: ClusterDriver): ClusterDriver;
  /** Tells the host's listeners how far a twin's making got (`twin.progress`). */
  progress(event: EventMap['twin.progress']): void;
}

const SECRETS_NOTE = 'SCRAM credentials and sensitive configs are never copied: the twin has no users until you add them.';

function budgetNote(source: TwinTopology, budget: number, scale: number): string[] {
  if (scale >= 1) return [];
  let total = 0;
  for (const t of source.topics.values()) for (const p of t.partitions) total += p.highWatermark;
  return [`The source's partitions end at ${total} records in all; the record budget is ${budget}: every offset is scaled by ${scale.toFixed(4)}.`];
}

async function bringUp(
  deps: TwinDeps,
  id: string,
  sourceTopology: TwinTopology,
  budget: number,
  dryRun: boolean,
  progress?: ApplyOptions['progress'],
): Promise<Omit<TwinResultView, 'connection' | 'origin'>> {
  const call = deps.callOn(id);
  const twin = await readTopology(call);
  const scale = offsetScaleFor(sourceTopology, budget);
  const changes = topologyDrift(twin, sourceTopology, scale);
  const recordsWritten = dryRun ? 0 : await applyDrift(call, changes, sourceTopology, twin, { offsetScale: scale, ...(progress ? { progress } : {}) });
  return { changes, notes: [...sourceTopology.notes, SECRETS_NOTE, ...budgetNote(sourceTopology, budget, scale)], recordsWritten, dryRun };
}

function setOrigin(deps: TwinDeps, id: string, origin: TwinOriginView): void {
  deps.save(deps.list().map((c) => (c.id === id ? { ...c, twinOf: origin } : c)));
}

export async function createTwin(deps: TwinDeps, { name, source, recordBudget }: MethodParsedInput<'connections.createTwin'>): Promise<TwinResultView> {
  deps.checkName(name);
  const from = deps.view(source);
  const step = (s: TwinStep, partitionsFilled = 0, partitions = 0): void => deps.progress({ twin: name, source: from.name, step: s, partitionsFilled, partitions });
  step('reading-source');
  const sourceTopology = await readTopology(deps.callOn(source));
  const id = deps.newId();
  const dataDir = resolve(deps.clustersDir, id);
  const brokers = [...sourceTopology.brokers].sort(([a], [b]) => a - b).map(([brokerId, b]) => ({ id: brokerId, rack: b.rack }));
  if (brokers.length === 0) throw new KafkaError('INVALID_REQUEST', `${from.name} lists no broker: there is nothing to copy.`);
  step('starting-brokers');
  deps.adopt(id, await deps.openLocal(dataDir, { brokers, staticConfigs: sourceTopology.staticConfigs }));
  const now = Date.now();
  const origin: TwinOriginView = { sourceId: from.id, sourceName: from.name, sourceClusterId: sourceTopology.clusterId, createdAtMs: now, refreshedAtMs: now };
  deps.save([...deps.list(), { id, name, kind: 'local', dataDir, createdAtMs: now, twinOf: origin }]);
  const done = await bringUp(deps, id, sourceTopology, recordBudget ?? TWIN_DEFAULT_RECORD_BUDGET, false, step);
  const result = { connection: deps.view(id), origin, ...done };
  appendJournal(dataDir, twinEntry('created', result));
  return result;
}

export async function refreshTwin(deps: TwinDeps, { id, dryRun, recordBudget }: MethodParsedInput<'connections.refreshTwin'>): Promise<TwinResultView> {
  const c = deps.stored(id);
  if (!c.twinOf) throw new KafkaError('INVALID_REQUEST', `${c.name} is not a twin: it was not made from another connection.`);
  let from: ConnectionView;
  try {
    from = deps.view(c.twinOf.sourceId);
  } catch {
    throw new KafkaError('CONNECTION_NOT_FOUND', `${c.name} was made from ${c.twinOf.sourceName}, which is no longer in the connection list.`);
  }
  const sourceTopology = await readTopology(deps.callOn(from.id));
  const dry = dryRun ?? true;
  const done = await bringUp(deps, id, sourceTopology, recordBudget ?? TWIN_DEFAULT_RECORD_BUDGET, dry);
  const moved = sourceTopology.clusterId !== c.twinOf.sourceClusterId ? [`${from.name} now reaches cluster ${sourceTopology.clusterId}, not ${c.twinOf.sourceClusterId} the twin was made from.`] : [];
  const origin: TwinOriginView = { ...c.twinOf, sourceName: from.name, ...(dry ? {} : { sourceClusterId: sourceTopology.clusterId, refreshedAtMs: Date.now() }) };
  const result = { connection: deps.view(id), origin, ...done, notes: [...moved, ...done.notes] };
  if (!dry) {
    setOrigin(deps, id, origin);
    if (c.dataDir !== undefined) appendJournal(c.dataDir, twinEntry('refreshed', result));
  }
  return result;
}
