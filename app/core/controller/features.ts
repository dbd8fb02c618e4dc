/**
 * Finalized feature levels (KIP-584), as the KRaft controller's FeatureControlManager keeps them:
 * each feature has a supported range and a finalized level stored in the metadata log
 * (FeatureLevelRecord), changed by UpdateFeatures (`kafka-features.sh upgrade|downgrade`).
 *
 * Two features are modelled. `metadata.version` is Kafka 4.0's latest production level, 25
 * (4.0-IV3), the level `kafka-storage.sh format` finalizes on a new cluster: the engine implements
 * only that level's rules (e.g. an ISR shrink keeps the leader epoch, 3.6+), so its supported range
 * is 25–25 (a Kafka 4.0 broker's is 7–25: it also runs clusters not yet upgraded from 3.3–3.9) and
 * every other level is INVALID_UPDATE_VERSION. `eligible.leader.replicas.version` (KIP-966, Kafka
 * 4.0+): level 1 makes the controller keep eligible leader replicas. Rules, as Kafka's documentation of ELR
 * states them: enabling it adds a cluster-level min.insync.replicas when there is none (the
 * static value); while it is on, that cluster-level config cannot be deleted, a per-broker
 * min.insync.replicas is refused, and any change of min.insync.replicas clears the ELR of the
 * partitions it applies to (all of them for the cluster level); downgrading to 0 is safe and
 * clears every ELR and last known ELR.
 */
import { KafkaError, type KafkaErrorName } from '../../api/errors.js';
import { CLUSTER_DEFAULT, type ClusterMetadata, type MetadataImage, type TopicImage } from '../metadata/image.js';
import type { MetadataRecord, PartitionState } from '../metadata/records.js';
import { buildPartitionChange, type ChangeContext } from './partition-change.js';

export const ELR_FEATURE = 'eligible.leader.replicas.version';
/** How Kafka's controller begins the message of an UpdateFeatures it refuses as a whole. */
export const ALL_FEATURES_FAILED = 'The update failed for all features since the following feature had an error: ';
export const METADATA_VERSION_FEATURE = 'metadata.version';
/** metadata.version 4.0-IV3, Kafka 4.0's latest production level (MetadataVersion.IBP_4_0_IV3). */
export const METADATA_VERSION_LEVEL = 25;

export interface FeatureSpec {
  name: string;
  minVersion: number;
  maxVersion: number;
  /** The level a new cluster starts at when no FeatureLevel record names the feature (0 if absent). */
  bootstrapLevel?: number;
  description: string;
}

/** The features this controller supports, by name as `kafka-features.sh describe` sorts them. */
export const SUPPORTED_FEATURES: readonly FeatureSpec[] = [
  {
    name: ELR_FEATURE,
    minVersion: 0,
    maxVersion: 1,
    description:
      'Eligible leader replicas (KIP-966): replicas that left the ISR while it was below min.insync.replicas still hold every committed record and may be elected cleanly when the ISR empties.',
  },
  {
    name: METADATA_VERSION_FEATURE,
    minVersion: METADATA_VERSION_LEVEL,
    maxVersion: METADATA_VERSION_LEVEL,
    bootstrapLevel: METADATA_VERSION_LEVEL,
    description:
      "The metadata log's record versions and the controller's rules: 25 is 4.0-IV3 (Kafka 4.0). The cluster runs at that level only, so it is neither upgraded nor downgraded.",
  },
];

export type FeatureUpgradeType = 'upgrade' | 'safe-downgrade' | 'unsafe-downgrade';

export interface FeatureUpdate {
  feature: string;
  maxVersionLevel: number;
  upgradeType?: FeatureUpgradeType;
}

export interface FeatureUpdateResult {
  feature: string;
  errorCode: KafkaErrorName;
  message?: string;
}

/** The finalized level of a feature (its bootstrap level when it was never set, else 0). */
export function featureLevel(image: ClusterMetadata, name: string): number {
  return image.features.get(name) ?? SUPPORTED_FEATURES.find((f) => f.name === name)?.bootstrapLevel ?? 0;
}

export function elrEnabled(image: ClusterMetadata): boolean {
  return featureLevel(image, ELR_FEATURE) >= 1;
}

/** Check one update as UpdateFeatures does; returns the level to finalize, or throws INVALID_UPDATE_VERSION. */
export function checkFeatureUpdate(image: ClusterMetadata, u: FeatureUpdate): number {
  const spec = SUPPORTED_FEATURES.find((f) => f.name === u.feature);
  if (!spec) throw new KafkaError('INVALID_UPDATE_VERSION', `Invalid update version ${u.maxVersionLevel} for feature ${u.feature}. The controller does not support the given feature.`);
  const level = u.maxVersionLevel;
  if (!Number.isInteger(level) || level < spec.minVersion || level > spec.maxVersion) {
    throw new KafkaError('INVALID_UPDATE_VERSION', `Invalid update version ${level} for feature ${u.feature}. The supported range is [${spec.minVersion}, ${spec.maxVersion}].`);
  }
  const current = featureLevel(image, u.feature);
  if (level < current && (u.upgradeType ?? 'upgrade') === 'upgrade') {
    throw new KafkaError('INVALID_UPDATE_VERSION', `Invalid update version ${level} for feature ${u.feature}. Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade.`);
  }
  if (level > current && (u.upgradeType ?? 'upgrade') !== 'upgrade') {
    throw new KafkaError('INVALID_UPDATE_VERSION', `Invalid update version ${level} for feature ${u.feature}. Can't downgrade to a newer version.`);
  }
  return level;
}

