/**
 * The built-in profiles and the JSON Schema in resources/profiles, checked against the pure
 * profile code in app/core/profiles (those tests cannot read files: app/core has no node:*).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  exportProfile,
  formatProfileIssue,
  parseProfileJson,
  profileDurability,
  profileJsonSchemaText,
  profileToJson,
  validateProfile,
} from '../core/profiles/index.js';
import type { Profile } from '../core/profiles/index.js';
import { effectiveTopicConfig } from '../core/profiles/settings.js';
import { sampleDocument } from '../core/profiles/test-support/profiles.js';

const DIR = join(import.meta.dirname, '..', '..', 'resources', 'profiles');
const BUILT_INS = ['durability', 'balanced', 'throughput'] as const;

function readText(file: string): string {
  return readFileSync(join(DIR, file), 'utf8');
}

function builtIn(name: (typeof BUILT_INS)[number]): Profile {
  const r = parseProfileJson(readText(`${name}.json`));
  if (!r.ok) throw new Error(r.errors.map(formatProfileIssue).join('\n'));
  return r.profile;
}

/** Every setting path a profile sets, in the notation of `notes`. */
function settingPaths(p: Profile): string[] {
  return [
    'cluster.brokers',
    ...(p.cluster.racks !== undefined ? ['cluster.racks'] : []),
    ...Object.keys(p.brokerConfigs).map((k) => `brokerConfigs.${k}`),
    ...Object.keys(p.features).map((k) => `features.${k}`),
    'topicDefaults.partitions',
    'topicDefaults.replicationFactor',
    ...Object.keys(p.topicDefaults.configs).map((k) => `topicDefaults.configs.${k}`),
    ...Object.keys(p.producer).map((k) => `producer.${k}`),
    ...Object.keys(p.consumer).map((k) => `consumer.${k}`),
  ];
}

