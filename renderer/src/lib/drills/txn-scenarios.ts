/**
 * The transaction drills (KIP-98): a transactional producer that dies mid-transaction, a zombie
 * producer fenced by its successor, and the transaction coordinator's broker dying between
 * PrepareCommit and the markers. The producers are real clients of their own (kafkajs, through
 * `clients.*`), and what consumers see is what one Fetch of each isolation level answers.
 * scenarios.ts lists them with the other drills.
 */
import type { DrillScenario, DrillStep } from './runner.js';
import { StepError, value } from './runner.js';
import { restoreEveryBroker, startRoleStep, waitEveryBrokerRunning } from './steps.js';
import {
  beginStep,
  createTxnTopicStep,
  crashStep,
  endStep,
  fetchAs,
  isolationText,
  memoryOf,
  partitionsOf,
  producerName,
  transactionalIdOf,
  txnEvents,
  verifyCommittedStep,
  waitAllStable,
} from './txn-steps.js';

const TIMEOUT_MS = 60_000;
const prelude = (): DrillStep[] => [restoreEveryBroker(), waitEveryBrokerRunning()];

/** A plain producer's record is committed the moment it is written, yet sits behind the LSO like the rest. */
const plainWriteStep: DrillStep = {
  title: 'Another application writes 1 record without a transaction (acks=all)',
  kind: 'action',
  async run(ctx) {
    const v = `${ctx.topic}-plain-1`;
    const r = await value(ctx, 'records.produce', { topic: ctx.topic, partition: 0, acks: 'all', records: [{ value: v }], timeoutMs: 30_000 });
    if (r.errorCode !== 'NONE') throw new StepError(r.errorCode, r.errorMessage ?? r.errorCode);
    memoryOf(ctx).committed.add(v);
    return { status: 'ok', summary: `Acknowledged at offset ${r.baseOffset}: not part of any transaction, so it is committed already.` };
  },
};

const stalledStep: DrillStep = {
  title: 'Read the partition as read_committed and read_uncommitted consumers',
  kind: 'action',
  async run(ctx) {
    const c = await fetchAs(ctx, 0, 'read_committed');
    const u = await fetchAs(ctx, 0, 'read_uncommitted');
    if (c.lastStableOffset >= c.highWatermark) throw new StepError('INVALID_STATE', `The LSO (${c.lastStableOffset}) is not held below the HW (${c.highWatermark}): nothing is open?`);
    const plain = u.records.find((r) => r.value === `${ctx.topic}-plain-1`);
    return {
      status: 'ok',
      summary: `${isolationText(c, u)}. The LSO is held at ${c.lastStableOffset}, the first offset of the dead producer’s transaction: read_committed consumers stall there, even for the plain record at offset ${plain?.offset ?? '?'}, which no transaction holds.`,
    };
  },
};

export const TXN_PRODUCER_DIES: DrillScenario = {
  id: 'txn-producer-dies',
  name: 'A transactional producer dies mid-transaction',
  explanation:
    'A transactional producer writes its records to the partitions first and commits afterwards; until the COMMIT or ABORT marker is written, the partition’s last stable offset (LSO) stays at the first offset of the open transaction, and read_committed consumers read only up to it. Here a producer begins a transaction, writes two records and dies without EndTxn. Its coordinator cannot tell a dead producer from a slow one, so the transaction stays open — and every read_committed consumer of the partition stalls behind it, even for records other applications commit meanwhile — until transaction.timeout.ms (60 s here, the client’s default) has passed and the coordinator’s periodic check (every 10 s) aborts it with a bumped producer epoch. The ABORT marker releases the LSO; read_committed skips the aborted records and delivers the rest.',
  watch:
    'The partition’s HW moves with each write while its LSO stays at the open transaction’s first offset. About a minute of cluster time after the transaction began, transaction.stateChanged shows PrepareAbort (“open longer than its timeout”) then CompleteAbort, and the LSO jumps to the HW.',
  steps: [
    ...prelude(),
    createTxnTopicStep(1),
    beginStep({ instance: 1, count: 3, tag: 'paid', title: 'Producer 1 writes 3 records in a transaction…' }),
    endStep({ instance: 1, commit: true, title: '…and commits' }),
    waitAllStable('Wait for the COMMIT marker: the LSO reaches the HW', 30_000, async (_ctx, views) => `No transaction is open: ${views.join('; ')}. read_committed consumers read the 3 committed records.`),
    beginStep({ instance: 2, count: 2, tag: 'pending', timeoutMs: TIMEOUT_MS, why: `Its transaction.timeout.ms is ${TIMEOUT_MS / 1000} s.` }),
    crashStep(2),
    plainWriteStep,
    stalledStep,
    waitAllStable(`Wait for the coordinator to abort it (transaction.timeout.ms ${TIMEOUT_MS / 1000} s, checked every 10 s)`, 150_000, async (ctx, views) => {
      const m = memoryOf(ctx);
      for (const v of m.open.get(producerName(ctx, 2)) ?? []) m.aborted.add(v);
      m.open.delete(producerName(ctx, 2));
      const abort = (await txnEvents(ctx, m.crashedAtMs ?? 0)).find((e) => e.state === 'PrepareAbort');
      const after = abort && m.crashedAtMs !== undefined ? ` ${Math.round((abort.atMs - m.crashedAtMs) / 1000)} s of cluster time after the producer died` : '';
      return `The coordinator aborted the transaction${after}${abort ? ` (${abort.reason}; producer epoch now ${abort.producerEpoch})` : ''}: ${views.join('; ')}.`;
    }),
    verifyCommittedStep(),
  ],
};

