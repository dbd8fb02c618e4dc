/**
 * Exhaustive exploration of one transaction's end (txn-world.ts): breadth-first over every
 * sequence of moves up to a depth, each path replayed from a fresh cluster, states deduplicated by
 * fingerprint, as explorer.ts does for replication.
 *
 * Invariants, after every move:
 * 1. No aborted record is visible: a read_committed consumer of each partition's leader (Kafka's
 *    Fetcher over the leader's log below its LSO, with the aborted transactions it lists) never
 *    gets a record of the transaction when its result is ABORT, nor any record twice; the LSO is
 *    at most the HW.
 * 2. No committed transaction is partly visible once its markers are written: from the state
 *    reached, the cluster is settled (dead brokers restarted, every message delivered in order,
 *    time let pass, and EndTxn sent again while unanswered, as a Kafka client retries it) until
 *    the coordinator holds the transaction complete and no transaction holds either partition
 *    (LSO = HW); then read_committed sees the record of every partition exactly once when the
 *    result is COMMIT and none when it is ABORT. Checked on each state the first time it is
 *    reached (the settling ends that replay; the next path replays afresh).
 */
import { createHash } from 'node:crypto';
import { TRANSACTION_STATE_TOPIC } from '../../core/txn/host.js';
import { markerOf } from '../../core/log/control-records.js';
import { keptByReadCommitted } from '../fault-run/read-committed.js';
import { TOPIC, TXN_ID, TxnWorld, VALUES, type TxnScope } from './txn-world.js';

export interface TxnExploreOptions extends TxnScope {
  depth: number;
  maxStates?: number;
}

export interface TxnFinding {
  trace: string[];
  messages: string[];
}

export interface TxnExploreResult {
  states: number;
  transitions: number;
  depthReached: number;
  complete: boolean;
  violations: TxnFinding[];
  /** States settled with the coordinator failed over (the loaded coordinator completed the transaction). */
  failovers: number;
}

const SETTLE_STEPS = 600;
const decoder = new TextDecoder();

/** Invariant 1 in the current state. */
export function checkVisible(world: TxnWorld): string[] {
  const out: string[] = [];
  VALUES.forEach((_, partition) => {
    const r = world.leaderReplica(partition);
    if (!r) return;
    const lso = r.log.lastStableOffset;
    if (lso > r.log.highWatermark) out.push(`${TOPIC}-${partition}: LSO ${lso} above the HW ${r.log.highWatermark}`);
    const values = visible(world, partition);
    if (new Set(values).size !== values.length) out.push(`${TOPIC}-${partition}: read_committed sees [${values.join(', ')}], a record twice`);
    if (world.scope.result === 'ABORT' && values.length > 0) out.push(`${TOPIC}-${partition}: read_committed sees [${values.join(', ')}] of the aborted transaction`);
  });
  return out;
}

function visible(world: TxnWorld, partition: number): string[] {
  const r = world.leaderReplica(partition);
  if (!r) return [];
  const lso = r.log.lastStableOffset;
  return keptByReadCommitted(world.batches(partition), r.log.abortedTransactions(0, lso), 0, lso).values;
}

/** Invariant 2: settle from here and check the outcome. Ends this world's usefulness. */
export function settleAndCheck(world: TxnWorld): { messages: string[]; failedOver: boolean } {
  const { sim, port } = world;
  for (const id of world.ids) if (!sim.internals.brokers.get(id)!.isAlive) sim.engine.startBroker(id);
  const done = (): boolean => {
    const held = world.held();
    if (typeof held === 'string' || !held.state.startsWith('Complete')) return false;
    return VALUES.every((_, p) => {
      const r = world.leaderReplica(p);
      return r !== undefined && r.log.lastStableOffset === r.log.highWatermark && r.log.highWatermark === r.log.logEndOffset;
    });
  };
  for (let step = 0; step < SETTLE_STEPS && !done(); step++) {
    const next = port.all()[0];
    if (next) port.deliver(next);
    else {
      // EndTxn answered with an error (or lost): the client asks the coordinator of the moment again.
      const coordinator = sim.engine.metadata.topicsByName.get(TRANSACTION_STATE_TOPIC)?.partitions.get(0)?.leader ?? -1;
      if (world.endTxnAnswer !== null && world.endTxnAnswer !== 'NONE' && coordinator >= 0) {
        world.endTxnAnswer = null;
        sim.engine.txnRequest(
          coordinator,
          { api: 'endTxn', apiVersion: 3, transactionalId: TXN_ID, producerId: world.producerId, producerEpoch: world.producerEpoch, committed: world.scope.result === 'COMMIT' },
          (a) => (world.endTxnAnswer = a.kind === 'response' ? a.response.errorCode : a.kind),
          30_000,
        );
      }
      sim.scheduler.advance(1_000);
    }
    sim.scheduler.flush();
  }
  const held = world.held();
  const failedOver = sim.eventsOf('txnCoordinator.loaded').some((e) => e.brokerId === 2 && e.completing.includes(TXN_ID));
  if (!done()) {
    const lsos = VALUES.map((_, p) => {
      const r = world.leaderReplica(p);
      return r ? `${TOPIC}-${p} LSO ${r.log.lastStableOffset} HW ${r.log.highWatermark}` : `${TOPIC}-${p} no leader`;
    });
    return { messages: [`never settled: coordinator ${typeof held === 'string' ? held : held.state}, ${lsos.join(', ')}; visible ${VALUES.map((_, p) => `[${visible(world, p).join(', ')}]`).join(' ')}`], failedOver };
  }
  const messages: string[] = [];
  const expected = world.scope.result === 'COMMIT' ? 'CompleteCommit' : 'CompleteAbort';
  if (typeof held !== 'string' && held.state !== expected) messages.push(`the coordinator ended the transaction ${held.state}, asked ${world.scope.result}`);
  VALUES.forEach((value, p) => {
    const seen = visible(world, p);
    const want = world.scope.result === 'COMMIT' ? [value] : [];
    if (JSON.stringify(seen) !== JSON.stringify(want)) messages.push(`after the markers ${TOPIC}-${p} shows read_committed [${seen.join(', ')}], the ${world.scope.result === 'COMMIT' ? 'committed' : 'aborted'} transaction wants [${want.join(', ')}]`);
  });
  return { messages, failedOver };
}

