/**
 * Broker membership, lifecycle and fault injection: what a drill (or the fault run) does to the
 * cluster's machines and links. Each refuses what makes no sense for the broker's current state
 * with INVALID_STATE, and an unknown broker with BROKER_NOT_FOUND.
 *
 * Semantics: a controlled shutdown moves leadership away first; a kill loses nothing written (the
 * OS cache survives); a power loss loses each log's unflushed tail; an isolated broker keeps
 * running with every link cut (if it hosts the controller, the controller fails over); healing
 * restores every link of a broker and stops stalling its fetchers.
 */
import { KafkaError } from '../../api/errors.js';
import type { ClusterContext } from './context.js';

export class Faults {
  constructor(private readonly ctx: ClusterContext) {}

  /** Start a stopped, killed or powered-off broker (a new incarnation). */
  startBroker(id: number): void {
    const b = this.ctx.broker(id);
    if (b.isAlive) throw new KafkaError('INVALID_STATE', `Broker ${id} is already running.`);
    b.start();
  }

  /** Orderly stop: controlled shutdown moves leadership away first. */
  stopBroker(id: number): void {
    const b = this.ctx.broker(id);
    if (!b.isAlive) throw new KafkaError('INVALID_STATE', `Broker ${id} is not running.`);
    b.stop();
  }

  /** SIGKILL: the process dies; what it wrote survives (OS cache). */
  killBroker(id: number): void {
    const b = this.ctx.broker(id);
    if (!b.isAlive) throw new KafkaError('INVALID_STATE', `Broker ${id} is not running.`);
    b.kill();
  }

  /** Power loss: the process dies and each log loses its unflushed tail. */
  powerLossBroker(id: number): void {
    const b = this.ctx.broker(id);
    if (b.process === 'power-lost') throw new KafkaError('INVALID_STATE', `Broker ${id} has already lost power.`);
    b.powerLoss();
  }

  /** Cut every link of a broker (it keeps running). */
  isolateBroker(id: number): void {
    const ctx = this.ctx;
    ctx.broker(id);
    ctx.network.isolate(id);
    if (ctx.controller.hostBrokerId === id) ctx.controllerLost(`broker ${id} isolated`);
    ctx.refreshBrokerStates('isolated');
  }

  /** Restore every link of a broker, and stop stalling its fetchers. */
  healBroker(id: number): void {
    const ctx = this.ctx;
    const b = ctx.broker(id);
    ctx.network.heal(id);
    ctx.network.setNodeDelay(id, 0);
    b.setFetcherStalled(false);
    if (!ctx.controller.isActive) ctx.scheduleControllerElection();
    ctx.refreshBrokerStates('healed');
  }

  /** Stop (or resume) a broker's replica fetchers while it keeps heartbeating. */
  stallFollower(id: number, stalled = true): void {
    this.ctx.broker(id).setFetcherStalled(stalled);
  }

  /** Cut (or restore) the link between two brokers, or a broker and the controller. */
  cutLink(a: number | 'controller', b: number | 'controller', cut = true): void {
    if (cut) this.ctx.network.cut(a, b);
    else this.ctx.network.restore(a, b);
  }

  /** Add latency to every message to or from a broker (a slow link). */
  slowLink(id: number, delayMs: number): void {
    this.ctx.broker(id);
    this.ctx.network.setNodeDelay(id, delayMs);
  }

  /** Add a broker to the cluster (it starts and registers). */
  addBroker(input: { id?: number; rack?: string | null }): number {
    const ctx = this.ctx;
    const id = input.id ?? Math.max(0, ...ctx.brokers.keys()) + 1;
    if (!Number.isInteger(id) || id < 0) throw new KafkaError('INVALID_INPUT', `Broker id must be a non-negative integer, got ${id}.`);
    if (ctx.brokers.has(id)) throw new KafkaError('INVALID_INPUT', `Broker ${id} already exists.`);
    ctx.createBroker(id, input.rack ?? null).start();
    return id;
  }

  /** Remove a stopped broker from the cluster (unregister it). It must host no replicas. */
  removeBroker(id: number): void {
    const ctx = this.ctx;
    const b = ctx.broker(id);
    if (b.isAlive) throw new KafkaError('INVALID_STATE', `Broker ${id} is running: stop it before removing it.`);
    for (const { topic, state } of ctx.controller.image.allPartitions()) {
      if (state.replicas.includes(id)) {
        throw new KafkaError('INVALID_STATE', `Broker ${id} still hosts replicas (e.g. ${topic.name}-${state.partition}): drain it first (balance.plan with excludeBrokers, then reassignments.execute).`);
      }
    }
    if (ctx.controller.image.brokers.has(id)) ctx.controller.unregisterBroker(id);
    ctx.removeBroker(id);
  }
}
