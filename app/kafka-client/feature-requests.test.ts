/**
 * The Kafka driver's feature and ELR requests against a broker's dispatcher over a simulated
 * cluster (the requests travel in Kafka's bytes through our codecs), and against one whose
 * ApiVersions lacks the APIs: unavailable with the reason, never an empty answer.
 */
import { describe, expect, it } from 'vitest';
import { values, waitForIsr } from '../sim/scenarios/support.js';
import type { ApiKeyNumber } from '../protocol/generated/index.js';
import { WireSim } from '../protocol/test-support/wire-sim.js';
import type { KafkaAdminClient } from './admin-client.js';
import { describeElr, ELR_UNAVAILABLE_REASON, updateFeatures } from './feature-requests.js';

type Client = Pick<KafkaAdminClient, 'send' | 'apiVersions'>;
const ELR_FEATURE = 'eligible.leader.replicas.version';

/** A client whose requests go to broker 1's dispatcher; `hide` leaves API keys out of ApiVersions (an older cluster). */
function clientOf(w: WireSim, hide: number[] = []): Client & { sent: number[] } {
  const sent: number[] = [];
  return {
    sent,
    apiVersions: () => Promise.resolve(w.dispatcher(1).advertisedRanges().filter((r) => !hide.includes(r.apiKey))),
    send: (async (_broker: number | undefined, apiKey: ApiKeyNumber, wanted: readonly [number, number], body: never) => {
      sent.push(apiKey);
      return w.respond(1, apiKey, wanted[1], body);
    }) as Client['send'],
  };
}

describe('the Kafka driver reads ELR and updates features over the Kafka protocol', () => {
  it('reads every partition’s ELR, following next_cursor past the 2,000-partition page', async () => {
    const w = new WireSim({ seed: 430, brokers: 3 });
    w.sim.engine.updateFeatures([{ feature: ELR_FEATURE, maxVersionLevel: 1 }]);
    w.sim.createTopic('wide', 2_050, 1);
    w.sim.createTopic('t', 1, 3, { 'min.insync.replicas': '2' }, [[1, 2, 3]]);
    for (const v of values(0, 2)) w.sim.produce('t', 0, [v]);
    w.sim.engine.stallFollower(3);
    w.sim.produce('t', 0, ['a'], 1);
    waitForIsr(w.sim, 't', 0, [1, 2], 60_000);
    w.sim.engine.stallFollower(2);
    w.sim.produce('t', 0, ['b'], 1);
    waitForIsr(w.sim, 't', 0, [1], 60_000);
    w.sim.advance(1_000);
    const client = clientOf(w);
    const read = await describeElr(client);
    if (!('elr' in read)) throw new Error(read.unavailable);
    expect(read.elr.get('wide')!.size).toBe(2_050);
    expect(read.elr.get('t')!.get(0)).toEqual({ elr: [2], lastKnownElr: [] });
    // The same answer carries each topic's id (Metadata below v10 carries none).
    expect(read.topicIds.get('t')).toBe(w.sim.engine.metadata.topicsByName.get('t')!.topicId);
    expect(read.topicIds.get('t')).not.toBe('AAAAAAAAAAAAAAAAAAAAAA');
    expect(client.sent.filter((k) => k === 75)).toHaveLength(2);

    // Topic by topic with the partition counts Metadata gave: the same answer, in requests that name their topics.
    const bodies: { topics: { name: string }[] }[] = [];
    const named: Client = { apiVersions: client.apiVersions, send: ((broker: number | undefined, apiKey: ApiKeyNumber, wanted: readonly [number, number], body: never, doing: string) => (bodies.push(body), client.send(broker, apiKey as 75, wanted, body, doing))) as Client['send'] };
    const counts = new Map([...w.sim.engine.metadata.topicsByName.values()].map((t) => [t.name, t.partitions.size]));
    expect(await describeElr(named, undefined, counts)).toEqual(read);
    expect(bodies.map((b) => b.topics.map((t) => t.name).join()).sort()).toEqual([[...counts.keys()].filter((n) => n !== 'wide').sort().join(), 'wide', 'wide'].sort());
  });

  it('says why when the cluster does not serve DescribeTopicPartitions or UpdateFeatures, without sending them', async () => {
    const w = new WireSim({ seed: 431, brokers: 1 });
    const client = clientOf(w, [57, 75]);
    expect(await describeElr(client)).toEqual({ unavailable: ELR_UNAVAILABLE_REASON });
    expect(await updateFeatures(client, [{ feature: ELR_FEATURE, maxVersionLevel: 1 }], false)).toBeNull();
    expect(client.sent).toEqual([]);
  });

  it('answers UpdateFeatures per feature: the refused one with its reason, the others with the whole refusal', async () => {
    const w = new WireSim({ seed: 432, brokers: 1 });
    const client = clientOf(w);
    const refused = await updateFeatures(client, [{ feature: ELR_FEATURE, maxVersionLevel: 1 }, { feature: 'metadata.version', maxVersionLevel: 24, upgradeType: 'safe-downgrade' }], false);
    expect(refused).toEqual([
      { feature: ELR_FEATURE, errorCode: 'INVALID_UPDATE_VERSION', message: expect.stringMatching(/^The update failed for all features since the following feature had an error: Invalid update version 24 for feature metadata.version\./) },
      { feature: 'metadata.version', errorCode: 'INVALID_UPDATE_VERSION', message: 'Invalid update version 24 for feature metadata.version. The supported range is [25, 25].' },
    ]);
    // Exactly what the embedded service answers for the same request.
    expect(refused).toEqual(w.sim.engine.updateFeatures([{ feature: ELR_FEATURE, maxVersionLevel: 1 }, { feature: 'metadata.version', maxVersionLevel: 24, upgradeType: 'safe-downgrade' }]));
    expect(await updateFeatures(client, [{ feature: ELR_FEATURE, maxVersionLevel: 1 }], true)).toEqual([{ feature: ELR_FEATURE, errorCode: 'NONE' }]);
    expect(w.sim.engine.describeFeatures()[0]!.finalizedLevel).toBe(0);
    expect(await updateFeatures(client, [{ feature: ELR_FEATURE, maxVersionLevel: 1 }], false)).toEqual([{ feature: ELR_FEATURE, errorCode: 'NONE' }]);
    expect(w.sim.engine.describeFeatures()[0]!.finalizedLevel).toBe(1);
  });
});
