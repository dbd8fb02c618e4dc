/**
 * The explorer's invariants, checked after every move along a path (they keep the path's history):
 *
 * 1. No acknowledged record is lost: the leader of the controller's current epoch, while it
 *    serves, holds every acknowledged record at its offset.
 * 2. The HW never moves backwards along the leader-epoch chain: a leader's HW is monotonic in its
 *    epoch, and a leader taking over an epoch starts with every offset an earlier epoch committed.
 * 3. The controller's leader is in its ISR, and the ISR is a non-empty subset of the replicas.
 * 4. At most one broker leads each leader epoch.
 * 5. Every live replica's log is a prefix of the committed log up to its own HW: no replica ever
 *    exposes as committed a record the cluster committed differently.
 * With eligible leader replicas on (KIP-966; docs/semantics.md#eligible-leader-replicas-kip-966):
 * 6. ELR and last known ELR are replicas, and no ELR member is in the ISR; the ISR may be empty,
 *    and then there is no leader.
 * 7. While the ISR has at least min ISR members, the ELR and the last known ELR are empty.
 * 8. An ELR member holds every committed record: checked on each member the controller has
 *    registered in its current incarnation (a broker back from a power loss must have left the
 *    ELR by then, since its unflushed tail is gone).
 * With the security scope (security-scope.ts):
 * 9. Every live broker's ACL bindings, authorizer answer and SCRAM credential are the controller's
 *    committed state as of the broker's metadata offset.
 *
 * 1, 2 and 5 are waived once Kafka itself allows a loss: an unclean election (KIP-966's motivation,
 * and scenario 13), or a power loss of every member of the ISR (each lost its unflushed tail). A
 * waived loss is still reported, as `excused`, so a test can show the explorer finds it.
 */
import type { World } from './world.js';

interface Committed {
  value: string;
  epoch: number;
}

export class PathChecker {
  readonly violations: string[] = [];
  /** Losses Kafka allows here (unclean election, power loss of the whole ISR), when found. */
  readonly excused: string[] = [];
  private waiver: string | null = null;
  private readonly committed = new Map<number, Committed>();
  private readonly leaderOfEpoch = new Map<number, number>();
  private readonly hwOf = new Map<string, number>();
  private readonly powerLost = new Set<number>();

  constructor(private readonly world: World) {
    world.sim.engine.subscribe((e) => {
      if (e.type === 'leader.changed' && e.unclean) this.waive(`unclean election of ${e.leader}`);
      if (e.type === 'replica.truncated' && e.reason === 'power-loss') this.powerLost.add(e.brokerId);
      // Back in the ISR, it holds the committed prefix again.
      if (e.type === 'isr.expanded') for (const b of e.added) this.powerLost.delete(b);
    });
  }

  private waive(why: string): void {
    this.waiver ??= why;
  }

  private report(message: string): void {
    if (this.waiver) this.excused.push(`${message} (allowed: ${this.waiver})`);
    else this.violations.push(message);
  }

