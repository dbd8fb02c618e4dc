/**
 * ApiVersions' feature fields (KIP-584) in Kafka's bytes: a request encoded with our codecs
 * through a broker's dispatcher over a simulated cluster, the answer read back as a client reads it.
 */
import { describe, expect, it } from 'vitest';
import { ELR_FEATURE, METADATA_VERSION_FEATURE } from '../../core/engine.js';
import { ApiKey } from '../generated/index.js';
import { concat, requestFrame } from '../test-support/frames.js';
import { WireSim } from '../test-support/wire-sim.js';

const SOFTWARE = { clientSoftwareName: 'test', clientSoftwareVersion: '1' };

describe('ApiVersions reports the supported features and the finalized levels (KIP-584)', () => {
  it('v4: every supported feature with its range; finalized only the features above level 0, at the metadata offset they were read at', async () => {
    const w = new WireSim({ seed: 3, brokers: 3 });
    const r = await w.respond(1, ApiKey.ApiVersions, 4, SOFTWARE);
    expect(r.errorCode).toBe(0);
    expect(r.supportedFeatures).toEqual([
      { name: ELR_FEATURE, minVersion: 0, maxVersion: 1 },
      { name: METADATA_VERSION_FEATURE, minVersion: 25, maxVersion: 25 },
    ]);
    // eligible.leader.replicas.version is at 0 on a new cluster: Kafka leaves a level-0 feature out.
    expect(r.finalizedFeatures).toEqual([{ name: METADATA_VERSION_FEATURE, minVersionLevel: 25, maxVersionLevel: 25 }]);
    const before = r.finalizedFeaturesEpoch;
    expect(before).toBeGreaterThanOrEqual(0n);

    expect(w.sim.engine.updateFeatures([{ feature: ELR_FEATURE, maxVersionLevel: 1 }])).toEqual([{ feature: ELR_FEATURE, errorCode: 'NONE' }]);
    w.sim.advance(100);
    const after = await w.respond(2, ApiKey.ApiVersions, 4, SOFTWARE);
    expect(after.finalizedFeatures).toEqual([
      { name: ELR_FEATURE, minVersionLevel: 1, maxVersionLevel: 1 },
      { name: METADATA_VERSION_FEATURE, minVersionLevel: 25, maxVersionLevel: 25 },
    ]);
    expect(after.finalizedFeaturesEpoch).toBeGreaterThan(before);
  });

  it('v3 leaves out the features whose minimum is 0, as Kafka does for older clients (KAFKA-17492)', async () => {
    const w = new WireSim({ seed: 3, brokers: 1 });
    w.sim.engine.updateFeatures([{ feature: ELR_FEATURE, maxVersionLevel: 1 }]);
    const r = await w.respond(1, ApiKey.ApiVersions, 3, SOFTWARE);
    expect(r.supportedFeatures.map((f) => f.name)).toEqual([METADATA_VERSION_FEATURE]);
    // The finalized level is reported all the same.
    expect(r.finalizedFeatures.map((f) => [f.name, f.maxVersionLevel])).toEqual([[ELR_FEATURE, 1], [METADATA_VERSION_FEATURE, 25]]);
  });

  it('the features travel as tagged fields 0, 1 and 2 after the v3 body, and v0–v2 carry none', async () => {
    const w = new WireSim({ seed: 3, brokers: 1 });
    const v3 = await w.dispatcher(1).dispatch(requestFrame(ApiKey.ApiVersions, 3, SOFTWARE).subarray(4));
    const v2 = await w.dispatcher(1).dispatch(requestFrame(ApiKey.ApiVersions, 2, {}).subarray(4));
    if (v3.kind !== 'respond' || v2.kind !== 'respond') throw new Error('no answer');
    const bytes = concat(v3.parts);
    // size, correlation id (header v0 for ApiVersions, KIP-511), error code, compact array of
    // (key, min, max, empty tag buffer), throttle time: then the body's tag buffer.
    const entries = bytes[10]! - 1;
    let at = 11 + entries * 7 + 4;
    expect(bytes[at++]).toBe(3); // three tagged fields
    const tags: number[] = [];
    for (let i = 0; i < 3; i++) {
      tags.push(bytes[at++]!);
      const size = bytes[at++]!;
      if (tags[i] === 1) expect(new DataView(bytes.buffer, bytes.byteOffset + at, 8).getBigInt64(0)).toBe(w.sim.engine.finalizedFeatures().epoch >= 0 ? BigInt(w.sim.engine.finalizedFeatures().epoch) : -1n);
      at += size;
    }
    expect(tags).toEqual([0, 1, 2]);
    expect(at).toBe(bytes.length);
    const name = new TextEncoder().encode(METADATA_VERSION_FEATURE);
    const v2bytes = concat(v2.parts);
    expect(v2bytes.findIndex((_, i) => name.every((b, j) => v2bytes[i + j] === b))).toBe(-1);
    const r = await w.respond(1, ApiKey.ApiVersions, 2, {});
    expect(r.supportedFeatures).toEqual([]);
    expect(r.finalizedFeaturesEpoch).toBe(-1n);
  });
});
