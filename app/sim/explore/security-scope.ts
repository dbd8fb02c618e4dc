/**
 * The explorer's security scope (`--security`): ACL bindings and SCRAM credentials are metadata
 * like any other, so a broker must authorize and authenticate from exactly what the controller
 * committed up to the record it has applied, whether it got there by records, by loading a
 * snapshot after a restart, or across a controller failover.
 *
 * Setup: the StandardAuthorizer on (super.users User:admin), a first metadata snapshot taken once
 * the cluster settled, and the controller's election scaled into one tick (quorum fetch timeout
 * 500 ms, election timeout 250 ms). Moves, within budgets: `acl +` / `acl -` create or delete the
 * binding "User:alice may READ topic t"; `user +` / `user -` create (or rotate) or delete alice's
 * SCRAM-SHA-256 credential; `snapshot` writes a metadata snapshot (after the setup one, the
 * records before it are dropped, so a broker that restarts loads the snapshot, as KRaft's
 * FetchSnapshot); `failover` kills the controller's host (another broker is elected on the next
 * tick). A security change is offered only while a controller is active (a client would get
 * NOT_CONTROLLER and retry).
 *
 * Invariant: every live broker's ACL bindings, its authorizer's answer for alice, and alice's
 * credential equal the controller's committed state as of the broker's metadata offset. Changes
 * commit synchronously, so each is recorded at the offset of its record; other records leave the
 * security state as it was. A broker that has caught up therefore holds the controller's state.
 */
import { MATCH_ANY, describeBinding } from '../../core/security/acl.js';
import { Authorizer } from '../../core/security/authorizer.js';
import type { AclBinding } from '../../core/security/types.js';
import type { Simulation } from '../simulation.js';

export const SECURITY_CONFIGS: Record<string, string> = {
  'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
  'super.users': 'User:admin',
  'broker.heartbeat.interval.ms': '250',
  'broker.session.timeout.ms': '500',
  'controller.quorum.fetch.timeout.ms': '500',
  'controller.quorum.election.timeout.ms': '250',
};

/** Security changes, snapshots and failovers a path may make. */
export const SECURITY_BUDGET = { changes: 2, snapshots: 1, failovers: 1 };

const ALICE = { principal: 'User:alice', clientHost: '127.0.0.1' };
const MECHANISM = 'SCRAM-SHA-256';
const BINDING: AclBinding = { resourceType: 'TOPIC', resourceName: 't', patternType: 'LITERAL', principal: 'User:alice', host: '*', operation: 'READ', permissionType: 'ALLOW' };

/** What a broker (or the controller) holds of the security state, comparable as JSON. */
interface SecurityState {
  acls: string[];
  /** alice's credential as stored (salt, keys, iterations), or null. */
  credential: string | null;
}

export class SecurityScope {
  changes = 0;
  snapshots = 0;
  failovers = 0;
  /** alice's credential generation: each `user +` writes a new salt (a rotation). */
  private rotation = 0;
  /** The committed security state from each change's record offset on (offset -1: the empty start). */
  readonly history: { offset: number; state: SecurityState }[] = [{ offset: -1, state: { acls: [], credential: null } }];

  constructor(private readonly sim: Simulation) {}

  /** Called once the cluster settled: the first snapshot, so that the next one drops records. */
  settle(): void {
    this.sim.engine.snapshotMetadata();
  }

  moves(): string[] {
    const engine = this.sim.engine;
    const out: string[] = [];
    const active = engine.controllerId !== null;
    if (active && this.changes < SECURITY_BUDGET.changes) {
      const now = this.committed();
      out.push(now.acls.length > 0 ? 'acl -' : 'acl +', 'user +');
      if (now.credential !== null) out.push('user -');
    }
    if (active && this.snapshots < SECURITY_BUDGET.snapshots) out.push('snapshot');
    if (active && this.failovers < SECURITY_BUDGET.failovers) out.push('failover');
    return out;
  }