/** A supported feature with its finalized level (`kafka-features.sh describe`). */
export interface FeatureDescription extends FeatureSpec {
  finalizedLevel: number;
}

export interface FeatureHost {
  readonly image: MetadataImage;
  readonly staticConfigs: Readonly<Record<string, string>>;
  requireActive(): void;
  commit(records: MetadataRecord[]): unknown;
  changeContext(topic: TopicImage, state: PartitionState): ChangeContext;
}

const MIN_ISR = 'min.insync.replicas';

export class FeatureControl {
  constructor(private readonly host: FeatureHost) {}

  describe(): FeatureDescription[] {
    return SUPPORTED_FEATURES.map(({ bootstrapLevel: _, ...f }) => ({ ...f, finalizedLevel: featureLevel(this.host.image, f.name) }));
  }

  /** The metadata offset the finalized levels were read at (ApiVersions' FinalizedFeaturesEpoch). */
  epoch(): number {
    return this.host.image.offset;
  }

  /**
   * UpdateFeatures, all or nothing as Kafka's controller answers it (QuorumController.updateFeatures):
   * when one update is refused nothing is finalized; the refused ones carry their own error and
   * the others the same code with "The update failed for all features since …" (what each
   * feature's outcome is in Kafka's Admin client). Otherwise the changes are committed together.
   */
  update(updates: readonly FeatureUpdate[], validateOnly = false): FeatureUpdateResult[] {
    this.host.requireActive();
    const image = this.host.image;
    const records: MetadataRecord[] = [];
    const results = updates.map((u): FeatureUpdateResult => {
      let level: number;
      try {
        level = checkFeatureUpdate(image, u);
      } catch (e) {
        if (!(e instanceof KafkaError)) throw e;
        return { feature: u.feature, errorCode: e.code as KafkaErrorName, message: e.message };
      }
      if (level === featureLevel(image, u.feature)) return { feature: u.feature, errorCode: 'NONE' };
      records.push({ type: 'FeatureLevel', name: u.feature, level });
      if (u.feature === ELR_FEATURE && level >= 1 && image.clusterConfigs()[MIN_ISR] === undefined) {
        // Enabling ELR pins the cluster-level min.insync.replicas to the static value.
        records.push({ type: 'Config', resourceType: 'broker', resourceName: CLUSTER_DEFAULT, name: MIN_ISR, value: this.host.staticConfigs[MIN_ISR] ?? '1' });
      }
      if (u.feature === ELR_FEATURE && level === 0) records.push(...this.clearElr(() => true, false));
      return { feature: u.feature, errorCode: 'NONE' };
    });
    const refused = results.find((r) => r.errorCode !== 'NONE');
    if (refused) {
      const why = `${ALL_FEATURES_FAILED}${refused.message ?? refused.errorCode}`;
      return results.map((r) => (r.errorCode === 'NONE' ? { feature: r.feature, errorCode: refused.errorCode, message: why } : r));
    }
    if (!validateOnly && records.length > 0) this.host.commit(records);
    return results;
  }

  /**
   * IncrementalAlterConfigs of min.insync.replicas while ELR is on: refuses what Kafka refuses
   * (deleting the cluster-level value, a per-broker value) and returns the partition changes that
   * clear the ELR of every partition the change applies to.
   */
  minIsrChange(resourceType: 'topic' | 'broker', resourceName: string, set: Readonly<Record<string, string | null>>): MetadataRecord[] {
    if (!elrEnabled(this.host.image) || !Object.hasOwn(set, MIN_ISR)) return [];
    if (resourceType === 'broker' && resourceName !== CLUSTER_DEFAULT) {
      throw new KafkaError('INVALID_CONFIG', `A per-broker ${MIN_ISR} is not allowed while ${ELR_FEATURE} is enabled: set it cluster-wide or per topic.`);
    }
    if (resourceType === 'broker' && set[MIN_ISR] === null) {
      throw new KafkaError('INVALID_CONFIG', `The cluster-level ${MIN_ISR} cannot be deleted while ${ELR_FEATURE} is enabled.`);
    }
    return this.clearElr((topic) => resourceType === 'broker' || topic.name === resourceName, true);
  }

  private clearElr(applies: (topic: TopicImage) => boolean, elrStaysOn: boolean): MetadataRecord[] {
    const out: MetadataRecord[] = [];
    for (const { topic, state } of this.host.image.allPartitions()) {
      if (!applies(topic) || ((state.elr ?? []).length === 0 && (state.lastKnownElr ?? []).length === 0)) continue;
      const ctx = this.host.changeContext(topic, state);
      const change = buildPartitionChange(state, { clearElr: true }, elrStaysOn ? ctx : { isAcceptable: ctx.isAcceptable, uncleanAllowed: ctx.uncleanAllowed });
      if (change) out.push({ type: 'PartitionChange', state: change.state, reason: 'config-change', unclean: change.unclean });
    }
    return out;
  }
}
