/**
 * A state's fingerprint: what decides the cluster's future from here, with the clock taken out
 * (every time is relative to now), so that two paths that reach the same situation at different
 * times are explored once.
 *
 * It covers the controller's view (partition state, each broker's registration), each replica
 * broker's process and replica (role, epochs, ISR views, log with batch epochs, HW, flushed
 * offset, epoch cache, a leader's follower progress), the messages in flight per link, the timers
 * still due (relative), the client's budgets and acknowledgements, and the path checker's summary.
 * Lag-related times are capped at replica.lag.time.max.ms: beyond it they all mean "out of sync".
 */
import { createHash } from 'node:crypto';
import type { World } from './world.js';

const LAG_CAP_MS = 3_000;
const decoder = new TextDecoder();

export function fingerprint(world: World, history: string): string {
  const { sim, port } = world;
  const now = sim.now;
  const image = sim.engine.metadata;
  const state = image.topicsByName.get('t')!.partitions.get(0)!;
  const parts: unknown[] = [
    [state.leader, state.leaderEpoch, state.partitionEpoch, [...state.isr].sort(), state.leaderRecoveryState, [...(state.elr ?? [])].sort(), [...(state.lastKnownElr ?? [])].sort()],
    [...image.brokers.values()].map((b) => [b.id, b.fenced, b.inControlledShutdown, b.brokerEpoch]),
  ];
  for (const id of world.ids) {
    const b = sim.internals.brokers.get(id)!;
    const p = b.isAlive ? b.partitionFor('t', 0) : undefined;
    const disk = sim.internals.brokers.get(id)!.disk;
    const stored = p ? null : disk.hasReplica(replicaKeyOf(world)) ? disk.replica(replicaKeyOf(world)).endOffset() : -1;
    parts.push([
      id,
      b.process,
      b.fetcherStalled,
      b.brokerEpoch,
      b.image.offset,
      stored,
      p
        ? [
            p.role,
            p.leaderEpoch,
            p.partitionEpoch,
            p.committedIsr,
            p.pendingIsr?.proposed ?? null,
            p.log.logEndOffset,
            p.log.highWatermark,
            p.log.flushedOffset,
            p.log.epochCache.entries().map((e) => `${e.epoch}@${e.startOffset}`),
            p.log.read(p.log.logStartOffset, p.log.logEndOffset, Number.MAX_SAFE_INTEGER).map((x) => `${x.baseOffset}:${x.leaderEpoch}:${x.records.map((r) => decoder.decode(r.value ?? new Uint8Array())).join('+')}`),
            p.isLeader ? world.ids.filter((f) => f !== id).map((f) => [f, p.followerLogEndOffset(f)]) : null,
            Math.min(LAG_CAP_MS, Math.max(0, p.fetchDelayedUntil - now)),
          ]
        : null,
    ]);
  }
  parts.push(port.all().map((d) => [d.label, digest(d.delivery.payload)]));
  parts.push(
    sim.scheduler
      .dueTimes()
      .map((t) => t - now)
      .sort((a, b) => a - b),
  );
  if (world.security) parts.push(world.security.fingerprint());
  parts.push([world.produced, world.faultsUsed, world.acked.map((a) => `${a.value}@${a.offset}`), world.refused.length, history]);
  return createHash('sha1').update(JSON.stringify(parts)).digest('base64');
}

function replicaKeyOf(world: World): string {
  const t = world.sim.engine.metadata.topicsByName.get('t')!;
  return `${t.topicId}:0`;
}

/** A message's content without its bytes (records by offset, epoch and count). */
function digest(payload: unknown): string {
  return JSON.stringify(payload, (key, value: unknown) => {
    if (value instanceof Uint8Array) return value.length;
    if (key === 'records' && Array.isArray(value)) return value.length;
    return value;
  });
}
