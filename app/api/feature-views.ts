/**
 * The views of Kafka's finalized features (KIP-584): what `cluster.features` and
 * `cluster.updateFeatures` return, as `kafka-features.sh describe` and `upgrade|downgrade` show it.
 */
import type { KafkaErrorName } from './errors.js';

/** One feature the controller supports. */
export interface FeatureView {
  /** Kafka's feature name, e.g. `eligible.leader.replicas.version`. */
  name: string;
  /** The supported range of levels (`SupportedMinVersion` … `SupportedMaxVersion`). */
  minVersion: number;
  maxVersion: number;
  /** The finalized level the cluster runs at (0: off / never set). */
  finalizedLevel: number;
  /** What the feature changes, in one sentence. */
  description: string;
}

/** One feature's UpdateFeatures outcome. */
export interface FeatureUpdateResultView {
  feature: string;
  /** NONE, or INVALID_UPDATE_VERSION with `message` saying why. */
  errorCode: KafkaErrorName;
  message?: string;
}
