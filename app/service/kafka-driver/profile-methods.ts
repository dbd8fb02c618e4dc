/**
 * Profiles on an external cluster: the same built-in and imported profiles, diffed against the
 * live cluster as Kafka reports it (its cluster-wide broker configs, brokers and racks, topics),
 * and applied through IncrementalAlterConfigs after the dry run the console shows first. Kafka
 * validates every value on apply; a value it refuses stops the apply with Kafka's error, naming
 * the resource (what was applied before it stays applied, as with kafka-configs.sh).
 *
 * Profiles imported while looking at an external cluster are kept with the connection list (an
 * external cluster has no data directory of ours), through `importedProfiles`.
 */
import { KafkaError } from '../../api/errors.js';
import { CLUSTER_DEFAULT } from '../../core/metadata/image.js';
import { diffProfileLive, diffProfiles, exportProfile, formatProfileIssue, parseProfileJson, planApply, type LiveCluster, type Profile } from '../../core/profiles/index.js';
import { profileToJson } from '../../core/profiles/index.js';
import type { KafkaAdminClient } from '../../kafka-client/admin-client.js';
import { FEATURE_UPDATES_UNAVAILABLE_REASON, updateFeatures } from '../../kafka-client/feature-requests.js';
import { unsupported } from '../cluster-driver.js';
import { builtInProfiles, profileSummaries } from '../built-in-profiles.js';
import type { ImportedProfiles, KafkaMethods } from './kafka-methods.js';
import { alterQuotas, createAcls, describeAcls, describeQuotas, describeScramUsers } from '../../kafka-client/security-requests.js';
import { isEmptySecurity } from '../../core/profiles/security-section.js';
import type { AclBinding } from '../../core/security/acl.js';
import { filterOf, planProfileSecurity, type LiveSecurity } from '../security-views.js';
import { CONFIG_SOURCE, readSnapshot } from './snapshot.js';

type KafkaProfileMethod = 'profiles.list' | 'profiles.get' | 'profiles.export' | 'profiles.import' | 'profiles.diff' | 'profiles.apply';

export interface KafkaProfileOptions {
  profilesDir?: string;
  importedProfiles?: ImportedProfiles;
}