  /** Check every invariant in the current state. */
  check(): void {
    const { sim } = this.world;
    const state = sim.engine.metadata.topicsByName.get('t')!.partitions.get(0)!;
    const elrOn = this.world.scope.elr === true;
    const elr = state.elr ?? [];
    // With ELR, an eligible replica is as much a holder of the committed records as an ISR member.
    const members = [...state.isr, ...(elrOn ? elr : [])].filter((b) => b !== 0);
    if (members.length > 0 && members.every((b) => this.powerLost.has(b))) this.waive(`power loss of every ${elrOn ? 'ISR and ELR' : 'ISR'} member (${members.join(',')})`);
    if ((state.isr.length === 0 && !elrOn) || state.isr.some((b) => !state.replicas.includes(b))) this.violations.push(`ISR [${state.isr}] is not a non-empty subset of replicas [${state.replicas}]`);
    if (state.leader >= 0 && !state.isr.includes(state.leader)) this.violations.push(`leader ${state.leader} is not in ISR [${state.isr}]`);
    if (elrOn) this.checkElr(state);
    this.world.security?.check((m) => this.violations.push(m));

    for (const id of this.world.ids) {
      const b = sim.internals.brokers.get(id)!;
      const p = b.isAlive ? b.partitionFor('t', 0) : undefined;
      if (!p) continue;
      const log = entries(p.log.read(p.log.logStartOffset, p.log.logEndOffset, Number.MAX_SAFE_INTEGER));
      if (p.isLeader) {
        const known = this.leaderOfEpoch.get(p.leaderEpoch);
        if (known !== undefined && known !== id) this.violations.push(`brokers ${known} and ${id} both led epoch ${p.leaderEpoch}`);
        if (known === undefined) {
          this.leaderOfEpoch.set(p.leaderEpoch, id);
          const committedEnd = this.committed.size;
          if (p.leaderEpochStartOffset < committedEnd) this.report(`broker ${id} took over epoch ${p.leaderEpoch} with log end ${p.leaderEpochStartOffset}, below the committed ${committedEnd}`);
        }
        const key = `${id}|${p.leaderEpoch}`;
        const hw = p.log.highWatermark;
        const before = this.hwOf.get(key);
        if (before !== undefined && hw < before) this.violations.push(`leader ${id} HW went back from ${before} to ${hw} in epoch ${p.leaderEpoch}`);
        this.hwOf.set(key, hw);
        for (let o = 0; o < hw; o++) {
          const r = log.get(o);
          if (!r) continue;
          const c = this.committed.get(o);
          if (!c) this.committed.set(o, r);
          else if (c.value !== r.value || c.epoch !== r.epoch) this.report(`leader ${id} exposes ${show(r)} at committed offset ${o}, which was ${show(c)}`);
        }
        if (p.leaderEpoch === state.leaderEpoch && state.leader === id) {
          for (const a of this.world.acked) {
            const r = log.get(a.offset);
            if (r?.value !== a.value) this.report(`acknowledged ${a.value}@${a.offset} lost: leader ${id} of epoch ${p.leaderEpoch} has ${r ? show(r) : 'nothing'} there`);
          }
        }
      }
      for (let o = p.log.logStartOffset; o < p.log.highWatermark; o++) {
        const c = this.committed.get(o);
        const r = log.get(o);
        if (c && r && (c.value !== r.value || c.epoch !== r.epoch)) this.report(`replica ${id} has ${show(r)} below its HW at ${o}, committed ${show(c)}`);
      }
    }
  }

  private checkElr(state: { isr: readonly number[]; replicas: readonly number[]; elr?: readonly number[]; lastKnownElr?: readonly number[] }): void {
    const { sim, scope } = this.world;
    const elr = state.elr ?? [];
    const lastKnown = state.lastKnownElr ?? [];
    if ([...elr, ...lastKnown].some((b) => !state.replicas.includes(b)) || elr.some((b) => state.isr.includes(b))) {
      this.violations.push(`ELR [${elr}] / last known ELR [${lastKnown}] not replicas outside ISR [${state.isr}]`);
    }
    if (state.isr.length >= scope.minInsyncReplicas && (elr.length > 0 || lastKnown.length > 0)) {
      this.violations.push(`ISR [${state.isr}] is at min ISR ${scope.minInsyncReplicas} but ELR [${elr}], last known ELR [${lastKnown}] are kept`);
    }
    for (const id of elr) {
      const b = sim.internals.brokers.get(id)!;
      const p = b.isAlive ? b.partitionFor('t', 0) : undefined;
      if (!p || b.brokerEpoch < 0 || sim.engine.metadata.brokers.get(id)?.brokerEpoch !== b.brokerEpoch) continue;
      const log = entries(p.log.read(p.log.logStartOffset, p.log.logEndOffset, Number.MAX_SAFE_INTEGER));
      for (const [o, c] of this.committed) {
        const r = log.get(o);
        if (!r || r.value !== c.value) this.report(`ELR member ${id} lacks committed ${show(c)} at ${o} (it has ${r ? show(r) : 'nothing'})`);
      }
    }
  }

  /** What the fingerprint needs of the path's history (it decides future verdicts). */
  summary(): string {
    return `${[...this.committed].map(([o, c]) => `${o}:${c.value}`).join(',')}|${this.waiver ? 'w' : ''}|${[...this.powerLost].sort().join(',')}`;
  }
}

function entries(batches: readonly { baseOffset: number; leaderEpoch: number; records: readonly { value: Uint8Array | null }[] }[]): Map<number, Committed> {
  const out = new Map<number, Committed>();
  const decoder = new TextDecoder();
  for (const b of batches) b.records.forEach((r, i) => out.set(b.baseOffset + i, { value: r.value ? decoder.decode(r.value) : '', epoch: b.leaderEpoch }));
  return out;
}

function show(c: Committed): string {
  return `'${c.value}'(epoch ${c.epoch})`;
}
