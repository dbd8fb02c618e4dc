/**
 * Config profiles and the durability explainer through the contract. Built-in profiles are the
 * JSON files in resources/profiles/; imported ones are kept in the cluster's data directory (the
 * metadata store's settings), so they survive a restart. Applying goes through the controller's
 * own config changes, so every value is validated as a `configs.alter` would be.
 */
import { KafkaError } from '../../api/errors.js';
import { BUILT_IN_PROFILE_NAMES } from '../built-in-profile-names.js';
import type { MethodParsedInput, MethodResult } from '../../api/contract.js';
import { explainDurability } from '../../core/durability.js';
import { explainEligibleLeaders } from '../../core/durability-elr.js';
import { ELR_FEATURE, type Engine } from '../../core/engine.js';
import { diffProfileLive, diffProfiles, exportProfile, formatProfileIssue, parseProfileJson, planApply, profileToJson, type LiveCluster, type Profile } from '../../core/profiles/index.js';
import { resolveTopicRuntimeConfig } from '../../core/runtime-config.js';
import { builtInProfiles, profileSummaries } from '../built-in-profiles.js';
import { mergeConfigs, requireTopic } from '../cluster-views.js';
import { planProfileSecurity, type LiveSecurity } from '../security-views.js';
import { MATCH_ANY } from '../../core/security/acl.js';

type ProfileMethod = 'profiles.list' | 'profiles.get' | 'profiles.export' | 'profiles.import' | 'profiles.diff' | 'profiles.apply' | 'topics.durability';
export type ProfileMethods = { [M in ProfileMethod]: (input: MethodParsedInput<M>) => MethodResult<M> };

const BUILT_IN = BUILT_IN_PROFILE_NAMES;
const SETTING_PREFIX = 'profile:';

