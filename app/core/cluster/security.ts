/**
 * The cluster's security as the engine's door offers it (`engine.security`): each broker's
 * authorizer over its own copy of the ACL bindings, each broker's quota sensors, and the
 * controller's security changes (ACLs, SCRAM credentials, client quotas).
 *
 * Invariants: a broker authorizes and enforces quotas from its own metadata image (a stopped
 * broker's last image serves nothing: its listener is closed), so a change reaches a client once
 * that broker has applied the record, as in Kafka; quota sensors are soft state and start empty
 * when a broker starts again; the authorizer's configuration is static (server.properties), read
 * once.
 */
import type { MetadataImage } from '../metadata/image.js';
import { filterMatches, type AclBinding, type AclBindingFilter } from '../security/acl.js';
import { Authorizer, authorizerConfig, type AuthorizerConfig } from '../security/authorizer.js';
import { describeClientQuotas, entityKey, type QuotaAlteration, type QuotaAlterResult, type QuotaEntry, type QuotaFilterComponent } from '../security/client-quotas.js';
import { IpConnectionQuotas } from '../security/connection-quotas.js';
import { BrokerQuotas, type QuotaSensorView, type QuotaWindow } from '../security/quota-sensors.js';
import { describeScramCredentials, type ScramAlterResult, type ScramCredential, type ScramDeletion, type ScramDescribeResult, type ScramUpsertion } from '../security/scram.js';
import type { AclCreateResult, AclCreation, AclDeleteResult } from '../controller/security-control.js';
import type { ClusterContext } from './context.js';

/** One broker's sensors, with the broker generation they belong to. */
interface QuotaSlot {
  generation: number;
  quotas: BrokerQuotas;
}

function intConfig(configs: Readonly<Record<string, string>>, name: string, fallback: number): number {
  const v = Number(configs[name]);
  return Number.isInteger(v) && v >= 1 ? v : fallback;
}

export class ClusterSecurity {
  readonly config: AuthorizerConfig;
  private readonly authorizers = new Map<MetadataImage, { version: number; authorizer: Authorizer }>();
  private readonly quotaSlots = new Map<number, QuotaSlot>();
  private readonly connectionSlots = new Map<number, { generation: number; quotas: IpConnectionQuotas }>();
  private readonly windows: { client: QuotaWindow; controller: QuotaWindow };

  constructor(private readonly ctx: ClusterContext) {
    this.config = authorizerConfig(ctx.staticConfigs);
    const s = ctx.staticConfigs;
    this.windows = {
      client: { samples: intConfig(s, 'quota.window.num', 11), windowMs: 1000 * intConfig(s, 'quota.window.size.seconds', 1) },
      controller: { samples: intConfig(s, 'controller.quota.window.num', 11), windowMs: 1000 * intConfig(s, 'controller.quota.window.size.seconds', 1) },
    };
  }

  /** The image a broker serves from: its own, or the controller's for a broker the engine does not know. */
  private imageOf(brokerId: number): MetadataImage {
    return this.ctx.brokers.get(brokerId)?.image ?? this.ctx.controller.image;
  }

  /** Broker `brokerId`'s authorizer (rebuilt when its bindings change). */
  authorizer(brokerId: number): Authorizer {
    return this.authorizerOf(this.imageOf(brokerId));
  }

  /** The authorizer over the controller's committed bindings (what the console explains access with). */
  committedAuthorizer(): Authorizer {
    return this.authorizerOf(this.ctx.controller.image);
  }

  private authorizerOf(image: MetadataImage): Authorizer {
    const cached = this.authorizers.get(image);
    if (cached && cached.version === image.securityVersion) return cached.authorizer;
    // A restarted broker has a new image: drop the entries of images no broker holds any more.
    const live = new Set<MetadataImage>([this.ctx.controller.image, ...[...this.ctx.brokers.values()].map((b) => b.image)]);
    for (const key of this.authorizers.keys()) if (!live.has(key)) this.authorizers.delete(key);
    const authorizer = new Authorizer(this.config, image.acls.values());
    this.authorizers.set(image, { version: image.securityVersion, authorizer });
    return authorizer;
  }

