/**
 * The plain-words explainer of one partition, computed only from data the engine reports: the
 * partition (leader, ISR, replicas, epochs, each replica's log end), the brokers' states, the
 * topic's effective `min.insync.replicas` and `unclean.leader.election.enable`, the broker's
 * `replica.lag.time.max.ms`, and the recent events of this partition (why a replica left the
 * ISR, how the leader changed). It follows Kafka's rules (Kafka's replication documentation, KIP-966):
 *   - a follower leaves the ISR when it has not caught up with the leader's log end for
 *     replica.lag.time.max.ms, or at once when the controller fences its broker;
 *   - acks=all is refused with NOT_ENOUGH_REPLICAS while |ISR| < min(min.insync.replicas, RF);
 *   - with no live ISR member the partition is offline unless unclean election is allowed;
 *   - after an unclean election the partition is RECOVERING until the new leader settles;
 *   - a broker whose process died stays leader and ISR member in the metadata until the
 *     controller fences it (broker.session.timeout.ms without a heartbeat): the explainer says so
 *     rather than repeat "in sync" (broker-trouble.ts);
 *   - with eligible leader replicas (KIP-966, eligible.leader.replicas.version 1) a replica that
 *     left the ISR while it was below min ISR holds every committed record and may be elected
 *     cleanly once the ISR is empty; the last known leader is kept while the ISR is empty.
 * Pure: no Vue, no DOM, no client, so the store and the components share it.
 */
import type { BrokerView, EngineEvent, PartitionView } from '../../../../app/api/contract.js';
import { clusterTime, duration } from '../format.js';
import { brokerAlive, brokerTrouble, reasonText, unfencedDeadBroker, type UnfencedDeadBroker } from './broker-trouble.js';
import { elrDetail } from './elr-detail.js';

export { brokerAlive, brokerTrouble, reasonText } from './broker-trouble.js';

export interface ExplainContext {
  /** Brokers by id (state, isolated, fetcherStalled). */
  brokers: ReadonlyMap<number, BrokerView>;
  /** The topic's effective min.insync.replicas (its own override or the broker default). */
  minInsyncReplicas: number;
  /** The topic's effective unclean.leader.election.enable. */
  uncleanLeaderElectionEnable: boolean;
  /** The broker config replica.lag.time.max.ms; null until read. */
  replicaLagTimeMaxMs: number | null;
  /** The controller's broker.session.timeout.ms (how long a silent broker stays unfenced); null until read. */
  brokerSessionTimeoutMs: number | null;
  /** Recent events of this topic, oldest first (the explainer picks this partition's). */
  events: readonly EngineEvent[];
}

export type PartitionStatus =
  | 'offline'
  /** The metadata names a leader whose broker is gone and not fenced yet: nothing can produce or fetch. */
  | 'leader-unreachable'
  | 'under-min-isr'
  | 'recovering'
  | 'under-replicated'
  /** An ISR follower's broker is gone and not fenced yet: acks=all writes wait for it. */
  | 'follower-unreachable'
  | 'lagging'
  | 'reassigning'
  | 'healthy';

export interface PartitionExplanation {
  /** The worst state, for the badge and the alert's colour. */
  status: PartitionStatus;
  /** Every state that applies (an under-replicated partition may also be under min ISR). */
  flags: PartitionStatus[];
  severity: 'success' | 'info' | 'warning' | 'error';
  headline: string;
  /** One plain sentence each. */
  details: string[];
}

/**
 * Everything of a partition its explanation depends on, as one string: two reads with the same
 * signature (and the same context) explain the same, so the page keeps the first explanation.
 */
export function partitionSignature(p: PartitionView): string {
  let s = `${p.leader}|${p.leaderEpoch}|${p.partitionEpoch}|${p.replicas.join(',')}|${p.isr.join(',')}|${p.addingReplicas.join(',')}|${p.removingReplicas.join(',')}|${p.leaderRecoveryState}|${p.eligibleLeaderReplicas.join(',')}|${p.lastKnownElr.join(',')}|${p.highWatermark}|${p.logStartOffset}`;
  for (const r of p.replicaStates) s += `|${r.brokerId}:${r.logEndOffset}:${r.highWatermark}:${r.logStartOffset}:${r.flushedOffset}`;
  return s;
}

