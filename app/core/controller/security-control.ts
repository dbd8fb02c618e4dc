/**
 * The controller's security state changes, as KRaft's AclControlManager, ScramControlManager and
 * ClientQuotaControlManager make them: CreateAcls, DeleteAcls, AlterUserScramCredentials and
 * AlterClientQuotas become metadata records committed in one batch per request (all or nothing
 * for what was valid), so every broker's image, a restart and a controller failover see the same
 * bindings, credentials and quotas.
 */
import { KafkaError, type KafkaErrorName } from '../../api/errors.js';
import type { MetadataImage } from '../metadata/image.js';
import type { CommittedRecord, MetadataRecord } from '../metadata/records.js';
import type { Random } from '../random.js';
import { filterMatches, sameBinding, validateFilter, validateNewBinding, type AclBinding, type AclBindingFilter } from '../security/acl.js';
import { alterClientQuotas, entityKey, type QuotaAlteration, type QuotaAlterResult } from '../security/client-quotas.js';
import { alterScramCredentials, type ScramAlterResult, type ScramDeletion, type ScramUpsertion } from '../security/scram.js';

export interface SecurityHost {
  readonly image: MetadataImage;
  readonly random: Random;
  requireActive(): void;
  commit(records: MetadataRecord[]): CommittedRecord[];
}

/** A binding to create, as the request named it (validated here). */
export type AclCreation = Parameters<typeof validateNewBinding>[0];

export interface AclCreateResult {
  errorCode: KafkaErrorName;
  errorMessage: string | null;
}

export interface AclDeleteResult {
  errorCode: KafkaErrorName;
  errorMessage: string | null;
  /** The bindings the filter removed. */
  matching: AclBinding[];
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function failure(e: unknown): { errorCode: KafkaErrorName; errorMessage: string | null } {
  if (e instanceof KafkaError && e.code !== 'INTERNAL') return { errorCode: e.code as KafkaErrorName, errorMessage: e.message };
  throw e;
}

export class SecurityControl {
  constructor(private readonly host: SecurityHost) {}

  /** An ACL id as Kafka's Uuid prints it (22 URL-safe base64 characters), never one in use. */
  private newAclId(): string {
    for (;;) {
      let id = ALPHABET[this.host.random.nextInt(64) % 62]!;
      for (let i = 1; i < 21; i++) id += ALPHABET[this.host.random.nextInt(64)];
      id += ALPHABET[this.host.random.nextInt(64) & 0b110000];
      if (!this.host.image.acls.has(id)) return id;
    }
  }

  /** CreateAcls: each binding validated on its own; one already stored (or twice in the request) succeeds without a record. */
  createAcls(creations: readonly AclCreation[]): AclCreateResult[] {
    this.host.requireActive();
    const records: MetadataRecord[] = [];
    const added: AclBinding[] = [];
    const results = creations.map((c): AclCreateResult => {
      try {
        const binding = validateNewBinding(c);
        const known = [...this.host.image.acls.values(), ...added].some((b) => sameBinding(b, binding));
        if (!known) {
          added.push(binding);
          records.push({ type: 'AccessControlEntry', id: this.newAclId(), binding: { ...binding } });
        }
        return { errorCode: 'NONE', errorMessage: null };
      } catch (e) {
        return failure(e);
      }
    });
    this.host.commit(records);
    return results;
  }

  /** DeleteAcls: per filter, the bindings it matches; a binding two filters match is removed once and reported by both. */
  deleteAcls(filters: readonly AclBindingFilter[]): AclDeleteResult[] {
    this.host.requireActive();
    const removed = new Set<string>();
    const results = filters.map((f): AclDeleteResult => {
      try {
        validateFilter(f);
      } catch (e) {
        return { ...failure(e), matching: [] };
      }
      const matching: AclBinding[] = [];
      for (const [id, b] of this.host.image.acls) {
        if (!filterMatches(f, b)) continue;
        matching.push({ ...b });
        removed.add(id);
      }
      return { errorCode: 'NONE', errorMessage: null, matching };
    });
    this.host.commit([...removed].map((id): MetadataRecord => ({ type: 'RemoveAccessControlEntry', id })));
    return results;
  }

  /** AlterUserScramCredentials with the keys already derived from each salted password. */
  alterScramCredentials(deletions: readonly ScramDeletion[], upsertions: readonly ScramUpsertion[]): ScramAlterResult[] {
    this.host.requireActive();
    const { records, results } = alterScramCredentials((name, mechanism) => this.host.image.scramCredential(name, mechanism) !== undefined, deletions, upsertions);
    this.host.commit(records);
    return results;
  }

  /** AlterClientQuotas; `validateOnly` answers as the change would and commits nothing. */
  alterClientQuotas(alterations: readonly QuotaAlteration[], validateOnly = false): QuotaAlterResult[] {
    this.host.requireActive();
    const { records, results } = alterClientQuotas((entity) => this.host.image.clientQuotas.get(entityKey(entity))?.values, alterations);
    if (!validateOnly) this.host.commit(records);
    return results;
  }
}