  /** Make a security move; false for a label that is not one. */
  apply(label: string): boolean {
    const security = this.sim.engine.security;
    switch (label) {
      case 'acl +':
        this.change(() => security.createAcls([{ ...BINDING }]));
        return true;
      case 'acl -':
        this.change(() => security.deleteAcls([{ ...MATCH_ANY, resourceType: 'TOPIC', resourceName: 't', patternType: 'LITERAL' }]));
        return true;
      case 'user +': {
        const n = ++this.rotation;
        this.change(() => security.alterScramCredentials([], [{ name: 'alice', mechanism: MECHANISM, iterations: 4096, salt: btoa(`salt-${n}`), storedKey: btoa(`stored-${n}`), serverKey: btoa(`server-${n}`) }]));
        return true;
      }
      case 'user -':
        this.change(() => security.alterScramCredentials([{ name: 'alice', mechanism: MECHANISM }], []));
        return true;
      case 'snapshot':
        this.snapshots++;
        this.sim.engine.snapshotMetadata();
        return true;
      case 'failover': {
        this.failovers++;
        const host = this.sim.engine.controllerId;
        if (host === null) throw new Error('failover with no active controller');
        this.sim.engine.killBroker(host);
        return true;
      }
      default:
        return false;
    }
  }

  private change(commit: () => void): void {
    this.changes++;
    const before = this.sim.engine.metadata.offset;
    commit();
    const image = this.sim.engine.metadata;
    if (image.offset !== before) this.history.push({ offset: image.offset, state: this.committed() });
  }

  /** The controller's committed state now. */
  committed(): SecurityState {
    return stateOf(this.sim, undefined);
  }

  /** The committed state as of metadata offset `offset`. */
  committedAt(offset: number): SecurityState {
    let state = this.history[0]!.state;
    for (const h of this.history) if (h.offset <= offset) state = h.state;
    return state;
  }

  /** Every live broker against the committed state at its own offset. */
  check(report: (message: string) => void): void {
    const config = this.sim.engine.security.config;
    for (const [id, b] of this.sim.internals.brokers) {
      if (!b.isAlive || b.image.offset < 0) continue;
      const want = this.committedAt(b.image.offset);
      const have = stateOf(this.sim, id);
      if (JSON.stringify(have) !== JSON.stringify(want)) {
        report(`broker ${id} at metadata offset ${b.image.offset} holds ${show(have)}, the controller committed ${show(want)} by then`);
      }
      const allowed = this.sim.engine.security.authorizer(id).authorize(ALICE, 'READ', 'TOPIC', 't');
      const wantAllowed = new Authorizer(config, bindingsOf(want)).authorize(ALICE, 'READ', 'TOPIC', 't');
      if (allowed !== wantAllowed) report(`broker ${id}'s authorizer ${allowed ? 'allows' : 'denies'} User:alice READ on topic t at metadata offset ${b.image.offset}; the committed bindings ${wantAllowed ? 'allow' : 'deny'} it`);
    }
  }

  /** What the fingerprint needs: the controller's and each broker's state, the snapshot, the budgets, the history. */
  fingerprint(): unknown {
    const engine = this.sim.engine;
    const brokers = [...this.sim.internals.brokers].map(([id, b]) => [id, b.process, b.isAlive ? stateOf(this.sim, id) : null, b.isAlive ? engine.security.authorizer(id).authorize(ALICE, 'READ', 'TOPIC', 't') : null]);
    return [engine.controllerId, this.sim.internals.controller.latestSnapshot()?.offset ?? -1, this.committed(), brokers, this.changes, this.snapshots, this.failovers, this.rotation, this.history.map((h) => h.offset)];
  }
}

function stateOf(sim: Simulation, brokerId: number | undefined): SecurityState {
  const security = sim.engine.security;
  const acls = security.describeAcls(MATCH_ANY, brokerId).map(describeBinding).sort();
  const image = brokerId === undefined ? sim.engine.metadata : sim.internals.brokers.get(brokerId)!.image;
  const c = image.scramCredential('alice', MECHANISM);
  return { acls, credential: c ? JSON.stringify([c.iterations, c.salt, c.storedKey, c.serverKey]) : null };
}

/** The bindings a state's descriptions stand for (only BINDING is ever created). */
function bindingsOf(state: SecurityState): AclBinding[] {
  return state.acls.includes(describeBinding(BINDING)) ? [BINDING] : [];
}

function show(s: SecurityState): string {
  return `ACLs [${s.acls.join('; ')}], alice ${s.credential === null ? 'no credential' : `credential ${s.credential}`}`;
}