export function profileMethods(engine: Engine, staticConfigs: Readonly<Record<string, string>>, profilesDir?: string): ProfileMethods {
  const image = engine.metadata;

  function imported(): Map<string, Profile> {
    const map = new Map<string, Profile>();
    for (const [key, text] of Object.entries(engine.loadSettings())) {
      if (!key.startsWith(SETTING_PREFIX)) continue;
      const parsed = parseProfileJson(text);
      if (parsed.ok) map.set(parsed.profile.name, parsed.profile);
    }
    return map;
  }

  function find(name: string): Profile {
    const p = imported().get(name) ?? builtInProfiles(profilesDir).get(name);
    if (!p) throw new KafkaError('INVALID_INPUT', `No profile named ${JSON.stringify(name)}. Built-in: ${BUILT_IN.join(', ')}.`);
    return p;
  }

  function live(): LiveCluster {
    const members = engine.members();
    return {
      clusterConfigs: { ...staticConfigs, ...image.clusterConfigs() },
      features: Object.fromEntries(engine.describeFeatures().map((f) => [f.name, f.finalizedLevel])),
      brokerCount: members.length,
      racks: members.map((m) => m.rack),
      topics: [...image.topicsByName.values()].map((t) => {
        const p0 = t.partitions.get(0);
        return { name: t.name, configs: { ...t.configs }, partitions: t.partitions.size, replicationFactor: p0 ? p0.replicas.length - p0.addingReplicas.length : 0 };
      }),
    };
  }

  return {
    'profiles.list': () => profileSummaries(builtInProfiles(profilesDir), imported()),
    'profiles.get': ({ name }) => find(name),
    'profiles.export': ({ name, formats, bootstrapServers }) =>
      exportProfile(find(name), { ...(formats ? { formats } : {}), ...(bootstrapServers ? { bootstrapServers } : {}) }),
    'profiles.import': ({ json, overwrite }) => {
      const parsed = parseProfileJson(json);
      if (!parsed.ok) {
        throw new KafkaError('INVALID_INPUT', `The profile is invalid: ${parsed.errors.map(formatProfileIssue).join('; ')}`, { errors: parsed.errors });
      }
      const name = parsed.profile.name;
      if (builtInProfiles(profilesDir).has(name)) throw new KafkaError('INVALID_INPUT', `${name} is a built-in profile; import it under another name.`);
      if (imported().has(name) && !overwrite) throw new KafkaError('INVALID_INPUT', `A profile named ${name} exists; pass overwrite: true to replace it.`);
      engine.saveSetting(SETTING_PREFIX + name, profileToJson(parsed.profile));
      return { name, warnings: parsed.warnings };
    },
    'profiles.diff': ({ from, to }) => (to === undefined ? diffProfileLive(find(from), live()) : diffProfiles(find(from), find(to))),
    'profiles.apply': ({ name, dryRun, includeExistingTopics }) => {
      const profile = find(name);
      const base = planApply(profile, live(), { includeExistingTopics: includeExistingTopics ?? false });
      const sec = engine.security;
      const liveSecurity: LiveSecurity = {
        authorizerEnabled: sec.config.enabled,
        acls: sec.describeAcls(MATCH_ANY),
        users: sec.describeScramCredentials(null).flatMap((u) => u.credentialInfos.map((c) => ({ name: u.user, mechanism: c.mechanism }))),
        quotas: sec.describeClientQuotas([], false),
      };
      const security = planProfileSecurity(profile.security, liveSecurity);
      const plan = {
        ...base,
        manual: [...base.manual, ...security.manual],
        security: { acls: security.plan.acls, quotas: security.plan.quotas },
        upToDate: base.upToDate && security.plan.acls.length === 0 && security.plan.quotas.length === 0 && security.manual.length === 0,
      };
      const apply = dryRun === false;
      if (apply) {
        // Features first: enabling ELR pins the cluster-level min.insync.replicas the configs may then set.
        const refused = engine.updateFeatures(plan.features.map(({ feature, maxVersionLevel, upgradeType }) => ({ feature, maxVersionLevel, upgradeType }))).find((r) => r.errorCode !== 'NONE');
        if (refused) throw new KafkaError(refused.errorCode, refused.message ?? `UpdateFeatures refused ${refused.feature}.`);
        if (plan.clusterConfigs) engine.alterConfigs('broker', '', plan.clusterConfigs.set);
        for (const t of plan.topics) engine.alterConfigs('topic', t.resource.name, t.set);
        const failed = [...(plan.security.acls.length > 0 ? sec.createAcls(plan.security.acls) : []), ...sec.alterClientQuotas(plan.security.quotas.map((q) => ({ entity: q.entity, ops: Object.entries(q.set).map(([key, value]) => ({ key, value })) })))].find(
          (r) => r.errorCode !== 'NONE',
        );
        if (failed) throw new KafkaError(failed.errorCode, failed.errorMessage ?? failed.errorCode);
      }
      return { ...plan, applied: apply };
    },
    'topics.durability': ({ name, acks, set }) => {
      const topic = requireTopic(engine, name);
      const cfg = resolveTopicRuntimeConfig(set ? mergeConfigs(topic.configs, set) : topic.configs, image.clusterConfigs(), staticConfigs);
      const p0 = topic.partitions.get(0);
      const rf = p0 ? p0.replicas.length - p0.addingReplicas.length : 0;
      const d = explainDurability({ replicationFactor: rf, minInsyncReplicas: cfg.minInsyncReplicas, uncleanLeaderElectionEnable: cfg.uncleanLeaderElectionEnable, acks: acks ?? 'all' });
      const level = engine.describeFeatures().find((f) => f.name === ELR_FEATURE)?.finalizedLevel ?? 0;
      const partitions = [...topic.partitions.values()]
        .filter((p) => (p.elr ?? []).length > 0 || (p.lastKnownElr ?? []).length > 0)
        .sort((a, b) => a.partition - b.partition)
        .map((p) => ({ partition: p.partition, eligibleLeaderReplicas: [...(p.elr ?? [])], lastKnownElr: [...(p.lastKnownElr ?? [])] }));
      return { ...d, eligibleLeaderReplicas: { ...explainEligibleLeaders(level, rf, d.effectiveMinIsr, d.uncleanLeaderElectionEnable), partitions } };
    },
  };
}
