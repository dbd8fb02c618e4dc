/**
 * Exporting a validated profile: as canonical profile JSON, as one server.properties per broker
 * (with a features.sh of `kafka-features.sh upgrade` commands when the profile sets feature
 * levels), as Kafka CLI commands for the topic defaults, and as producer/consumer .properties files.
 *
 * Guarantees:
 * - Profile JSON is canonical: fixed field order, config keys sorted by code unit, notes in
 *   document order, two-space indent, one trailing newline. Values are kept exactly as written,
 *   so export → parseProfileJson → export is byte-identical.
 * - .properties files load with java.util.Properties as written: keys and values are escaped
 *   where Properties.load would misread them (backslashes, line breaks, leading blanks, key
 *   separators) and non-ASCII becomes \uXXXX, since Kafka reads these files as ISO-8859-1.
 *   Values are trimmed, as Kafka trims them.
 * - Shell commands quote every argument that is not plainly safe, with single quotes.
 * - Each setting's note (rationale) is written above it as a comment.
 */
import { isEmptySecurity, securityCommands } from './security-section.js';
import { effectiveBrokerConfigs, profileDurability, resolveRacks } from './settings.js';
import type { ConfigStrings, Profile } from './types.js';

export interface ExportedFile {
  filename: string;
  contents: string;
}

export type ExportFormat = 'profile' | 'server-properties' | 'topic-commands' | 'client-properties' | 'security-commands';

export const EXPORT_FORMATS: readonly ExportFormat[] = ['profile', 'server-properties', 'topic-commands', 'client-properties', 'security-commands'];

export interface ExportOptions {
  formats?: readonly ExportFormat[];
  /** Written into the CLI commands and client files; a placeholder to replace. */
  bootstrapServers?: string;
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function sortedMap(map: ConfigStrings): ConfigStrings {
  return Object.fromEntries(Object.keys(map).sort(byCodeUnit).map((k) => [k, map[k]!]));
}

/** Document order of note keys: the order the settings appear in the profile. */
const NOTE_ORDER = ['cluster.brokers', 'cluster.racks', 'brokerConfigs.', 'features.', 'topicDefaults.partitions', 'topicDefaults.replicationFactor', 'topicDefaults.configs.', 'producer.', 'consumer.'];

function noteRank(key: string): number {
  const i = NOTE_ORDER.findIndex((p) => (p.endsWith('.') ? key.startsWith(p) : key === p));
  return i === -1 ? NOTE_ORDER.length : i;
}

/** The profile as a plain object in canonical field order. */
export function canonicalProfile(profile: Profile): Record<string, unknown> {
  const cluster: Record<string, unknown> = { brokers: profile.cluster.brokers };
  if (profile.cluster.racks !== undefined) cluster['racks'] = profile.cluster.racks;
  const notes = Object.keys(profile.notes)
    .sort((a, b) => noteRank(a) - noteRank(b) || byCodeUnit(a, b))
    .map((k) => [k, profile.notes[k]!]);
  return {
    ...(profile.$schema !== undefined ? { $schema: profile.$schema } : {}),
    version: profile.version,
    name: profile.name,
    ...(profile.description !== undefined ? { description: profile.description } : {}),
    cluster,
    brokerConfigs: sortedMap(profile.brokerConfigs),
    ...(Object.keys(profile.features).length > 0
      ? { features: Object.fromEntries(Object.keys(profile.features).sort(byCodeUnit).map((k) => [k, profile.features[k]!])) }
      : {}),
    topicDefaults: {
      partitions: profile.topicDefaults.partitions,
      replicationFactor: profile.topicDefaults.replicationFactor,
      configs: sortedMap(profile.topicDefaults.configs),
    },
    producer: sortedMap(profile.producer),
    consumer: sortedMap(profile.consumer),
    notes: Object.fromEntries(notes),
    ...(isEmptySecurity(profile.security) ? {} : { security: profile.security }),
  };
}

/** The canonical profile JSON text. */
export function profileToJson(profile: Profile): string {
  return `${JSON.stringify(canonicalProfile(profile), null, 2)}\n`;
}

// ---- .properties --------------------------------------------------------------------------

function escapeProperties(text: string, isKey: boolean): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const code = ch.charCodeAt(0);
    if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\f') out += '\\f';
    else if (ch === ' ' && (isKey || i === 0)) out += '\\ ';
    else if (isKey && (ch === '=' || ch === ':' || ((ch === '#' || ch === '!') && i === 0))) out += `\\${ch}`;
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out;
}