export const TXN_ZOMBIE_FENCED: DrillScenario = {
  id: 'txn-zombie-fenced',
  name: 'A zombie producer is fenced by its successor',
  explanation:
    'A transactional.id names one logical producer across restarts. When a new instance calls InitProducerId with the same id, the coordinator bumps the producer epoch and aborts whatever the previous instance left open; from then on the older epoch is fenced everywhere — the coordinator refuses its EndTxn and AddPartitionsToTxn, and partition leaders refuse its writes. Here producer 1 begins a transaction and stalls (a long GC pause, a network partition), its replacement starts with the same transactional.id, and producer 1 wakes up and tries to commit. It is refused (PRODUCER_FENCED to clients that send EndTxn v2 and up, such as the Java client; INVALID_PRODUCER_EPOCH to kafkajs, which sends v1): the zombie’s records stay aborted, and exactly the successor’s records are committed.',
  watch:
    'transaction.stateChanged shows the open transaction aborted with a bumped epoch (“a new producer fenced the open transaction”) when producer 2 starts, then producer 2’s own transaction. The zombie’s commit step ends in the fencing error; read_committed shows only producer 2’s records, read_uncommitted both.',
  steps: [
    ...prelude(),
    createTxnTopicStep(1),
    beginStep({ instance: 1, count: 2, tag: 'zombie', why: 'Then it stalls: its orchestrator gives up on it and starts a replacement.' }),
    beginStep({ instance: 2, count: 2, tag: 'successor', title: 'Producer 2, the replacement, starts with the same transactional.id and writes 2 records', why: 'Its InitProducerId bumped the epoch: producer 1 is fenced and its open transaction aborted.' }),
    endStep({ instance: 1, commit: true, expect: 'INVALID_PRODUCER_EPOCH', title: 'Producer 1 wakes up and commits (expect the fencing error)', why: 'The zombie’s epoch is older than the one the coordinator holds; its records stay aborted.' }),
    endStep({ instance: 2, commit: true }),
    waitAllStable('Wait for the markers: the LSO reaches the HW', 30_000, async (ctx, views) => {
      const fence = (await txnEvents(ctx)).find((e) => e.reason === 'a new producer fenced the open transaction');
      return `${views.join('; ')}.${fence ? ` The coordinator aborted producer 1’s transaction with epoch ${fence.producerEpoch} when producer 2 started.` : ''}`;
    }),
    verifyCommittedStep(),
  ],
};

const fastClockStep: DrillStep = {
  title: 'Run the clock at 60× (ISR and session timeouts are tens of seconds of cluster time)',
  kind: 'action',
  async run(ctx) {
    const c = await value(ctx, 'clock.get', {});
    if (c.scale === null || c.scale === 60) return { status: 'ok', summary: c.scale === null ? 'The clock is driven by hand.' : 'The clock already runs at 60×.' };
    await value(ctx, 'clock.setScale', { scale: 60 });
    return { status: 'ok', summary: `Clock set from ${c.scale}× to 60×: the client’s EndTxn waits for the ISR to shrink, and its request timeout is 30 s of real time.` };
  },
};