export function kafkaProfileMethods(client: KafkaAdminClient, options: KafkaProfileOptions): Pick<KafkaMethods, KafkaProfileMethod> {
  const imported = (): Map<string, Profile> => {
    const map = new Map<string, Profile>();
    for (const text of Object.values(options.importedProfiles?.load() ?? {})) {
      const parsed = parseProfileJson(text);
      if (parsed.ok) map.set(parsed.profile.name, parsed.profile);
    }
    return map;
  };
  const find = (name: string): Profile => {
    const p = imported().get(name) ?? builtInProfiles(options.profilesDir).get(name);
    if (!p) throw new KafkaError('INVALID_INPUT', `No profile named ${JSON.stringify(name)}. Built-in: ${[...builtInProfiles(options.profilesDir).keys()].join(', ')}.`);
    return p;
  };

  /** The live cluster as the profile code compares it: broker-level configs that are set (static or cluster-wide dynamic), brokers, racks, topics. */
  async function live(): Promise<LiveCluster> {
    const s = await readSnapshot(client);
    const anyBroker = s.controllerId ?? [...s.listeners.keys()][0];
    const [broker] = anyBroker === undefined ? [] : await client.describeConfigs([{ type: 'broker', name: String(anyBroker) }]);
    const clusterConfigs: Record<string, string> = {};
    for (const e of broker?.entries ?? []) if (e.value !== null && (e.source === CONFIG_SOURCE.STATIC_BROKER || e.source === CONFIG_SOURCE.DYNAMIC_DEFAULT_BROKER)) clusterConfigs[e.name] = e.value;
    Object.assign(clusterConfigs, s.image.clusterConfigs());
    const brokers = [...s.image.brokers.values()].sort((a, b) => a.id - b.id);
    return {
      clusterConfigs,
      features: (await client.features()).finalized,
      brokerCount: brokers.length,
      racks: brokers.map((b) => b.rack),
      topics: [...s.image.topicsByName.values()].map((t) => {
        const p0 = t.partitions.get(0);
        return { name: t.name, configs: { ...t.configs }, partitions: t.partitions.size, replicationFactor: p0 ? p0.replicas.length - p0.addingReplicas.length : 0 };
      }),
    };
  }

  return {
    'profiles.list': () => profileSummaries(builtInProfiles(options.profilesDir), imported()),
    'profiles.get': ({ name }) => find(name),
    'profiles.export': ({ name, formats, bootstrapServers }) => exportProfile(find(name), { ...(formats ? { formats } : {}), ...(bootstrapServers ? { bootstrapServers } : {}) }),
    'profiles.import': ({ json, overwrite }) => {
      if (!options.importedProfiles) throw new KafkaError('INVALID_STATE', 'This connection has nowhere to keep imported profiles.');
      const parsed = parseProfileJson(json);
      if (!parsed.ok) throw new KafkaError('INVALID_INPUT', `The profile is invalid: ${parsed.errors.map(formatProfileIssue).join('; ')}`, { errors: parsed.errors });
      const name = parsed.profile.name;
      if (builtInProfiles(options.profilesDir).has(name)) throw new KafkaError('INVALID_INPUT', `${name} is a built-in profile; import it under another name.`);
      if (imported().has(name) && !overwrite) throw new KafkaError('INVALID_INPUT', `A profile named ${name} exists; pass overwrite: true to replace it.`);
      options.importedProfiles.save(name, profileToJson(parsed.profile));
      return { name, warnings: parsed.warnings };
    },
    'profiles.diff': async ({ from, to }) => (to === undefined ? diffProfileLive(find(from), await live()) : diffProfiles(find(from), find(to))),
    'profiles.apply': async ({ name, dryRun, includeExistingTopics }) => {
      const profile = find(name);
      const base = planApply(profile, await live(), { includeExistingTopics: includeExistingTopics ?? false });
      const needsSecurity = !isEmptySecurity(profile.security);
      const acls = needsSecurity ? await describeAcls(client, filterOf(undefined)) : [];
      const security = planProfileSecurity(profile.security, {
        authorizerEnabled: acls !== null,
        acls: (acls ?? []) as AclBinding[],
        users: needsSecurity ? (await describeScramUsers(client)).flatMap((u) => u.credentials.map((c) => ({ name: u.name, mechanism: c.mechanism }))) : [],
        quotas: needsSecurity ? ((await describeQuotas(client)) as LiveSecurity['quotas']) : [],
      });
      const plan = {
        ...base,
        manual: [...base.manual, ...security.manual],
        security: { acls: security.plan.acls, quotas: security.plan.quotas },
        upToDate: base.upToDate && security.plan.acls.length === 0 && security.plan.quotas.length === 0 && security.manual.length === 0,
      };
      const apply = dryRun === false;
      if (apply) {
        // Features first, as the embedded service applies them: enabling ELR pins the cluster-level min.insync.replicas.
        if (plan.features.length > 0) {
          const results = await updateFeatures(client, plan.features.map(({ feature, maxVersionLevel, upgradeType }) => ({ feature, maxVersionLevel, upgradeType })), false);
          if (!results) throw unsupported('featureUpdates', `The profile sets feature levels. ${FEATURE_UPDATES_UNAVAILABLE_REASON}`);
          const refused = results.find((r) => r.errorCode !== 'NONE');
          if (refused) throw new KafkaError(refused.errorCode, refused.message ?? `UpdateFeatures refused ${refused.feature}.`);
        }
        if (plan.clusterConfigs) await client.incrementalAlterConfigs({ type: 'broker', name: CLUSTER_DEFAULT }, plan.clusterConfigs.set, false);
        for (const t of plan.topics) await client.incrementalAlterConfigs({ type: 'topic', name: t.resource.name }, t.set, false);
        const results = [...(plan.security.acls.length > 0 ? await createAcls(client, plan.security.acls) : [])];
        for (const q of plan.security.quotas) results.push(await alterQuotas(client, q.entity, q.set, false));
        const failed = results.find((r) => r.errorCode !== 'NONE');
        if (failed) throw new KafkaError(failed.errorCode, failed.errorMessage ?? failed.errorCode);
      }
      return { ...plan, applied: apply };
    },
  };
}