function list(ids: readonly number[]): string {
  return ids.length ? ids.join(', ') : 'none';
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** `effectiveMinIsr = min(min.insync.replicas, replica count)` (Kafka 3.7+). */
export function effectiveMinIsr(minInsyncReplicas: number, replicaCount: number): number {
  return Math.max(1, Math.min(minInsyncReplicas, replicaCount));
}

function eventsOf(p: PartitionView, events: readonly EngineEvent[]): EngineEvent[] {
  return events.filter((e) => 'partition' in e && e.partition === p.partition);
}

export function explainPartition(p: PartitionView, ctx: ExplainContext): PartitionExplanation {
  const details: string[] = [];
  const flags: PartitionStatus[] = [];
  const name = `Partition ${p.partition}`;
  const own = eventsOf(p, ctx.events);
  const leaderState = p.replicaStates.find((r) => r.brokerId === p.leader);
  const leaderLeo = leaderState?.logEndOffset ?? Math.max(p.highWatermark, ...p.replicaStates.map((r) => r.logEndOffset));
  const adding = new Set(p.addingReplicas);
  const outOfIsr = p.replicas.filter((r) => !p.isr.includes(r) && !adding.has(r));
  const effMin = effectiveMinIsr(ctx.minInsyncReplicas, p.replicas.length);
  const minText =
    effMin === ctx.minInsyncReplicas
      ? `min.insync.replicas is ${ctx.minInsyncReplicas}`
      : `min.insync.replicas is ${ctx.minInsyncReplicas}, capped at the replica count to ${effMin}`;
  const lagRule =
    ctx.replicaLagTimeMaxMs !== null
      ? `replica.lag.time.max.ms = ${ctx.replicaLagTimeMaxMs} (${duration(ctx.replicaLagTimeMaxMs)})`
      : 'replica.lag.time.max.ms';

  // ---- offline
  if (p.leader === -1) {
    flags.push('offline');
    const liveIsr = p.isr.filter((id) => brokerAlive(ctx.brokers.get(id)));
    const why = p.isr.map((id) => brokerTrouble(id, ctx.brokers.get(id)) ?? `broker ${id} has not taken over yet`);
    details.push(
      p.isr.length === 0
        ? 'The ISR is empty: every in-sync replica has failed, and with eligible leader replicas on the controller lets the ISR empty rather than keep the last member in it.'
        : liveIsr.length === 0
          ? `No live ISR member can lead: its last ISR is [${list(p.isr)}] and ${why.join('; ')}.`
          : `The ISR [${list(p.isr)}] has a live member, so the controller should elect it shortly.`,
    );
    const liveOthers = p.replicas.filter((id) => !p.isr.includes(id) && brokerAlive(ctx.brokers.get(id)));
    // What an unclean election to `id` would lose: what the last ISR member has beyond it.
    const lostText = (id: number): string => {
      const mine = p.replicaStates.find((r) => r.brokerId === id)?.logEndOffset;
      const best = Math.max(...p.isr.map((i) => p.replicaStates.find((r) => r.brokerId === i)?.logEndOffset ?? 0));
      if (mine === undefined) return 'the records it lacks';
      return best > mine ? `the ${plural(best - mine, 'record')} (offsets ${mine}–${best - 1}) it lacks` : 'nothing it has not already got (its log is as long as the last leader’s)';
    };
    if (ctx.uncleanLeaderElectionEnable) {
      details.push(
        liveOthers.length
          ? `unclean.leader.election.enable is true for this topic, so the controller may elect an out-of-sync replica (broker ${list(liveOthers)}); records it lacks are lost when the old leader returns and truncates.`
          : 'unclean.leader.election.enable is true, but no replica of this partition is alive: start one of its brokers.',
      );
    } else {
      details.push(
        `unclean.leader.election.enable is false for this topic, so the controller waits for an ISR member to come back rather than elect an out-of-sync replica that could lose acknowledged records. Start broker ${list(p.isr)} to bring the partition back${liveOthers.length ? `, or run an unclean election to make broker ${liveOthers[0]} the leader and accept losing ${lostText(liveOthers[0]!)}` : ''}.`,
      );
    }
    details.push('Until then producers cannot write to it (their records wait for a leader and time out) and consumers cannot read it.');
  }

  // ---- eligible leader replicas (KIP-966)
  const elrText = elrDetail(p, effMin, ctx.brokers);
  if (elrText) details.push(elrText);

  // ---- a leader or ISR member whose broker is gone but not fenced yet (Kafka's metadata still lists it)
  const dead = (id: number): UnfencedDeadBroker | null => unfencedDeadBroker(id, ctx.brokers.get(id), ctx.events, ctx.brokerSessionTimeoutMs);
  const sessionRule = ctx.brokerSessionTimeoutMs !== null ? `broker.session.timeout.ms (${duration(ctx.brokerSessionTimeoutMs)})` : 'broker.session.timeout.ms';
  const at = (d: UnfencedDeadBroker): string => (d.fenceAtMs !== null ? `, at about ${clusterTime(d.fenceAtMs)}` : '');
  const leaderDead = p.leader !== -1 ? dead(p.leader) : null;
  const deadFollowers = p.isr.filter((id) => id !== p.leader).map(dead).filter((d): d is UnfencedDeadBroker => d !== null);
  if (leaderDead) {
    flags.push('leader-unreachable');
    const successor = p.replicas.find((id) => id !== p.leader && p.isr.includes(id) && brokerAlive(ctx.brokers.get(id)));
    const next =
      successor !== undefined
        ? `a new leader is elected (broker ${successor}, the first live ISR member in replica order)`
        : ctx.uncleanLeaderElectionEnable
          ? 'the controller looks for a new leader (no other ISR member is live: only an unclean election can choose one)'
          : 'the partition goes offline (no other ISR member is live, and unclean election is off)';
    const wait = leaderDead.controllerLost
      ? `the brokers elect a new controller (broker ${p.leader} hosted the active one), ${sessionRule} passes after it takes over`
      : `${sessionRule} passes without a heartbeat`;
    details.push(
      `The leader's process is gone (${leaderDead.trouble}); produce and fetch to it fail until ${wait} and ${next}${at(leaderDead)}. Until the controller fences it, Kafka's metadata still names broker ${p.leader} as leader and every ISR member as in sync.`,
    );
  }
  for (const d of deadFollowers) {
    flags.push('follower-unreachable');
    details.push(
      `${d.trouble.charAt(0).toUpperCase()}${d.trouble.slice(1)}, but it stays in the ISR until the controller fences it (${sessionRule} without a heartbeat${at(d)}); until then acks=all writes wait for it and the high watermark cannot pass its log end.`,
    );
  }

  // ---- RECOVERING after an unclean election
  if (p.leaderRecoveryState === 'RECOVERING') {
    flags.push('recovering');
    const unclean = [...own].reverse().find((e) => e.type === 'leader.changed' && e.unclean);
    details.push(
      `The leader was elected uncleanly (from outside the ISR)${unclean ? ` at ${clusterTime(unclean.atMs)}` : ''}, so the partition is RECOVERING: the ISR may hold only the new leader until it has settled its log, and its first ISR expansion marks it RECOVERED. Records the previous leaders had beyond this leader's log end (${leaderLeo}) are truncated when they return.`,
    );
  }

  // ---- under-replicated: which replica is out of the ISR, and why
  if (outOfIsr.length > 0 && p.leader !== -1) {
    flags.push('under-replicated');
    details.push(`${plural(p.isr.length, 'replica')} of ${p.replicas.length} ${p.isr.length === 1 ? 'is' : 'are'} in the ISR [${list(p.isr)}]; out of it: broker ${list(outOfIsr)}.`);
    for (const id of outOfIsr) {
      const state = p.replicaStates.find((r) => r.brokerId === id);
      const lag = state ? leaderLeo - state.logEndOffset : null;
      const trouble = brokerTrouble(id, ctx.brokers.get(id));
      const shrink = [...own].reverse().find((e) => e.type === 'isr.shrunk' && e.removed.includes(id));
      const parts: string[] = [];
      parts.push(
        lag === null
          ? `Broker ${id}'s log state is unknown`
          : lag === 0
            ? `Broker ${id}'s log ends at offset ${state!.logEndOffset}, level with the leader's log end`
            : lag < 0
              ? `Broker ${id}'s log ends at offset ${state!.logEndOffset}, ${plural(-lag, 'offset')} beyond the leader's log end (${leaderLeo}): records the current leader never had, which it truncates when it fetches again`
              : `Broker ${id}'s log ends at offset ${state!.logEndOffset}, ${plural(lag, 'offset')} behind the leader's log end (${leaderLeo})`,
      );
      parts.push(trouble ? `${trouble}, so it is not fetching from the leader` : `its broker is running and fetching, so it rejoins the ISR once it catches up to the leader's high watermark (${p.highWatermark})`);
      let sentence = `${parts.join('; ')}.`;
      if (shrink && shrink.type === 'isr.shrunk') sentence += ` It left the ISR at ${clusterTime(shrink.atMs)} because ${reasonText(shrink.reason)}.`;
      details.push(sentence);
    }
    details.push(
      `A follower leaves the ISR when it has not caught up with the leader's log end for ${lagRule}, or at once when the controller fences its broker; acks=all writes then stop waiting for it, so fewer copies stand behind new records.`,
    );
  }

  // ---- ISR followers behind the leader hold the high watermark back
  const laggingIsr =
    p.leader === -1
      ? []
      : p.isr
          .filter((id) => id !== p.leader && !deadFollowers.some((d) => d.brokerId === id))
          .map((id) => ({ id, leo: p.replicaStates.find((r) => r.brokerId === id)?.logEndOffset ?? null, trouble: brokerTrouble(id, ctx.brokers.get(id)) }))
          .filter((f) => f.leo !== null && f.leo < leaderLeo);
  if (laggingIsr.length > 0 && p.highWatermark < leaderLeo) {
    // A follower a few offsets behind under traffic is normal; one that cannot fetch is stuck there.
    if (laggingIsr.some((f) => f.trouble)) flags.push('lagging');
    const who = laggingIsr.map((f) => `broker ${f.id} at ${f.leo} (${leaderLeo - f.leo!} behind${f.trouble ? `; ${f.trouble}` : ''})`).join(', ');
    details.push(
      `The high watermark (${p.highWatermark}) waits for the ISR: ${who}. Records above it are not visible to consumers yet and acks=all writes wait for them; a follower that has not caught up within ${lagRule} is removed from the ISR, and the high watermark moves on without it.`,
    );
  }

  // ---- acks=all: ISR size vs the effective min ISR (moot while the leader cannot be reached)
  if (p.leader !== -1 && !leaderDead) {
    if (p.isr.length < effMin) {
      flags.push('under-min-isr');
      details.push(
        `acks=all writes fail with NOT_ENOUGH_REPLICAS: the ISR has ${plural(p.isr.length, 'member')} but ${minText}. acks=1 and acks=0 writes are still appended by the leader, but the high watermark stays at ${p.highWatermark}, so consumers do not see them until the ISR grows back.`,
      );
    } else if (deadFollowers.length === 0) {
      const spare = p.isr.length - effMin;
      details.push(
        `acks=all writes succeed: the ISR has ${plural(p.isr.length, 'member')} and ${minText}` +
          (spare === 0 ? '; losing one more ISR member makes them fail with NOT_ENOUGH_REPLICAS.' : `; ${plural(spare, 'more ISR member')} can be lost before they fail with NOT_ENOUGH_REPLICAS.`),
      );
    }
  }

  // ---- reassignment in progress
  if (p.addingReplicas.length || p.removingReplicas.length) {
    flags.push('reassigning');
    const catching = p.addingReplicas.map((id) => {
      const s = p.replicaStates.find((r) => r.brokerId === id);
      return `broker ${id} at ${s?.logEndOffset ?? '?'} of ${leaderLeo}${p.isr.includes(id) ? ' (in sync)' : ''}`;
    });
    details.push(
      `A reassignment is moving this partition: adding ${p.addingReplicas.length ? catching.join(', ') : 'none'}; removing broker ${list(p.removingReplicas)} once every new replica has joined the ISR.`,
    );
  }

  // ---- leader vs preferred leader
  const preferred = p.replicas[0];
  if (p.leader !== -1 && preferred !== undefined && p.leader !== preferred) {
    const ready = p.isr.includes(preferred) && brokerAlive(ctx.brokers.get(preferred));
    details.push(
      `Broker ${p.leader} leads, but the preferred leader is broker ${preferred} (the first replica); ` +
        (ready
          ? `broker ${preferred} is in the ISR, so a preferred election (or the automatic leader rebalance) can move leadership back now.`
          : `a preferred election can move leadership back once broker ${preferred} is running and in the ISR.`),
    );
  }

  // ---- truncations of this partition
  const truncation = [...own].reverse().find((e) => e.type === 'replica.truncated');
  if (truncation && truncation.type === 'replica.truncated') {
    details.push(
      `Broker ${truncation.brokerId} truncated its log from offset ${truncation.fromOffset} to ${truncation.toOffset} at ${clusterTime(truncation.atMs)} (${truncation.reason === 'diverging-epoch' ? 'its records diverged from the new leader’s' : truncation.reason === 'power-loss' ? 'its unflushed tail was lost with the power' : 'its offset was out of the leader’s range'}).`,
    );
  }

  const order: PartitionStatus[] = ['offline', 'leader-unreachable', 'under-min-isr', 'recovering', 'under-replicated', 'follower-unreachable', 'lagging', 'reassigning'];
  const status = order.find((s) => flags.includes(s)) ?? 'healthy';
  let headline: string;
  switch (status) {
    case 'offline':
      headline = `${name} is offline: it has no leader.`;
      break;
    case 'leader-unreachable':
      headline = `${name}'s leader, broker ${p.leader}, is down: produce and fetch fail until the controller fences it and elects another.`;
      break;
    case 'under-min-isr':
      headline = `${name} is under min ISR: acks=all writes are refused.`;
      break;
    case 'recovering':
      headline = `${name} is RECOVERING after an unclean leader election.`;
      break;
    case 'under-replicated':
      headline = `${name} is under-replicated: ${p.isr.length} of ${p.replicas.length} replicas are in sync.`;
      break;
    case 'follower-unreachable':
      headline = `${name} has an in-sync follower that is down: the controller has not fenced broker ${deadFollowers.map((d) => d.brokerId).join(', ')} yet.`;
      break;
    case 'lagging':
      headline = `${name} has an in-sync follower that is not keeping up: the high watermark is held back.`;
      break;
    case 'reassigning':
      headline = `${name} is being reassigned.`;
      break;
    default:
      headline = `${name} is healthy: all ${p.replicas.length} replicas are in sync.`;
      details.unshift(`The high watermark (${p.highWatermark}) is the smallest log end among the ISR; consumers read below it.`);
  }
  if (status === 'under-min-isr' && flags.includes('under-replicated')) headline = `${name} is under-replicated and under min ISR: acks=all writes are refused.`;
  const severity = status === 'healthy' ? 'success' : status === 'offline' || status === 'leader-unreachable' || status === 'under-min-isr' ? 'error' : status === 'reassigning' ? 'info' : 'warning';
  return { status, flags, severity, headline, details };
}
