/**
 * What `kafka-reassign-partitions.sh` adds around the AlterPartitionReassignments API
 * (docs/semantics.md#reassignment-kip-455, #replication-throttles-kip-73; Kafka's
 * `ReassignPartitionsCommand`):
 * its input checks, the replication throttles it derives from the moves, and the lines --verify
 * prints. Pure functions; the engine applies the results through the controller.
 *
 * Invariants:
 * - A move's sources are the partition's replicas before any ongoing reassignment
 *   (replicas − adding); its destinations are the target brokers that are not sources.
 * - Leader throttles list every source, follower throttles every destination, as `p:b`
 *   entries sorted as strings (Kafka builds them in a TreeSet<String>).
 * - The moves of reassignments already running are included, so executing a second
 *   reassignment never drops the throttles of the first.
 */
import { KafkaError } from '../../api/errors.js';

export interface ReassignmentTarget {
  topic: string;
  partition: number;
  replicas: number[];
}

export interface OngoingReassignment {
  topic: string;
  partition: number;
  replicas: number[];
  addingReplicas: number[];
}

export interface PartitionMove {
  sources: number[];
  destinations: number[];
}

/** topic → partition → move. */
export type MoveMap = Map<string, Map<number, PartitionMove>>;

export const TOPIC_THROTTLE_CONFIGS = ['leader.replication.throttled.replicas', 'follower.replication.throttled.replicas'] as const;
export const BROKER_THROTTLE_CONFIGS = ['leader.replication.throttled.rate', 'follower.replication.throttled.rate'] as const;

const tp = (t: { topic: string; partition: number }): string => `${t.topic}-${t.partition}`;

function duplicates<T>(items: readonly T[]): T[] {
  const seen = new Set<T>();
  const dup = new Set<T>();
  for (const x of items) (seen.has(x) ? dup : seen).add(x);
  return [...dup];
}

/**
 * The tool's checks, in its order, before it touches the cluster. Each failure refuses the whole
 * request (the tool exits without executing anything); the tool's AdminCommandFailedException
 * carries no Kafka code, so it is reported as INVALID_REPLICA_ASSIGNMENT, the code the API itself
 * gives the same mistakes (KIP-455).
 */
export function validateReassignmentTargets(targets: readonly ReassignmentTarget[], liveBrokers: ReadonlySet<number>): void {
  const fail = (message: string): never => {
    throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', message);
  };
  if (targets.length === 0) fail('Partition reassignment list cannot be empty');
  if (targets.some((t) => t.replicas.length === 0)) fail('Partition replica list cannot be empty');
  const dupParts = duplicates(targets.map(tp));
  if (dupParts.length > 0) fail(`Partition reassignment contains duplicate topic partitions: ${dupParts.join(',')}`);
  const dupEntries = targets
    .map((t) => ({ name: tp(t), dup: duplicates(t.replicas) }))
    .filter((d) => d.dup.length > 0)
    .map((d) => `${d.name} contains multiple entries for ${d.dup.join(',')}`);
  if (dupEntries.length > 0) fail(`Partition replica lists may not contain duplicate entries: ${dupEntries.join('. ')}`);
  // describeCluster lists live (unfenced) brokers; the tool reports the first unknown id.
  const unknown = [...new Set(targets.flatMap((t) => t.replicas))].sort((a, b) => a - b).find((b) => !liveBrokers.has(b));
  if (unknown !== undefined) fail(`Unknown broker id ${unknown}`);
}

/** Kafka's calculateProposedMoveMap: the running reassignments plus the proposed ones. */
export function proposedMoveMap(
  ongoing: readonly OngoingReassignment[],
  targets: readonly ReassignmentTarget[],
  currentReplicas: (topic: string, partition: number) => readonly number[],
): MoveMap {
  const moves: MoveMap = new Map();
  const movesOf = (topic: string): Map<number, PartitionMove> => {
    let m = moves.get(topic);
    if (!m) moves.set(topic, (m = new Map()));
    return m;
  };
  for (const r of ongoing) {
    movesOf(r.topic).set(r.partition, { sources: r.replicas.filter((b) => !r.addingReplicas.includes(b)), destinations: [...r.addingReplicas] });
  }
  for (const t of targets) {
    const partMoves = movesOf(t.topic);
    const sources = partMoves.get(t.partition)?.sources ?? [...currentReplicas(t.topic, t.partition)];
    partMoves.set(t.partition, { sources, destinations: t.replicas.filter((b) => !sources.includes(b)) });
  }
  return moves;
}

function throttleEntries(moves: MoveMap, pick: (m: PartitionMove) => number[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [topic, partMoves] of moves) {
    const entries = new Set<string>();
    for (const [p, m] of partMoves) for (const b of pick(m)) entries.add(`${p}:${b}`);
    out.set(topic, [...entries].sort());
  }
  return out;
}

/** `leader.replication.throttled.replicas` per topic: every source replica. */
export function leaderThrottles(moves: MoveMap): Map<string, string[]> {
  return throttleEntries(moves, (m) => m.sources);
}

/** `follower.replication.throttled.replicas` per topic: every destination replica. */
export function followerThrottles(moves: MoveMap): Map<string, string[]> {
  return throttleEntries(moves, (m) => m.destinations.filter((d) => !m.sources.includes(d)));
}

/** Every broker that is a source or destination of some move (both rates are set on each). */
export function reassigningBrokers(moves: MoveMap): number[] {
  const ids = new Set<number>();
  for (const partMoves of moves.values()) for (const m of partMoves.values()) for (const b of [...m.sources, ...m.destinations]) ids.add(b);
  return [...ids].sort((a, b) => a - b);
}

/**
 * A throttled-replicas value that keeps what is already listed and adds `entries`. Kafka's tool
 * overwrites the list with the entries of every running move; merging is the same for the
 * tool's own entries and also keeps ones set by hand. `*` already covers everything.
 */
export function mergeThrottledReplicas(existing: string | undefined, entries: readonly string[]): string {
  const current = (existing ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (current.includes('*')) return '*';
  return [...new Set([...current, ...entries])].sort().join(',');
}

export type VerifyStatus = 'completed' | 'in-progress' | 'mismatch';

/** One line of `--verify` output (PartitionReassignmentState → partitionReassignmentStatesToString). */
export function verifyLine(
  target: ReassignmentTarget,
  ongoing: boolean,
  currentReplicas: readonly number[],
): { status: VerifyStatus; message: string } {
  const name = tp(target);
  if (ongoing) return { status: 'in-progress', message: `Reassignment of partition ${name} is still in progress.` };
  const same = currentReplicas.length === target.replicas.length && currentReplicas.every((b, i) => b === target.replicas[i]);
  if (same) return { status: 'completed', message: `Reassignment of partition ${name} is completed.` };
  return {
    status: 'mismatch',
    message: `There is no active reassignment of partition ${name}, but replica set is ${currentReplicas.join(',')} rather than ${target.replicas.join(',')}.`,
  };
}