function property(key: string, value: string): string {
  return `${escapeProperties(key, true)}=${escapeProperties(value.trim(), false)}`;
}

/** `# ` before every line of `text`. */
function comment(text: string): string[] {
  return text.split(/\r\n|\r|\n/).map((line) => (line === '' ? '#' : `# ${line}`));
}

function header(profile: Profile, what: string): string[] {
  const lines = comment(`${what}, from Replica Studio profile "${profile.name}" (profile format version ${profile.version}).`);
  if (profile.description !== undefined && profile.description.trim() !== '') lines.push(...comment(profile.description));
  return lines;
}

function settingLines(map: ConfigStrings, notes: Record<string, string>, noteKey: (key: string) => string): string[] {
  const lines: string[] = [];
  for (const key of Object.keys(map).sort(byCodeUnit)) {
    const note = notes[noteKey(key)];
    if (note !== undefined) lines.push(...comment(`${key}: ${note}`));
    lines.push(property(key, map[key]!));
  }
  return lines;
}

function serverProperties(profile: Profile, nodeId: number, rack: string | null): ExportedFile {
  const notes = { ...profile.notes };
  // num.partitions / default.replication.factor come from the topic defaults unless set.
  const derivedNote: Record<string, string> = {
    'num.partitions': 'topicDefaults.partitions',
    'default.replication.factor': 'topicDefaults.replicationFactor',
  };
  const noteKey = (key: string): string => {
    const direct = `brokerConfigs.${key}`;
    return Object.hasOwn(profile.brokerConfigs, key) || derivedNote[key] === undefined ? direct : derivedNote[key]!;
  };
  const lines = [
    ...header(profile, `server.properties of node ${nodeId} of ${profile.cluster.brokers}`),
    '#',
    '# Deployment settings are not part of a profile; add them for your cluster (KRaft): process.roles,',
    '# controller.quorum.bootstrap.servers, controller.listener.names, listeners, advertised.listeners, log.dirs.',
    '',
    '# node.id is KRaft\'s broker.id; the profile numbers brokers 1..' + String(profile.cluster.brokers) + '.',
    property('node.id', String(nodeId)),
    ...(rack === null ? [] : [...(notes['cluster.racks'] ? comment(`broker.rack: ${notes['cluster.racks']}`) : []), property('broker.rack', rack)]),
    '',
    ...settingLines(effectiveBrokerConfigs(profile), notes, noteKey),
  ];
  return { filename: `server-${nodeId}.properties`, contents: `${lines.join('\n')}\n` };
}

function clientProperties(profile: Profile, client: 'producer' | 'consumer', bootstrap: string): ExportedFile {
  const extra = client === 'producer' ? 'key/value serializers, client.id and security settings' : 'group.id, key/value deserializers and security settings';
  const lines = [
    ...header(profile, `${client}.properties`),
    `# Replace bootstrap.servers with your cluster's; add ${extra} as needed.`,
    '',
    property('bootstrap.servers', bootstrap),
    '',
    ...settingLines(profile[client], profile.notes, (key) => `${client}.${key}`),
  ];
  return { filename: `${client}.properties`, contents: `${lines.join('\n')}\n` };
}

// ---- shell ---------------------------------------------------------------------------------

/**
 * The profile's feature levels as `kafka-features.sh upgrade` commands (KIP-584): how Kafka 4.x
 * turns on a feature such as eligible leader replicas, once for the cluster, not per broker.
 */
function featureCommands(profile: Profile, bootstrap: string): ExportedFile | null {
  const names = Object.keys(profile.features).sort(byCodeUnit).filter((n) => profile.features[n]! > 0);
  if (names.length === 0) return null;
  const lines = [
    '#!/bin/sh',
    ...header(profile, 'Feature levels as kafka-features.sh commands (run once, against the running cluster)'),
    `# Replace ${bootstrap} with your cluster's bootstrap servers.`,
    'set -eu',
    ...names.flatMap((n) => [
      ...(profile.notes[`features.${n}`] ? comment(`${n}: ${profile.notes[`features.${n}`]}`) : []),
      `kafka-features.sh --bootstrap-server ${shellWord(bootstrap)} upgrade --feature ${shellWord(`${n}=${profile.features[n]}`)}`,
    ]),
  ];
  return { filename: 'features.sh', contents: `${lines.join('\n')}\n` };
}

