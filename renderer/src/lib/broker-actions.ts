/**
 * The one table of broker lifecycle and fault actions: what each is called (buttons, step
 * summaries, error toasts), what Kafka does when it happens (tooltips, the legend), what the
 * success toast says, which broker states it makes sense in, and what to confirm before the
 * abrupt ones. The brokers page, the drills page, the topic page's quick kill and the scripted
 * drills all read it, so an action reads the same everywhere. The engine refuses an action the
 * state does not allow with INVALID_STATE anyway; `unavailable` only saves the round trip and
 * says why.
 */
import type { Capability } from '../../../app/api/capabilities.js';
import type { BrokerView, MethodName, Result } from '../../../app/api/contract.js';
import type { BrokerState } from '../../../app/api/events.js';
import type { Call } from '../api/client.js';

export type BrokerAction = 'start' | 'stop' | 'kill' | 'powerLoss' | 'isolate' | 'heal' | 'stall' | 'unstall' | 'remove';

export interface BrokerActionSpec {
  action: BrokerAction;
  /** The contract method it calls. */
  method: MethodName;
  /** What the connection must offer (an external cluster offers neither: the button is disabled with its reason). */
  capability: Extract<Capability, 'faults' | 'brokerMembership'>;
  label: string;
  /** What Kafka does when this happens, in one paragraph. */
  kafka: string;
  /** The success toast after "Broker 2 …". */
  done: string;
  /** Why the action makes no sense for this broker now, or null when it does. */
  unavailable(b: BrokerView): string | null;
  /** What to confirm first, for actions that lose data or availability abruptly. */
  confirm?: (b: BrokerView) => string;
  danger?: boolean;
}

/** A process is up in these states (starting, registered, fenced, or shutting down). */
const ALIVE = new Set<BrokerState>(['starting', 'fenced', 'running', 'controlled-shutdown']);

export function isAlive(b: BrokerView): boolean {
  return ALIVE.has(b.state);
}

const needsAlive = (b: BrokerView): string | null => (isAlive(b) ? null : `Broker ${b.id} is not running (${b.state}).`);

