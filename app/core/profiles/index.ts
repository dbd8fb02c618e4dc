/**
 * Config profiles: a versioned JSON document of cluster shape, broker configs, topic defaults and
 * client settings; its validator, JSON Schema, exporters, diffs and apply plan. Pure: the service
 * reads and writes the files and executes plans.
 */
export * from './types.js';
export { validateProfile, parseProfileJson, formatProfileIssue, PROFILE_NAME_PATTERN, NOTE_KEY_PATTERN } from './validate.js';
export { exportProfile, profileToJson, canonicalProfile, EXPORT_FORMATS } from './export.js';
export type { ExportedFile, ExportFormat, ExportOptions } from './export.js';
export { diffProfiles, diffProfileLive, planApply } from './diff.js';
export type { ApplyPlan, ChangeKind, PlannedAlter, PlannedChange, PlanOptions, SettingChange } from './diff.js';
export { profileJsonSchema, profileJsonSchemaText } from './json-schema.js';
export { CONSUMER_CONFIGS, PRODUCER_CONFIGS, clientConfigDef } from './client-configs.js';
export type { ClientConfigDef, ClientKind } from './client-configs.js';
export { effectiveBrokerConfigs, effectiveTopicConfig, profileDurability, resolveRacks } from './settings.js';