  /** Broker `brokerId`'s quota sensors (empty again after the broker restarts). */
  quotas(brokerId: number): BrokerQuotas {
    const generation = this.ctx.brokers.get(brokerId)?.generation ?? 0;
    let slot = this.quotaSlots.get(brokerId);
    if (!slot || slot.generation !== generation) {
      const quotas = new BrokerQuotas(
        () => this.windows,
        (key, entity) => this.imageOf(brokerId).clientQuotas.get(entityKey(entity))?.values[key],
        () => this.imageOf(brokerId).securityVersion,
      );
      this.quotaSlots.set(brokerId, (slot = { generation, quotas }));
    }
    return slot.quotas;
  }

  /** Broker `brokerId`'s per-IP connection creation rates (connection-quotas.ts; empty again after a restart). */
  connectionQuotas(brokerId: number): IpConnectionQuotas {
    const generation = this.ctx.brokers.get(brokerId)?.generation ?? 0;
    let slot = this.connectionSlots.get(brokerId);
    if (!slot || slot.generation !== generation) {
      const rateOf = (entity: { ip: string | null }) => this.imageOf(brokerId).clientQuotas.get(entityKey(entity))?.values['connection_creation_rate'];
      this.connectionSlots.set(brokerId, (slot = { generation, quotas: new IpConnectionQuotas(() => this.windows.client, rateOf) }));
    }
    return slot.quotas;
  }

  /** Every broker's live quota sensors, now. */
  quotaSensors(): { brokerId: number; sensors: QuotaSensorView[] }[] {
    const now = this.ctx.scheduler.now();
    return [...this.quotaSlots.entries()].sort(([a], [b]) => a - b).map(([brokerId, slot]) => ({ brokerId, sensors: slot.quotas.views(now) }));
  }

  // ================================================================ ACLs

  createAcls(creations: readonly AclCreation[]): AclCreateResult[] {
    return this.ctx.controller.security.createAcls(creations);
  }

  deleteAcls(filters: readonly AclBindingFilter[]): AclDeleteResult[] {
    return this.ctx.controller.security.deleteAcls(filters);
  }

  /** The bindings a filter matches, from broker `brokerId`'s image (or the controller's when absent). */
  describeAcls(filter: AclBindingFilter, brokerId?: number): AclBinding[] {
    const image = brokerId === undefined ? this.ctx.controller.image : this.imageOf(brokerId);
    return [...image.acls.values()].filter((b) => filterMatches(filter, b)).map((b) => ({ ...b }));
  }

  // ================================================================ SCRAM credentials

  alterScramCredentials(deletions: readonly ScramDeletion[], upsertions: readonly ScramUpsertion[]): ScramAlterResult[] {
    return this.ctx.controller.security.alterScramCredentials(deletions, upsertions);
  }

  describeScramCredentials(users: readonly string[] | null, brokerId?: number): ScramDescribeResult[] {
    const image = brokerId === undefined ? this.ctx.controller.image : this.imageOf(brokerId);
    return describeScramCredentials(image.scramCredentials.values(), users);
  }

  /** The credential broker `brokerId` authenticates `name` with (a SASL/SCRAM login). */
  scramCredential(brokerId: number, name: string, mechanism: string): ScramCredential | undefined {
    const c = this.imageOf(brokerId).scramCredential(name, mechanism);
    return c ? { ...c } : undefined;
  }

  // ================================================================ client quotas

  alterClientQuotas(alterations: readonly QuotaAlteration[], validateOnly = false): QuotaAlterResult[] {
    return this.ctx.controller.security.alterClientQuotas(alterations, validateOnly);
  }

  describeClientQuotas(components: readonly QuotaFilterComponent[], strict: boolean, brokerId?: number): QuotaEntry[] {
    const image = brokerId === undefined ? this.ctx.controller.image : this.imageOf(brokerId);
    return describeClientQuotas(image.clientQuotas.values(), components, strict);
  }
}