const healLinksStep: DrillStep = {
  title: 'Restore every network link between brokers',
  kind: 'action',
  async run(ctx) {
    const brokers = await value(ctx, 'brokers.list', {});
    for (const b of brokers) await value(ctx, 'brokers.heal', { brokerId: b.id });
    return { status: 'ok', summary: `Brokers ${brokers.map((b) => b.id).join(', ')} reach one another.` };
  },
};

/** Kafka's TransactionStateManager.partitionFor: `Utils.abs(transactionalId.hashCode) % partitions`, with Java's String.hashCode. */
export function txnPartitionFor(transactionalId: string, partitions: number): number {
  let h = 0;
  for (let i = 0; i < transactionalId.length; i++) h = (Math.imul(31, h) + transactionalId.charCodeAt(i)) | 0;
  return (h === -2147483648 ? 0 : Math.abs(h)) % partitions;
}

/** The broker the coordinator will be cut off from must not follow its __transaction_state partition, or PrepareCommit would wait for it. */
const outsiderStep: DrillStep = {
  title: 'Find a broker outside the coordinator’s __transaction_state partition (add one if every broker holds a replica)',
  kind: 'action',
  async run(ctx) {
    const m = memoryOf(ctx);
    const log = await value(ctx, 'topics.describe', { name: '__transaction_state' });
    const k = txnPartitionFor(transactionalIdOf(ctx), log.partitions.length);
    const replicas = log.partitions.find((p) => p.partition === k)!.replicas;
    const brokers = await value(ctx, 'brokers.list', {});
    let outsider = brokers.find((b) => !replicas.includes(b.id))?.id;
    let added = '';
    if (outsider === undefined) {
      outsider = (await value(ctx, 'brokers.add', {})).id;
      added = ` Every broker held a replica, so broker ${outsider} was added.`;
    }
    m.replicas = replicas;
    m.held = { leader: outsider, partitions: [1] };
    return { status: 'ok', summary: `${transactionalIdOf(ctx)} hashes to __transaction_state-${k}, replicas [${replicas.join(', ')}], led by its coordinator ${m.coordinator}.${added} Broker ${outsider} follows none of it.` };
  },
};

const growStep: DrillStep = {
  title: 'Grow drill-<n> to 3 partitions: partition 1 led by that broker, partition 2 by another',
  kind: 'action',
  async run(ctx) {
    const m = memoryOf(ctx);
    const others = m.replicas!.filter((b) => b !== m.coordinator);
    const t = await value(ctx, 'partitions.add', { topic: ctx.topic, totalCount: 3, assignments: [[m.held!.leader, ...others], [...others, m.coordinator]] });
    return { status: 'ok', summary: `Partitions: ${t.partitions.map((p) => `${p.partition} replicas [${p.replicas.join(', ')}]`).join('; ')}.` };
  },
};

const cutStep: DrillStep = {
  title: 'Cut the link between the coordinator and the leader of partition 1',
  kind: 'action',
  async run(ctx) {
    const m = memoryOf(ctx);
    const { leader } = m.held!;
    await value(ctx, 'brokers.cutLink', { brokerId: m.coordinator, peerId: leader, cut: true });
    ctx.roles.oldLeader = [m.coordinator];
    return { status: 'ok', summary: `Broker ${m.coordinator} (the coordinator) and broker ${leader} (leader of partition 1) cannot reach each other; both still reach the controller and every other broker.` };
  },
};

const waitHeldStep: DrillStep = {
  title: 'Wait for the markers the coordinator can deliver',
  kind: 'wait',
  maxClusterMs: 90_000,
  onTimeout: 'The reachable partitions did not commit, or the cut-off one did.',
  async check(ctx) {
    const m = memoryOf(ctx);
    const held = m.held!;
    const lines: string[] = [];
    for (const p of await partitionsOf(ctx)) {
      const c = await fetchAs(ctx, p, 'read_committed');
      const stable = c.lastStableOffset === c.highWatermark;
      if (stable === held.partitions.includes(p)) return null;
      lines.push(`${p}: LSO ${c.lastStableOffset}, HW ${c.highWatermark}, read_committed gets ${c.records.length}`);
    }
    m.heldView = lines.join('; ');
    return {
      status: 'ok',
      summary: `Half committed: ${m.heldView}. The coordinator keeps retrying the marker for partition ${held.partitions.join(', ')}; until it lands, its read_committed consumers see nothing of the transaction while those of the other partitions see all of it.`,
    };
  },
};

