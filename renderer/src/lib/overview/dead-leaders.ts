/**
 * The cluster-wide view of the window Kafka's metadata does not show: brokers whose process is
 * gone (or whose links are cut) but which the controller has not fenced yet. Until it fences
 * them (broker.session.timeout.ms after their last heartbeat), the metadata still names them as
 * leaders and ISR members, so the controller counts no offline and no under-replicated partition
 * while every partition such a broker leads can be neither written nor read. The Overview's
 * headline, tiles and broker cards say this from here, as the topic page says it per partition
 * (broker-trouble.ts). Pure: no Vue, no DOM.
 */
import type { BrokerView, EngineEvent } from '../../../../app/api/contract.js';
import { unfencedDeadBroker, type UnfencedDeadBroker } from '../topic-detail/broker-trouble.js';

export interface DeadBroker extends UnfencedDeadBroker {
  /** Partitions the metadata still has it lead: unavailable until it is fenced. */
  leaderCount: number;
  /** Replicas it hosts: each leaves the ISR when it is fenced. */
  replicaCount: number;
}

export interface DeadLeaders {
  brokers: DeadBroker[];
  /** Partitions led by those brokers: no produce or fetch reaches them until the fencing. */
  partitionsLed: number;
  replicas: number;
  /** The earliest fencing expected (cluster time); null when it cannot be told yet. */
  firstFenceAtMs: number | null;
}

/**
 * The brokers down but not yet fenced that the metadata still has lead partitions, with what they
 * lead. Once the controller fences one it elects other leaders (or none: the partition is then
 * offline, and counted so), so its leader count falls to 0 and it leaves this list by itself.
 * `events`: recent events, oldest first (when each went down, and controller changes).
 */
export function deadUnfencedBrokers(brokers: readonly BrokerView[], events: readonly EngineEvent[], sessionTimeoutMs: number | null): DeadLeaders {
  const dead: DeadBroker[] = [];
  for (const b of brokers) {
    if (b.leaderCount === 0) continue;
    const d = unfencedDeadBroker(b.id, b, events, sessionTimeoutMs);
    if (d) dead.push({ ...d, leaderCount: b.leaderCount, replicaCount: b.partitionCount });
  }
  const fences = dead.map((d) => d.fenceAtMs).filter((t): t is number => t !== null);
  return {
    brokers: dead,
    partitionsLed: dead.reduce((n, d) => n + d.leaderCount, 0),
    replicas: dead.reduce((n, d) => n + d.replicaCount, 0),
    firstFenceAtMs: fences.length ? Math.min(...fences) : null,
  };
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** "in about 7 s" / "any moment now" / "once the new controller has waited its session timeout" for a fencing at `atMs`. */
export function fencingWhen(d: Pick<DeadBroker, 'fenceAtMs' | 'controllerLost'>, nowMs: number | null): string {
  if (d.fenceAtMs === null || nowMs === null) return d.controllerLost ? 'once a new controller is elected and its session timeout has passed' : 'once broker.session.timeout.ms has passed without a heartbeat';
  const left = Math.ceil((d.fenceAtMs - nowMs) / 1000);
  return left > 0 ? `in about ${left} s` : 'any moment now';
}

/**
 * One sentence for the Overview's headline, or null when no broker is in that window:
 * "20 partitions can be neither written nor read: broker 2 is killed (its process died) but still leads them until the controller fences it, in about 7 s".
 */
export function deadLeadersSentence(d: DeadLeaders, nowMs: number | null): string | null {
  if (d.brokers.length === 0) return null;
  const troubles = d.brokers.map((b) => b.trouble).join('; ');
  const it = d.brokers.length === 1 ? 'it' : 'them';
  const when = fencingWhen({ fenceAtMs: d.firstFenceAtMs, controllerLost: d.brokers.some((b) => b.controllerLost) }, nowMs);
  return `${plural(d.partitionsLed, 'partition')} can be neither written nor read: ${troubles}, but the metadata still names ${it} as leader until the controller fences ${it}, ${when}`;
}