describe('built-in profiles', () => {
  it('are exactly the three built-ins plus the schema', () => {
    expect(readdirSync(DIR).sort()).toEqual(['balanced.json', 'durability.json', 'profile.schema.json', 'throughput.json']);
  });

  for (const name of BUILT_INS) {
    it(`${name}: valid, stored canonically, and export → import → export is byte-identical`, () => {
      const text = readText(`${name}.json`);
      const profile = builtIn(name);
      expect(profile.name).toBe(name);
      const exported = profileToJson(profile);
      expect(exported).toBe(text);
      const reimported = parseProfileJson(exported);
      expect(reimported.ok).toBe(true);
      if (reimported.ok) {
        expect(profileToJson(reimported.profile)).toBe(exported);
        expect(exportProfile(reimported.profile)).toEqual(exportProfile(profile));
      }
    });

    it(`${name}: gives a one-line rationale for every setting`, () => {
      const profile = builtIn(name);
      expect(Object.keys(profile.notes).sort()).toEqual(settingPaths(profile).sort());
      for (const note of Object.values(profile.notes)) expect(note).not.toMatch(/\n/);
    });
  }

  it("cite Kafka's documentation and KIPs, never documents only this project's developers have", () => {
    // Users have Kafka's docs; a note or description citing our design notes sends them nowhere.
    const internal = /§|\bseeds?\b|semantics\.md|kafka-semantics|DESIGN\.md|CONVENTIONS\.md|reference\//i;
    const texts = (value: unknown): string[] =>
      typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(texts) : [];
    const cited: string[] = [];
    for (const file of readdirSync(DIR)) {
      for (const text of texts(JSON.parse(readText(file)))) {
        if (internal.test(text)) cited.push(`${file}: ${text}`);
      }
    }
    expect(cited).toEqual([]);
    // The rationales that name a source name Kafka's.
    const sources = BUILT_INS.flatMap((name) => Object.values(builtIn(name).notes)).join(' ');
    expect(sources).toMatch(/Kafka's documentation|Kafka docs/);
    expect(sources).toMatch(/KIP-\d+/);
  });

  it('durability is the financial-grade setup: RF 3 in three racks, min ISR 2, acks=all, idempotent, never unclean', () => {
    const p = builtIn('durability');
    expect(validateProfile(JSON.parse(readText('durability.json'))).warnings).toEqual([]);
    expect(p.topicDefaults.replicationFactor).toBeGreaterThanOrEqual(3);
    expect(p.cluster.brokers).toBeGreaterThan(p.topicDefaults.replicationFactor);
    expect(new Set(p.cluster.racks as string[]).size).toBeGreaterThanOrEqual(p.topicDefaults.replicationFactor);
    expect(effectiveTopicConfig(p, 'min.insync.replicas')).toBe('2');
    expect(effectiveTopicConfig(p, 'unclean.leader.election.enable')).toBe('false');
    expect(p.producer).toMatchObject({ acks: 'all', 'enable.idempotence': 'true' });
    expect(p.consumer).toMatchObject({ 'enable.auto.commit': 'false', 'isolation.level': 'read_committed' });
    const d = profileDurability(p);
    expect([d.writes.brokerFailures, d.acknowledgedWrites.brokerFailures, d.warnings]).toEqual([1, 1, []]);
  });

  it('balanced keeps acks=all with min ISR 2 and adds batching and compression', () => {
    const p = builtIn('balanced');
    expect(validateProfile(JSON.parse(readText('balanced.json'))).warnings).toEqual([]);
    expect(effectiveTopicConfig(p, 'min.insync.replicas')).toBe('2');
    expect(p.producer).toMatchObject({ acks: 'all', 'compression.type': 'lz4' });
    expect(Number(p.producer['linger.ms'])).toBeGreaterThan(0);
  });

  it('throughput is the log-collection setup: RF 2, min ISR 1, acks=1, long linger, big batches, zstd, and it says what it risks', () => {
    const p = builtIn('throughput');
    expect(p.topicDefaults.replicationFactor).toBeLessThanOrEqual(2);
    expect(effectiveTopicConfig(p, 'min.insync.replicas')).toBe('1');
    expect(p.producer['acks']).toBe('1');
    expect(['lz4', 'zstd']).toContain(p.producer['compression.type']);
    expect(Number(p.producer['linger.ms'])).toBeGreaterThanOrEqual(20);
    expect(Number(p.producer['batch.size'])).toBeGreaterThan(16384);
    const warnings = validateProfile(JSON.parse(readText('throughput.json'))).warnings.map((w) => w.path);
    expect(warnings).toEqual(['producer.acks', 'brokerConfigs["unclean.leader.election.enable"]']);
    expect(profileDurability(p).acknowledgedWrites.brokerFailures).toBe(0);
  });
});

describe('profile.schema.json', () => {
  it('is what the generator builds from the config catalogue', () => {
    // To regenerate: npx tsx -e "import('./app/core/profiles/json-schema.ts').then((m) => process.stdout.write(m.profileJsonSchemaText()))" > resources/profiles/profile.schema.json
    expect(readText('profile.schema.json')).toBe(profileJsonSchemaText());
  });
});

// ---- JSON Schema ⇄ validator agreement ------------------------------------------------------

type Doc = Record<string, unknown>;
const patch = (p: Doc): Doc => ({ ...sampleDocument(), ...p });

/** Profiles both must accept. */
const GOOD: [string, Doc][] = [
  ['the sample', sampleDocument()],
  ['a minimal profile', { version: 1, name: 'm', cluster: { brokers: 1 }, topicDefaults: { partitions: 1, replicationFactor: 1 } }],
  ['a rack count', patch({ cluster: { brokers: 3, racks: 2 } })],
  ['values Kafka trims and reads case-insensitively', patch({ brokerConfigs: { 'unclean.leader.election.enable': ' TRUE ', 'min.insync.replicas': '+2' } })],
  ['a list value', patch({ topicDefaults: { partitions: 1, replicationFactor: 1, configs: { 'follower.replication.throttled.replicas': '0:1, 1:2' } } })],
  ['auto.offset.reset by duration', patch({ consumer: { 'auto.offset.reset': 'by_duration:P1DT2H' } })],
];

/** Structure, key names and value formats: both must refuse. */
const BAD_FOR_BOTH: [string, Doc][] = [
  ['no name', { version: 1, cluster: { brokers: 1 }, topicDefaults: { partitions: 1, replicationFactor: 1 } }],
  ['version 2', patch({ version: 2 })],
  ['an unknown top-level field', patch({ owner: 'me' })],
  ['a name with a space', patch({ name: 'my profile' })],
  ['brokers 0', patch({ cluster: { brokers: 0 } })],
  ['racks as a string', patch({ cluster: { brokers: 3, racks: 'r1' } })],
  ['an unknown broker config', patch({ brokerConfigs: { 'broker.rack': 'r1' } })],
  ['a number instead of a string', patch({ brokerConfigs: { 'min.insync.replicas': 2 } })],
  ['a non-integer int config', patch({ brokerConfigs: { 'min.insync.replicas': 'two' } })],
  ['a non-boolean boolean', patch({ brokerConfigs: { 'unclean.leader.election.enable': 'yes' } })],
  ['an unknown enum value', patch({ consumer: { 'isolation.level': 'committed' } })],
  ['a producer codec the producer lacks', patch({ producer: { acks: 'all', 'compression.type': 'producer' } })],
  ['acks 2', patch({ producer: { acks: '2' } })],
  ['a list with an unknown element', patch({ topicDefaults: { partitions: 1, replicationFactor: 1, configs: { 'cleanup.policy': 'delete,shred' } } })],
  ['partitions 0', patch({ topicDefaults: { partitions: 0, replicationFactor: 1 } })],
  ['a fractional replication factor', patch({ topicDefaults: { partitions: 1, replicationFactor: 1.5 } })],
  ['a note on no setting', patch({ notes: { 'cluster.size': 'x' } })],
  ['an empty note', patch({ notes: { 'producer.acks': '  ' } })],
];

/** Ranges and cross-field rules: the schema cannot express them, the validator refuses them. */
const BAD_FOR_VALIDATOR_ONLY: [string, Doc][] = [
  ['min.insync.replicas 0', patch({ brokerConfigs: { 'min.insync.replicas': '0' } })],
  ['an int config beyond 32 bits', patch({ brokerConfigs: { 'min.insync.replicas': '99999999999' } })],
  ['replication factor above the broker count', patch({ cluster: { brokers: 2 } })],
  ['fewer rack names than brokers', patch({ cluster: { brokers: 3, racks: ['r1', 'r2'] } })],
  ['idempotence with acks=1', patch({ producer: { acks: '1', 'enable.idempotence': 'true' } })],
  ['a note on a setting the profile lacks', patch({ notes: { 'producer.batch.size': 'x' } })],
];

interface SchemaValidator {
  (data: unknown): boolean;
  errors?: unknown;
}

/** ajv is not a dependency of ours; eslint brings it. Without it the cross-check is skipped. */
async function loadAjv(): Promise<((schema: object) => SchemaValidator) | undefined> {
  if (!existsSync(join(import.meta.dirname, '..', '..', 'node_modules', 'ajv'))) return undefined;
  const specifier = 'ajv';
  const mod = (await import(specifier)) as { default: new (options: object) => { compile(schema: object): SchemaValidator } };
  return (schema) => new mod.default({ allErrors: true, strict: false }).compile(schema);
}

const compile = await loadAjv();

describe.skipIf(compile === undefined)('JSON Schema and validator agree (ajv)', () => {
  const schemaValid = compile?.(JSON.parse(readText('profile.schema.json')) as object);
  const bySchema = (doc: unknown): boolean => schemaValid!(doc);
  const byValidator = (doc: unknown): boolean => validateProfile(doc).ok;

  it('accept the built-in profiles', () => {
    for (const name of BUILT_INS) {
      const doc = JSON.parse(readText(`${name}.json`)) as unknown;
      expect([name, bySchema(doc), byValidator(doc)]).toEqual([name, true, true]);
    }
  });

  it.each(GOOD)('both accept %s', (_, doc) => {
    expect([bySchema(doc), byValidator(doc)]).toEqual([true, true]);
  });

  it.each(BAD_FOR_BOTH)('both refuse %s', (_, doc) => {
    expect([bySchema(doc), byValidator(doc)]).toEqual([false, false]);
  });

  it.each(BAD_FOR_VALIDATOR_ONLY)('the schema lets %s through and the validator refuses it', (_, doc) => {
    expect([bySchema(doc), byValidator(doc)]).toEqual([true, false]);
  });
});

// ---- the exported shell script, run against stub Kafka CLI tools ----------------------------

describe.skipIf(process.platform === 'win32')('exported topics.sh', () => {
  const dir = mkdtempSync(join(tmpdir(), 'profile-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  for (const tool of ['kafka-topics.sh', 'kafka-configs.sh']) {
    const path = join(dir, tool);
    writeFileSync(path, `#!/bin/sh\nprintf '%s\\n' "${tool}" "$@"\n`);
    chmodSync(path, 0o755);
  }
  const profile = builtIn('durability');
  const script = join(dir, 'topics.sh');
  writeFileSync(script, exportProfile(profile, { formats: ['topic-commands'] })[0]!.contents);
  const run = (...args: string[]): string[] =>
    execFileSync('sh', [script, ...args], { env: { ...process.env, PATH: `${dir}:${process.env['PATH'] ?? ''}` }, encoding: 'utf8' })
      .trimEnd()
      .split('\n');

  it('creates the topic with the profile defaults, one argument per word', () => {
    expect(run("it's a topic")).toEqual([
      'kafka-topics.sh',
      '--bootstrap-server',
      'localhost:9092',
      '--create',
      '--topic',
      "it's a topic",
      '--partitions',
      '6',
      '--replication-factor',
      '3',
      '--config',
      'min.insync.replicas=2',
      '--config',
      'unclean.leader.election.enable=false',
    ]);
  });

  it('alters an existing topic with kafka-configs.sh', () => {
    expect(run('orders', '--alter')).toEqual([
      'kafka-configs.sh',
      '--bootstrap-server',
      'localhost:9092',
      '--alter',
      '--entity-type',
      'topics',
      '--entity-name',
      'orders',
      '--add-config',
      'min.insync.replicas=2,unclean.leader.election.enable=false',
    ]);
  });
});
