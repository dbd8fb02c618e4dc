/**
 * The lifecycle and fault actions of the brokers page: what each is called, what Kafka does when
 * it happens (the button's tooltip), and in which broker states it makes sense. The engine
 * refuses the rest with INVALID_STATE anyway; disabling them up front saves a round trip and says
 * why.
 */
import type { BrokerView } from '../../../../app/api/contract.js';
import type { BrokerState } from '../../../../app/api/events.js';
import type { BrokerAction } from '../../stores/brokers.js';

/** A process is up in these states (starting, registered, fenced, or shutting down). */
const ALIVE = new Set<BrokerState>(['starting', 'fenced', 'running', 'controlled-shutdown']);

export function isAlive(b: BrokerView): boolean {
  return ALIVE.has(b.state);
}

export interface FaultSpec {
  action: BrokerAction;
  label: string;
  /** One line: what Kafka does when this happens. */
  does: string;
  /** Why the button is disabled for this broker, or null when it is enabled. */
  unavailable(b: BrokerView): string | null;
  /** Text of the confirmation, for actions that lose data or availability abruptly. */
  confirm?: (b: BrokerView) => string;
  danger?: boolean;
}

const needsAlive = (b: BrokerView): string | null => (isAlive(b) ? null : `Broker ${b.id} is not running (${b.state}).`);

export const FAULTS: FaultSpec[] = [
  {
    action: 'start',
    label: 'Start',
    does: 'Starts a new incarnation: it recovers its logs from disk, registers with a new broker epoch, is unfenced and catches up as a follower (leadership returns with a preferred election or auto.leader.rebalance).',
    unavailable: (b) => (isAlive(b) ? `Broker ${b.id} is already running.` : null),
  },
  {
    action: 'stop',
    label: 'Shut down',
    does: 'Controlled shutdown: the controller moves leadership off the broker first, then it flushes every log and stops, so clients see a leader change rather than errors and nothing is lost.',
    unavailable: (b) => (b.state === 'controlled-shutdown' ? `Broker ${b.id} is already shutting down.` : needsAlive(b)),
  },
  {
    action: 'kill',
    label: 'Kill',
    does: 'SIGKILL: the process dies at once; the partitions it leads stay offline until its session (broker.session.timeout.ms) expires and the controller elects new leaders. Its writes survive in the OS page cache.',
    unavailable: needsAlive,
    confirm: (b) =>
      `Kill broker ${b.id}? The process dies without moving leadership: ${
        b.leaderCount === 0 ? 'it leads no partition, and its replicas leave the ISR' : `the ${b.leaderCount} partition${b.leaderCount === 1 ? '' : 's'} it leads fail over`
      } once its session times out.`,
    danger: true,
  },
  {
    action: 'powerLoss',
    label: 'Power loss',
    does: 'The machine loses power: like a kill, and every log also loses its unflushed tail (above the flushed offset, per log.flush.interval.*); on restart the broker truncates and re-fetches from the leaders, and records only it held are gone.',
    unavailable: (b) => (isAlive(b) || b.state === 'killed' ? null : b.state === 'power-lost' ? `Broker ${b.id} has already lost power.` : `Broker ${b.id} is not running (${b.state}): nothing unflushed to lose.`),
    confirm: (b) => `Cut the power of broker ${b.id}? Records it had not flushed to disk are lost.`,
    danger: true,
  },
  {
    action: 'isolate',
    label: 'Isolate',
    does: 'Network partition: every link of the broker is cut while the process keeps running. It misses heartbeats and is fenced; its replicas drop out of the ISR after replica.lag.time.max.ms.',
    unavailable: (b) => (b.isolated ? `Broker ${b.id} is already isolated.` : needsAlive(b)),
  },
  {
    action: 'heal',
    label: 'Heal',
    does: 'Restores every network link (and resumes stalled fetchers): the broker heartbeats again, is unfenced, and its followers catch up and rejoin the ISR.',
    unavailable: (b) => (b.isolated ? null : `Broker ${b.id} is not isolated.`),
  },
  {
    action: 'stall',
    label: 'Stall',
    does: 'Stops the broker’s replica fetchers while it keeps heartbeating: it stays registered, but its follower replicas fall behind and leave the ISR after replica.lag.time.max.ms.',
    unavailable: (b) => (b.fetcherStalled ? `Broker ${b.id}’s fetchers are already stalled.` : needsAlive(b)),
  },
  {
    action: 'unstall',
    label: 'Unstall',
    does: 'Resumes the broker’s replica fetchers: its followers catch up to the leaders’ log end offsets and rejoin the ISR.',
    unavailable: (b) => (b.fetcherStalled ? null : `Broker ${b.id}’s fetchers are not stalled.`),
  },
  {
    action: 'remove',
    label: 'Remove',
    does: 'Unregisters a stopped broker from the cluster. Kafka refuses while it still hosts replicas: drain it first with a balance plan that excludes it.',
    unavailable: (b) => (isAlive(b) ? `Broker ${b.id} is running: shut it down before removing it.` : null),
    confirm: (b) => `Remove broker ${b.id} from the cluster? It must host no replicas.`,
    danger: true,
  },
];

export const FAULT_BY_ACTION = Object.fromEntries(FAULTS.map((f) => [f.action, f])) as Record<BrokerAction, FaultSpec>;
