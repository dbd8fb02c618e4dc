/**
 * The static broker configuration (server.properties) a local cluster runs with. Kafka reads its
 * read-only broker configs — auto.create.topics.enable, num.partitions,
 * default.replication.factor, … — only from server.properties at start, so a profile can set them
 * only there: a new cluster made from a profile takes the profile's read-only broker configs
 * (with num.partitions and default.replication.factor from its topic defaults, as its exported
 * server.properties has them) as its static configs, while its dynamic ones are applied through
 * the controller as `profiles.apply` does. The static configs are kept in the cluster's metadata
 * store, so every later open runs with the same server.properties.
 */
import { brokerConfigDef } from '../../core/configs/catalogue.js';
import { validateConfigs } from '../../core/configs/resolve.js';
import { effectiveBrokerConfigs } from '../../core/profiles/settings.js';
import type { Profile } from '../../core/profiles/types.js';

/** The metadata store setting that holds them (a JSON object). */
export const STATIC_CONFIGS_SETTING = 'static.broker.configs';

interface SettingsStore {
  loadSettings(): Record<string, string>;
  saveSetting(key: string, value: string | null): void;
}

/** The read-only broker configs of a profile: what its server.properties must carry. */
export function profileStaticConfigs(profile: Profile): Record<string, string> {
  return Object.fromEntries(Object.entries(effectiveBrokerConfigs(profile)).filter(([name]) => brokerConfigDef(name)?.updateMode === 'read-only'));
}

/**
 * The static configs to open a cluster with: the ones it keeps in its metadata store, or for a new
 * cluster made from `newProfile` that profile's; `given` (`serve --broker-config`, a test's) goes
 * over either and is kept too, as an edited server.properties stays edited.
 */
export function clusterStaticConfigs(
  store: SettingsStore,
  opening: { isNew: boolean; newProfile?: Profile | undefined },
  given: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const saved = opening.isNew ? undefined : store.loadSettings()[STATIC_CONFIGS_SETTING];
  let kept: Record<string, string> = {};
  if (saved !== undefined) kept = JSON.parse(saved) as Record<string, string>;
  else if (opening.newProfile) {
    kept = profileStaticConfigs(opening.newProfile);
    validateConfigs('broker', kept, { static: true });
  }
  const merged = { ...kept, ...given };
  if ((saved === undefined && opening.newProfile) || Object.keys(given).length > 0) store.saveSetting(STATIC_CONFIGS_SETTING, JSON.stringify(merged));
  return merged;
}
