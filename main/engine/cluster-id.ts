/**
 * Each local cluster's id, as Kafka's `kafka-storage.sh random-uuid` makes one: 16 random bytes
 * in URL-safe base64 without padding (22 characters; Kafka's Uuid.toString). Kafka's
 * Uuid.randomUuid draws again for the all-zero id, the metadata topic's id (…AAAQ) and any id
 * starting with '-' (it would read as a command-line flag); so do we.
 *
 * Invariant: generated once, when a data directory first opens, stored in the cluster's metadata
 * file (setting `cluster.id`) and read back on every later open, so Metadata, DescribeCluster and
 * `cluster.describe` report the same id across restarts and two clusters never share one.
 */
import { randomBytes } from 'node:crypto';

/** The metadata settings key the id is stored under. */
export const CLUSTER_ID_SETTING = 'cluster.id';

const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
const METADATA_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

/** A new cluster id in Kafka's form. */
export function newClusterId(random: (size: number) => Uint8Array = randomBytes): string {
  for (;;) {
    const id = Buffer.from(random(16)).toString('base64url');
    if (id !== ZERO && id !== METADATA_TOPIC_ID && !id.startsWith('-')) return id;
  }
}

/** The id stored with the cluster, created and stored on its first open. */
export function clusterIdOf(settings: { loadSettings(): Record<string, string>; saveSetting(key: string, value: string): void }, random?: (size: number) => Uint8Array): string {
  const stored = settings.loadSettings()[CLUSTER_ID_SETTING];
  if (stored) return stored;
  const id = newClusterId(random);
  settings.saveSetting(CLUSTER_ID_SETTING, id);
  return id;
}
