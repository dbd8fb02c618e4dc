/**
 * The built-in profiles (resources/profiles/NAME.json) as both drivers and the connection list
 * read them, and `profiles.list`'s summaries. The folder is found relative to this file, which
 * sits two folders below the repository as the engine and host bundles do (dist/engine-node/).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProfileSummaryView } from '../api/contract.js';
import { KafkaError } from '../api/errors.js';
import { formatProfileIssue, parseProfileJson, profileDurability, type Profile } from '../core/profiles/index.js';
import { BUILT_IN_PROFILE_NAMES } from './built-in-profile-names.js';

const BUILT_IN = BUILT_IN_PROFILE_NAMES;
const PROFILE_DIR = new URL('../../resources/profiles/', import.meta.url);
const builtInCache = new Map<string, Map<string, Profile>>();

/**
 * The built-in profiles, read once per folder: resources/profiles in the repository, or the
 * folder the packaged app ships them in (`process.resourcesPath/profiles`, passed as `dir`).
 */
export function builtInProfiles(dir?: string): Map<string, Profile> {
  const folder = dir ?? fileURLToPath(PROFILE_DIR);
  const cached = builtInCache.get(folder);
  if (cached) return cached;
  const map = new Map<string, Profile>();
  for (const name of BUILT_IN) {
    const file = join(folder, `${name}.json`);
    const parsed = parseProfileJson(readFileSync(file, 'utf8'));
    if (!parsed.ok) throw new KafkaError('INTERNAL', `Built-in profile ${file} is invalid: ${parsed.errors.map(formatProfileIssue).join('; ')}`);
    map.set(parsed.profile.name, parsed.profile);
  }
  builtInCache.set(folder, map);
  return map;
}

/** `profiles.list`: every built-in profile, then the imported ones (an imported name replaces nothing built in). */
export function profileSummaries(builtIns: ReadonlyMap<string, Profile>, imported: ReadonlyMap<string, Profile>): ProfileSummaryView[] {
  const all = new Map<string, { profile: Profile; builtIn: boolean }>();
  for (const p of builtIns.values()) all.set(p.name, { profile: p, builtIn: true });
  for (const p of imported.values()) all.set(p.name, { profile: p, builtIn: false });
  return [...all.values()].map(({ profile, builtIn }) => {
    const durability = profileDurability(profile);
    return {
      name: profile.name,
      ...(profile.description !== undefined ? { description: profile.description } : {}),
      builtIn,
      brokers: profile.cluster.brokers,
      replicationFactor: profile.topicDefaults.replicationFactor,
      durability: durability.summary,
      quorum: durability.quorum,
    };
  });
}