/** A POSIX shell word: bare if plainly safe, otherwise single-quoted. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_.,:=/@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

function topicCommands(profile: Profile, bootstrap: string): ExportedFile {
  const { partitions, replicationFactor, configs } = profile.topicDefaults;
  const keys = Object.keys(configs).sort(byCodeUnit);
  const server = `--bootstrap-server ${shellWord(bootstrap)}`;
  const create = [
    `  kafka-topics.sh ${server} --create --topic "$TOPIC" \\`,
    `    --partitions ${partitions} --replication-factor ${replicationFactor}${keys.length > 0 ? ' \\' : ''}`,
    ...keys.map((k, i) => `    --config ${shellWord(`${k}=${configs[k]!.trim()}`)}${i < keys.length - 1 ? ' \\' : ''}`),
  ];
  // kafka-configs.sh separates entries with commas, so a list value goes in square brackets.
  const addConfig = keys.map((k) => {
    const v = configs[k]!.trim();
    return v.includes(',') ? `${k}=[${v}]` : `${k}=${v}`;
  });
  const alter =
    keys.length === 0
      ? ['  echo "Profile has no topic configs to set." >&2']
      : [
          `  kafka-configs.sh ${server} --alter --entity-type topics --entity-name "$TOPIC" \\`,
          `    --add-config ${shellWord(addConfig.join(','))}`,
        ];
  const notes = [
    ...(profile.notes['topicDefaults.partitions'] ? [`partitions: ${profile.notes['topicDefaults.partitions']}`] : []),
    ...(profile.notes['topicDefaults.replicationFactor'] ? [`replication factor: ${profile.notes['topicDefaults.replicationFactor']}`] : []),
    ...keys.filter((k) => profile.notes[`topicDefaults.configs.${k}`]).map((k) => `${k}: ${profile.notes[`topicDefaults.configs.${k}`]}`),
  ];
  const lines = [
    '#!/bin/sh',
    ...header(profile, 'Topic defaults as Kafka CLI commands'),
    '#',
    '# Usage: sh topics.sh TOPIC           create TOPIC with the profile\'s topic defaults',
    '#        sh topics.sh TOPIC --alter   set the profile\'s topic configs on an existing TOPIC',
    `# Replace ${bootstrap} with your cluster's bootstrap servers.`,
    '#',
    ...comment(`Durability with the profile's producer: ${profileDurability(profile).summary}`),
    ...(notes.length > 0 ? ['#', ...notes.flatMap((n) => comment(n))] : []),
    'set -eu',
    'TOPIC="${1:?usage: sh topics.sh TOPIC [--alter]}"',
    'if [ "${2:-}" = "--alter" ]; then',
    ...alter,
    'else',
    ...create,
    'fi',
  ];
  return { filename: 'topics.sh', contents: `${lines.join('\n')}\n` };
}

/** Export a validated profile in the chosen formats (all by default), in a stable order. */
export function exportProfile(profile: Profile, options: ExportOptions = {}): ExportedFile[] {
  const formats = options.formats ?? EXPORT_FORMATS;
  const bootstrap = options.bootstrapServers ?? 'localhost:9092';
  const files: ExportedFile[] = [];
  if (formats.includes('profile')) files.push({ filename: `${profile.name}.profile.json`, contents: profileToJson(profile) });
  if (formats.includes('server-properties')) {
    resolveRacks(profile.cluster).forEach((rack, i) => files.push(serverProperties(profile, i + 1, rack)));
    const features = featureCommands(profile, bootstrap);
    if (features) files.push(features);
  }
  if (formats.includes('topic-commands')) files.push(topicCommands(profile, bootstrap));
  if (formats.includes('client-properties')) {
    files.push(clientProperties(profile, 'producer', bootstrap), clientProperties(profile, 'consumer', bootstrap));
  }
  if (formats.includes('security-commands') && !isEmptySecurity(profile.security)) files.push({ filename: `${profile.name}.security.sh`, contents: securityCommands(profile.security, bootstrap) });
  return files;
}