/** The state's fingerprint: the cluster, the coordinator, the messages and timers in flight, relative to now. */
export function txnFingerprint(world: TxnWorld): string {
  const { sim, port } = world;
  const now = sim.now;
  const image = sim.engine.metadata;
  const parts: unknown[] = [];
  for (const [topic, partition] of [[TRANSACTION_STATE_TOPIC, 0], [TOPIC, 0], [TOPIC, 1]] as const) {
    const s = image.topicsByName.get(topic)!.partitions.get(partition)!;
    parts.push([topic, partition, s.leader, s.leaderEpoch, [...s.isr].sort()]);
  }
  parts.push([...image.brokers.values()].map((b) => [b.id, b.fenced, b.brokerEpoch]));
  for (const id of world.ids) {
    const b = sim.internals.brokers.get(id)!;
    const replicas = b.isAlive
      ? [[TRANSACTION_STATE_TOPIC, 0], [TOPIC, 0], [TOPIC, 1]].map(([topic, partition]) => {
          const p = b.partitionFor(topic as string, partition as number);
          if (!p) return null;
          const batches = p.log.read(p.log.logStartOffset, p.log.logEndOffset, Number.MAX_SAFE_INTEGER);
          return [p.role, p.leaderEpoch, p.log.logEndOffset, p.log.highWatermark, batches.map((x) => `${x.baseOffset}:${x.producer?.producerId ?? -1}:${markerOf(x)?.type ?? x.records.map((r) => (r.value ? decoder.decode(r.value).length : 0)).join('+')}`)];
        })
      : null;
    parts.push([id, b.process, b.brokerEpoch, replicas]);
  }
  parts.push(JSON.stringify(world.held()));
  parts.push(port.all().map((d) => [d.label, JSON.stringify(d.delivery.payload, (k, v: unknown) => (v instanceof Uint8Array ? v.length : v))]));
  parts.push(sim.scheduler.dueTimes().map((t) => t - now).sort((a, b) => a - b));
  parts.push([world.faultsUsed, world.endTxnAnswer]);
  return createHash('sha1').update(JSON.stringify(parts)).digest('base64');
}

/** Replay `trace` on a fresh cluster, checking invariant 1 after each move. */
export function replayTxn(scope: TxnScope, trace: readonly string[]): { world: TxnWorld; messages: string[]; failedAt: number } {
  const world = new TxnWorld(scope);
  const first = checkVisible(world);
  if (first.length > 0) return { world, messages: first, failedAt: 0 };
  for (const [i, move] of trace.entries()) {
    world.apply(move);
    const messages = checkVisible(world);
    if (messages.length > 0) return { world, messages, failedAt: i };
  }
  return { world, messages: [], failedAt: -1 };
}

export function exploreTxn(options: TxnExploreOptions): TxnExploreResult {
  const seen = new Set<string>();
  const result: TxnExploreResult = { states: 0, transitions: 0, depthReached: 0, complete: true, violations: [], failovers: 0 };
  const visit = (trace: string[]): string[] | null => {
    const { world, messages, failedAt } = replayTxn(options, trace);
    if (failedAt >= 0) {
      result.violations.push({ trace: trace.slice(0, failedAt + 1), messages });
      return null;
    }
    const key = txnFingerprint(world);
    if (seen.has(key)) return null;
    seen.add(key);
    result.states++;
    const moves = world.moves();
    const settled = settleAndCheck(world);
    if (settled.failedOver) result.failovers++;
    if (settled.messages.length > 0) result.violations.push({ trace, messages: settled.messages });
    return moves;
  };
  let frontier: { path: string[]; moves: string[] }[] = [{ path: [], moves: visit([]) ?? [] }];
  for (let depth = 1; depth <= options.depth && frontier.length > 0; depth++) {
    const next: { path: string[]; moves: string[] }[] = [];
    for (const { path, moves } of frontier) {
      for (const move of moves) {
        const trace = [...path, move];
        result.transitions++;
        const more = visit(trace);
        if (more) next.push({ path: trace, moves: more });
        if (options.maxStates !== undefined && result.states >= options.maxStates) return { ...result, complete: false };
      }
    }
    result.depthReached = depth;
    frontier = next;
  }
  return result;
}
