import { describe, expect, it } from 'vitest';
import { exportProfile, profileToJson } from './export.js';
import { parseProfileJson } from './validate.js';
import { mustValidate, sampleDocument, sampleProfile } from './test-support/profiles.js';

const file = (files: { filename: string; contents: string }[], name: string): string => {
  const f = files.find((x) => x.filename === name);
  if (f === undefined) throw new Error(`no ${name} in ${files.map((x) => x.filename).join(', ')}`);
  return f.contents;
};

describe('profile JSON export', () => {
  it('writes fields in canonical order whatever order they were given in', () => {
    const doc = sampleDocument();
    const reversed = Object.fromEntries(Object.entries(doc).reverse());
    expect(profileToJson(mustValidate(reversed))).toBe(profileToJson(mustValidate(doc)));
    const text = profileToJson(sampleProfile({ producer: { 'linger.ms': '10', acks: 'all', 'enable.idempotence': 'true' } }));
    expect(Object.keys((JSON.parse(text) as { producer: object }).producer)).toEqual(['acks', 'enable.idempotence', 'linger.ms']);
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('round-trips export → import → export byte for byte, values kept as written', () => {
    const first = profileToJson(sampleProfile({ brokerConfigs: { 'unclean.leader.election.enable': ' FALSE' } }));
    const again = parseProfileJson(first);
    expect(again.ok).toBe(true);
    if (again.ok) expect(profileToJson(again.profile)).toBe(first);
    expect(first).toContain('"unclean.leader.election.enable": " FALSE"');
  });

  it('orders notes as the settings appear in the document', () => {
    const notes = { 'producer.acks': 'p', 'cluster.brokers': 'c', 'brokerConfigs.min.insync.replicas': 'b', 'topicDefaults.partitions': 't' };
    const json = JSON.parse(profileToJson(sampleProfile({ notes }))) as { notes: object };
    expect(Object.keys(json.notes)).toEqual(['cluster.brokers', 'brokerConfigs.min.insync.replicas', 'topicDefaults.partitions', 'producer.acks']);
  });
});

describe('server.properties export', () => {
  it('writes one file per broker with node.id, broker.rack, the topic-default broker configs and the notes', () => {
    const profile = sampleProfile({ notes: { 'brokerConfigs.min.insync.replicas': 'two copies per ack', 'cluster.racks': 'one per rack' } });
    const files = exportProfile(profile, { formats: ['server-properties'] });
    expect(files.map((f) => f.filename)).toEqual(['server-1.properties', 'server-2.properties', 'server-3.properties']);
    expect(file(files, 'server-2.properties')).toBe(
      [
        '# server.properties of node 2 of 3, from Replica Studio profile "sample" (profile format version 1).',
        '# A test profile.',
        '#',
        '# Deployment settings are not part of a profile; add them for your cluster (KRaft): process.roles,',
        '# controller.quorum.bootstrap.servers, controller.listener.names, listeners, advertised.listeners, log.dirs.',
        '',
        "# node.id is KRaft's broker.id; the profile numbers brokers 1..3.",
        'node.id=2',
        '# broker.rack: one per rack',
        'broker.rack=r2',
        '',
        'default.replication.factor=3',
        '# min.insync.replicas: two copies per ack',
        'min.insync.replicas=2',
        'num.partitions=6',
        'unclean.leader.election.enable=false',
        '',
      ].join('\n'),
    );
  });

  it('trims values as Kafka does, escapes what java.util.Properties would misread and writes non-ASCII as \\u escapes', () => {
    const profile = sampleProfile({ cluster: { brokers: 3, racks: [' row 1\tA ', 'zone-ü', 'back\\slash'] } });
    const files = exportProfile(profile, { formats: ['server-properties'] });
    expect(file(files, 'server-1.properties')).toContain('\nbroker.rack=row 1\\tA\n');
    expect(file(files, 'server-2.properties')).toContain('\nbroker.rack=zone-\\u00fc\n');
    expect(file(files, 'server-3.properties')).toContain('\nbroker.rack=back\\\\slash\n');
  });

  it('numbers racks from a rack count and leaves broker.rack out without racks', () => {
    const counted = exportProfile(sampleProfile({ cluster: { brokers: 3, racks: 2 } }), { formats: ['server-properties'] });
    expect(counted.map((f) => /broker\.rack=(.*)/.exec(f.contents)?.[1])).toEqual(['rack-1', 'rack-2', 'rack-1']);
    const none = exportProfile(sampleProfile({ cluster: { brokers: 3 } }), { formats: ['server-properties'] });
    expect(none.every((f) => !f.contents.includes('broker.rack'))).toBe(true);
  });
});

describe('topic command export', () => {
  it('creates with kafka-topics.sh and alters with kafka-configs.sh, list values in brackets', () => {
    const profile = sampleProfile({
      topicDefaults: { partitions: 6, replicationFactor: 3, configs: { 'min.insync.replicas': '2', 'leader.replication.throttled.replicas': '0:1, 1:2' } },
    });
    const script = file(exportProfile(profile, { formats: ['topic-commands'] }), 'topics.sh');
    expect(script).toContain(
      [
        '  kafka-topics.sh --bootstrap-server localhost:9092 --create --topic "$TOPIC" \\',
        '    --partitions 6 --replication-factor 3 \\',
        "    --config 'leader.replication.throttled.replicas=0:1, 1:2' \\",
        '    --config min.insync.replicas=2',
      ].join('\n'),
    );
    expect(script).toContain(
      [
        '  kafka-configs.sh --bootstrap-server localhost:9092 --alter --entity-type topics --entity-name "$TOPIC" \\',
        "    --add-config 'leader.replication.throttled.replicas=[0:1, 1:2],min.insync.replicas=2'",
      ].join('\n'),
    );
    expect(script.startsWith('#!/bin/sh\n')).toBe(true);
    expect(script).toContain(
      '# Durability with the profile\'s producer: RF 3, min ISR 2, acks=all, unclean off: writes survive 1 broker down, reads 2 brokers, ' +
        'and acknowledged writes survive 1 broker lost.\n',
    );
  });

  it('has nothing to alter when the profile sets no topic configs', () => {
    const script = file(exportProfile(sampleProfile({ topicDefaults: { partitions: 1, replicationFactor: 1 } }), { formats: ['topic-commands'] }), 'topics.sh');
    expect(script).toContain('echo "Profile has no topic configs to set." >&2');
    expect(script).toContain('    --partitions 1 --replication-factor 1\nfi');
  });
});

describe('client properties export', () => {
  it('writes producer and consumer settings with a bootstrap.servers placeholder and the notes', () => {
    const files = exportProfile(sampleProfile(), { formats: ['client-properties'], bootstrapServers: 'kafka-1:9092' });
    expect(files.map((f) => f.filename)).toEqual(['producer.properties', 'consumer.properties']);
    const producer = file(files, 'producer.properties');
    expect(producer).toContain('\nbootstrap.servers=kafka-1:9092\n');
    expect(producer).toContain('\n# acks: all: every in-sync replica has the record before the ack.\nacks=all\nenable.idempotence=true\nlinger.ms=10\n');
    expect(file(files, 'consumer.properties')).toContain('\nisolation.level=read_committed\n');
  });

  it('exports every format by default, the profile JSON first', () => {
    expect(exportProfile(sampleProfile()).map((f) => f.filename)).toEqual([
      'sample.profile.json',
      'server-1.properties',
      'server-2.properties',
      'server-3.properties',
      'topics.sh',
      'producer.properties',
      'consumer.properties',
    ]);
  });

  it('turns on a feature the way Kafka 4.x does: one kafka-features.sh upgrade for the cluster, not a broker config', () => {
    const profile = sampleProfile({
      features: { 'eligible.leader.replicas.version': 1 },
      notes: { 'features.eligible.leader.replicas.version': 'Eligible leader replicas (KIP-966).' },
    });
    const files = exportProfile(profile, { formats: ['server-properties'], bootstrapServers: 'kafka-1:9092' });
    expect(files.map((f) => f.filename)).toEqual(['server-1.properties', 'server-2.properties', 'server-3.properties', 'features.sh']);
    expect(file(files, 'features.sh')).toContain(
      '\n# eligible.leader.replicas.version: Eligible leader replicas (KIP-966).\nkafka-features.sh --bootstrap-server kafka-1:9092 upgrade --feature eligible.leader.replicas.version=1\n',
    );
    for (const f of files) expect(f.contents).not.toContain('eligible.leader.replicas.enable');
    // The profile JSON keeps the section, in canonical order, and reads back the same.
    const json = profileToJson(profile);
    expect(json.indexOf('"features"')).toBeGreaterThan(json.indexOf('"brokerConfigs"'));
    expect(json.indexOf('"features"')).toBeLessThan(json.indexOf('"topicDefaults"'));
    const back = parseProfileJson(json);
    expect(back.ok && profileToJson(back.profile)).toBe(json);
    // No feature levels: no features.sh.
    expect(exportProfile(sampleProfile(), { formats: ['server-properties'] }).map((f) => f.filename)).not.toContain('features.sh');
  });
});