const TABLE: BrokerActionSpec[] = [
  {
    action: 'start',
    method: 'brokers.start',
    capability: 'faults',
    label: 'Start',
    kafka: 'Starts a new incarnation: it recovers its logs from disk, registers with a new broker epoch, is unfenced and catches up as a follower (leadership returns with a preferred election or auto.leader.rebalance).',
    done: 'started',
    unavailable: (b) => (isAlive(b) ? `Broker ${b.id} is already running.` : null),
  },
  {
    action: 'stop',
    method: 'brokers.stop',
    capability: 'faults',
    label: 'Controlled shutdown',
    kafka: 'The controller moves leadership off the broker first, then it flushes every log and stops, so clients see a leader change rather than errors and nothing is lost.',
    done: 'shut down (controlled)',
    unavailable: (b) => (b.state === 'controlled-shutdown' ? `Broker ${b.id} is already shutting down.` : needsAlive(b)),
  },
  {
    action: 'kill',
    method: 'brokers.kill',
    capability: 'faults',
    label: 'Kill',
    kafka: 'SIGKILL: the process dies at once; the partitions it leads stay offline until its session (broker.session.timeout.ms) expires and the controller elects new leaders. Its writes survive in the OS page cache.',
    done: 'killed',
    unavailable: needsAlive,
    confirm: (b) =>
      `Kill broker ${b.id}? The process dies without moving leadership: ${
        b.leaderCount === 0 ? 'it leads no partition, and its replicas leave the ISR' : `the ${b.leaderCount} partition${b.leaderCount === 1 ? '' : 's'} it leads fail over`
      } once its session times out.`,
    danger: true,
  },
  {
    action: 'powerLoss',
    method: 'brokers.powerLoss',
    capability: 'faults',
    label: 'Power loss',
    kafka: 'The machine loses power: like a kill, and every log also loses its unflushed tail (above the flushed offset, per log.flush.interval.*); on restart the broker truncates and re-fetches from the leaders, and records only it held are gone.',
    done: 'lost power',
    unavailable: (b) => (isAlive(b) || b.state === 'killed' ? null : b.state === 'power-lost' ? `Broker ${b.id} has already lost power.` : `Broker ${b.id} is not running (${b.state}): nothing unflushed to lose.`),
    confirm: (b) => `Cut the power of broker ${b.id}? Records it had not flushed to disk are lost.`,
    danger: true,
  },
  {
    action: 'isolate',
    method: 'brokers.isolate',
    capability: 'faults',
    label: 'Isolate',
    kafka: 'Network partition: every link of the broker is cut while the process keeps running. It misses heartbeats and is fenced; its replicas drop out of the ISR after replica.lag.time.max.ms.',
    done: 'isolated from the network',
    unavailable: (b) => (b.isolated ? `Broker ${b.id} is already isolated.` : needsAlive(b)),
  },
  {
    action: 'heal',
    method: 'brokers.heal',
    capability: 'faults',
    label: 'Heal',
    kafka: 'Restores every network link (and resumes stalled fetchers): the broker heartbeats again, is unfenced, and its followers catch up and rejoin the ISR.',
    done: 'healed (links restored, fetchers resumed)',
    unavailable: (b) => (b.isolated ? null : `Broker ${b.id} is not isolated.`),
  },
  {
    action: 'stall',
    method: 'brokers.stallFollower',
    capability: 'faults',
    label: 'Stall fetchers',
    kafka: 'Stops the broker’s replica fetchers while it keeps heartbeating: it stays registered, but its follower replicas fall behind and leave the ISR after replica.lag.time.max.ms.',
    done: 'fetchers stalled',
    unavailable: (b) => (b.fetcherStalled ? `Broker ${b.id}’s fetchers are already stalled.` : needsAlive(b)),
  },
  {
    action: 'unstall',
    method: 'brokers.stallFollower',
    capability: 'faults',
    label: 'Resume fetchers',
    kafka: 'Resumes the broker’s replica fetchers: its followers catch up to the leaders’ log end offsets and rejoin the ISR.',
    done: 'fetchers resumed',
    unavailable: (b) => (b.fetcherStalled ? null : `Broker ${b.id}’s fetchers are not stalled.`),
  },
  {
    action: 'remove',
    method: 'brokers.remove',
    capability: 'brokerMembership',
    label: 'Remove',
    kafka: 'Unregisters a stopped broker from the cluster. Kafka refuses while it still hosts replicas: drain it first with a balance plan that excludes it.',
    done: 'removed from the cluster',
    unavailable: (b) =>
      isAlive(b)
        ? `Broker ${b.id} is running: shut it down before removing it.`
        : b.partitionCount > 0
          ? `Broker ${b.id} still hosts ${b.partitionCount} replica${b.partitionCount === 1 ? '' : 's'}: drain it first (Balance, excluding broker ${b.id}), then remove it.`
          : null,
    confirm: (b) => `Remove broker ${b.id} from the cluster? It must host no replicas.`,
    danger: true,
  },
];

/** Every action, in the order the legend lists them. */
export const BROKER_ACTIONS: readonly BrokerActionSpec[] = TABLE;

export const BROKER_ACTION: Readonly<Record<BrokerAction, BrokerActionSpec>> = Object.fromEntries(TABLE.map((a) => [a.action, a])) as Record<BrokerAction, BrokerActionSpec>;

/** Run one action on one broker through the contract: the broker as the engine answered, or its refusal. */
export function callBrokerAction(call: Call, action: BrokerAction, brokerId: number): Promise<Result<BrokerView | { brokerId: number }>> {
  switch (action) {
    case 'start':
      return call('brokers.start', { brokerId });
    case 'stop':
      return call('brokers.stop', { brokerId });
    case 'kill':
      return call('brokers.kill', { brokerId });
    case 'powerLoss':
      return call('brokers.powerLoss', { brokerId });
    case 'isolate':
      return call('brokers.isolate', { brokerId });
    case 'heal':
      return call('brokers.heal', { brokerId });
    case 'stall':
      return call('brokers.stallFollower', { brokerId, stalled: true });
    case 'unstall':
      return call('brokers.stallFollower', { brokerId, stalled: false });
    case 'remove':
      return call('brokers.remove', { brokerId });
  }
}