const killCoordinatorStep: DrillStep = {
  title: 'Kill the coordinator’s broker before it delivers the last marker',
  kind: 'action',
  async run(ctx) {
    const m = memoryOf(ctx);
    await value(ctx, 'brokers.kill', { brokerId: m.coordinator });
    m.crashedAtMs = (await value(ctx, 'clock.get', {})).nowMs;
    return { status: 'ok', summary: `Killed broker ${m.coordinator}: PrepareCommit is in __transaction_state, CompleteCommit is not, and partition ${m.held!.partitions.join(', ')} has no marker.` };
  },
};

export const TXN_COORDINATOR_DIES: DrillScenario = {
  id: 'txn-coordinator-dies',
  name: 'The transaction coordinator dies mid-commit',
  explanation:
    'A commit is two steps. On EndTxn the coordinator writes PrepareCommit to its __transaction_state partition (replicated, acks=all) and answers the producer: from then on the transaction will commit. Then it sends a COMMIT marker to the leader of every partition in the transaction, and once all are written it records CompleteCommit. Here the coordinator cannot reach one partition’s leader (a cut network link; the drill picks a broker that does not replicate the coordinator’s own __transaction_state partition, adding a fourth broker if it must, so the commit itself is not held up) and its broker dies before that marker lands: the transaction is committed on some partitions and still pending on another. The new leader of the __transaction_state partition loads the log, finds the transaction in PrepareCommit, and writes the markers again — a second COMMIT marker where one already was is harmless — then CompleteCommit. Nothing is lost and nothing is duplicated: read_committed consumers of every partition see each record once.',
  watch:
    'After the commit, the reachable partitions’ LSO reaches their HW while the cut-off one stays held. After the kill: leader.changed on __transaction_state, txnCoordinator.loaded naming the transaction as completing, then transaction.stateChanged CompleteCommit from the new coordinator, and the held LSO jumps to the HW.',
  steps: [
    ...prelude(),
    healLinksStep,
    fastClockStep,
    createTxnTopicStep(1),
    beginStep({ instance: 1, count: 1, tag: 'warmup', title: 'Producer 1 finds its coordinator and writes 1 record in a transaction…' }),
    endStep({ instance: 1, commit: true, title: '…and commits' }),
    outsiderStep,
    waitEveryBrokerRunning(),
    growStep,
    beginStep({ instance: 1, count: 2, tag: 'order' }),
    cutStep,
    endStep({ instance: 1, commit: true }),
    waitHeldStep,
    killCoordinatorStep,
    waitAllStable('Wait for a new coordinator to finish the commit', 120_000, async (ctx, views) => {
      const m = memoryOf(ctx);
      const loads = await value(ctx, 'events.recent', { types: ['txnCoordinator.loaded'] });
      const load = loads.find((e) => e.type === 'txnCoordinator.loaded' && e.atMs >= (m.crashedAtMs ?? 0) && e.completing.includes(transactionalIdOf(ctx)));
      const by = load && load.type === 'txnCoordinator.loaded' ? `Broker ${load.brokerId} loaded __transaction_state-${load.txnPartition} (coordinator epoch ${load.coordinatorEpoch}) with the transaction in PrepareCommit and wrote its markers again` : 'A new coordinator finished the commit';
      return `${by}: ${views.join('; ')}.`;
    }),
    verifyCommittedStep(),
    {
      title: 'Restore the link and restart the old coordinator’s broker',
      kind: 'action',
      async run(ctx) {
        const m = memoryOf(ctx);
        await value(ctx, 'brokers.cutLink', { brokerId: m.coordinator, peerId: m.held!.leader, cut: false });
        return { status: 'ok', summary: `Broker ${m.coordinator} and broker ${m.held!.leader} reach each other again.` };
      },
    },
    startRoleStep('oldLeader', 'Restart the old coordinator’s broker'),
  ],
};
