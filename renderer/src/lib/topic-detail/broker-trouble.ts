/**
 * What the partition explainer says about brokers: whether one can serve, what is wrong with it,
 * why a leader or ISR changed, and — the window Kafka's metadata does not show — a broker whose
 * process is gone but which the controller has not fenced yet.
 *
 * Kafka's rule (KIP-631, KRaft): the controller fences a broker once it has heard no heartbeat for
 * `broker.session.timeout.ms` (9 s by default); only then does it take the broker out of every ISR
 * and elect new leaders. Until then the metadata still names the dead broker as leader and ISR
 * member, so "all replicas in sync" is what Kafka reports while nothing can reach that broker.
 * Pure: no Vue, no DOM.
 */
import type { BrokerView, EngineEvent } from '../../../../app/api/contract.js';
import type { ChangeReasonView } from '../../../../app/api/events.js';

/** Whether a broker can serve: its process runs, it is registered and unfenced, its links are up. */
export function brokerAlive(b: BrokerView | undefined): boolean {
  return !!b && b.state === 'running' && !b.isolated;
}

/** What is wrong with a broker, as a clause ("broker 3 is killed"), or null when it is fine. */
export function brokerTrouble(id: number, b: BrokerView | undefined): string | null {
  if (!b) return `broker ${id} is not a member of the cluster`;
  switch (b.state) {
    case 'killed':
      return `broker ${id} is killed (its process died)`;
    case 'power-lost':
      return `broker ${id} lost power`;
    case 'stopped':
      return `broker ${id} is stopped`;
    case 'storage-failed':
      return `broker ${id}'s storage failed`;
    case 'fenced':
      return `broker ${id} is fenced by the controller (no heartbeat, or still catching up after a restart)`;
    case 'starting':
      return `broker ${id} is starting`;
    case 'controlled-shutdown':
      return `broker ${id} is in controlled shutdown`;
    case 'running':
      if (b.isolated) return `broker ${id} is isolated (its network links are cut)`;
      if (b.fetcherStalled) return `broker ${id}'s replica fetchers are stalled (it heartbeats but does not fetch)`;
      return null;
  }
}

/** Why a leader or ISR changed, as a clause ("… because <clause>"). */
const REASON_TEXT: Record<ChangeReasonView, string> = {
  create: 'the topic was created',
  'isr-shrink': 'the leader found it had not caught up within replica.lag.time.max.ms',
  'isr-expand': 'a follower caught up',
  'broker-fenced': 'the controller fenced its broker (no heartbeat within broker.session.timeout.ms)',
  'broker-unfenced': 'a broker came back',
  'controlled-shutdown': 'its broker began a controlled shutdown',
  'broker-reregistered': 'its broker registered again after a restart',
  'preferred-election': 'a preferred leader election ran',
  'auto-rebalance': 'the automatic leader rebalance ran',
  'unclean-election': 'an unclean election chose a leader from outside the ISR',
  'last-known-leader': 'the ISR and the eligible leader replicas were empty, so the controller elected the last known leader (an unclean election, KIP-966)',
  reassignment: 'a reassignment changed the replicas',
  'reassignment-cancel': 'a reassignment was cancelled',
  'config-change': 'a config changed',
};

/** A ChangeReasonView as a clause. */
export function reasonText(reason: ChangeReasonView): string {
  return REASON_TEXT[reason] ?? reason;
}

/** States in which a broker sends no heartbeat (its process is gone, or its links are cut). */
const SILENT = new Set(['killed', 'power-lost', 'stopped', 'storage-failed']);

/** A broker the controller still counts as live although it cannot serve: it has not been fenced yet. */
export interface UnfencedDeadBroker {
  brokerId: number;
  /** "broker 2 is killed (its process died)". */
  trouble: string;
  /** When it went silent (cluster time), from its last state change; null when no event says. */
  sinceMs: number | null;
  /**
   * It hosted the active controller: the brokers elect another controller first, which gives
   * every broker a fresh session (as a newly active KRaft controller does), so the fencing comes
   * broker.session.timeout.ms after the new controller took over.
   */
  controllerLost: boolean;
  /** When the controller should fence it; null when it cannot be told yet. */
  fenceAtMs: number | null;
}

/**
 * Whether `id` is a broker whose process is gone (or whose links are cut) while the controller
 * still lists it: the metadata says it leads or is in sync, yet nothing reaches it until the
 * controller fences it. Null when the broker is fine, or already fenced (the metadata then says so).
 * `events`: recent events, oldest first (its state changes and controller changes).
 */
export function unfencedDeadBroker(id: number, b: BrokerView | undefined, events: readonly EngineEvent[], sessionTimeoutMs: number | null): UnfencedDeadBroker | null {
  if (!b || !(SILENT.has(b.state) || (b.state === 'running' && b.isolated))) return null;
  const trouble = brokerTrouble(id, b);
  if (!trouble) return null;
  const last = [...events].reverse().find((e) => e.type === 'broker.stateChanged' && e.brokerId === id && e.state === b.state);
  // Isolation changes no state (no event says when the links were cut).
  const sinceMs = b.state === 'running' ? null : (last?.atMs ?? null);
  const after = sinceMs === null ? [] : events.filter((e) => e.atMs >= sinceMs && e.type === 'controller.changed');
  const controllerLost = after.some((e) => e.type === 'controller.changed' && e.previousControllerId === id && e.controllerId === null);
  const takeover = controllerLost ? after.find((e) => e.type === 'controller.changed' && e.controllerId !== null) : undefined;
  const from = controllerLost ? (takeover?.atMs ?? null) : sinceMs;
  return { brokerId: id, trouble, sinceMs, controllerLost, fenceAtMs: from !== null && sessionTimeoutMs !== null ? from + sessionTimeoutMs : null };
}
