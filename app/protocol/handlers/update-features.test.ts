/**
 * UpdateFeatures (57) in Kafka's bytes, through a broker's dispatcher over a simulated cluster:
 * kafka-features.sh's upgrade and downgrade, validate-only, and the controller's all-or-nothing
 * answer with Kafka's errors.
 */
import { describe, expect, it } from 'vitest';
import { ELR_FEATURE } from '../../core/engine.js';
import { ApiKey } from '../generated/index.js';
import { WireSim } from '../test-support/wire-sim.js';

const level = (w: WireSim, name = ELR_FEATURE) => w.sim.engine.describeFeatures().find((f) => f.name === name)!.finalizedLevel;
const UPGRADE = 1;
const SAFE_DOWNGRADE = 2;

describe('UpdateFeatures (KIP-584)', () => {
  it('v1 upgrades eligible.leader.replicas.version, checks without finalizing when validate-only, and downgrades only when asked to', async () => {
    const w = new WireSim({ seed: 420, brokers: 3 });
    const update = (maxVersionLevel: number, upgradeType: number, validateOnly = false) =>
      w.respond(2, ApiKey.UpdateFeatures, 1, { timeoutMs: 5000, featureUpdates: [{ feature: ELR_FEATURE, maxVersionLevel, upgradeType }], validateOnly });

    expect(await update(1, UPGRADE, true)).toEqual({ throttleTimeMs: 0, errorCode: 0, errorMessage: null, results: [{ feature: ELR_FEATURE, errorCode: 0, errorMessage: null }] });
    expect(level(w)).toBe(0);
    expect((await update(1, UPGRADE)).errorCode).toBe(0);
    expect(level(w)).toBe(1);
    // Enabling ELR pins the cluster-level min.insync.replicas, as Kafka's controller does.
    expect(w.sim.engine.metadata.clusterConfigs()['min.insync.replicas']).toBeDefined();

    const asUpgrade = await update(0, UPGRADE);
    expect(asUpgrade).toEqual({
      throttleTimeMs: 0,
      errorCode: 95,
      errorMessage: `The update failed for all features since the following feature had an error: Invalid update version 0 for feature ${ELR_FEATURE}. Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade.`,
      results: [],
    });
    expect(level(w)).toBe(1);
    expect((await update(0, SAFE_DOWNGRADE)).errorCode).toBe(0);
    expect(level(w)).toBe(0);
    expect((await update(1, SAFE_DOWNGRADE)).errorMessage).toContain("Can't downgrade to a newer version.");
    expect((await update(1, 7)).errorMessage).toContain('The controller does not support the given upgrade type.');
    expect((await update(-1, UPGRADE)).errorMessage).toContain('A feature version cannot be less than 0.');
    expect(level(w)).toBe(0);
  });

  it('is all or nothing: one feature out of range and no feature is finalized', async () => {
    const w = new WireSim({ seed: 421, brokers: 1 });
    const r = await w.respond(1, ApiKey.UpdateFeatures, 1, {
      timeoutMs: 5000,
      featureUpdates: [
        { feature: ELR_FEATURE, maxVersionLevel: 1, upgradeType: UPGRADE },
        { feature: 'metadata.version', maxVersionLevel: 26, upgradeType: UPGRADE },
      ],
      validateOnly: false,
    });
    expect(r.errorCode).toBe(95);
    expect(r.errorMessage).toBe('The update failed for all features since the following feature had an error: Invalid update version 26 for feature metadata.version. The supported range is [25, 25].');
    expect(r.results).toEqual([]);
    expect(level(w)).toBe(0);
    expect(level(w, 'metadata.version')).toBe(25);
    const unknown = await w.respond(1, ApiKey.UpdateFeatures, 1, { timeoutMs: 5000, featureUpdates: [{ feature: 'no.such.version', maxVersionLevel: 1, upgradeType: UPGRADE }], validateOnly: false });
    expect([unknown.errorCode, unknown.errorMessage]).toEqual([95, expect.stringContaining('does not support the given feature')]);
  });

  it('v0 reads allow_downgrade as a safe downgrade', async () => {
    const w = new WireSim({ seed: 422, brokers: 1 });
    w.sim.engine.updateFeatures([{ feature: ELR_FEATURE, maxVersionLevel: 1 }]);
    const refused = await w.respond(1, ApiKey.UpdateFeatures, 0, { timeoutMs: 5000, featureUpdates: [{ feature: ELR_FEATURE, maxVersionLevel: 0, allowDowngrade: false }] });
    expect(refused.errorCode).toBe(95);
    const r = await w.respond(1, ApiKey.UpdateFeatures, 0, { timeoutMs: 5000, featureUpdates: [{ feature: ELR_FEATURE, maxVersionLevel: 0, allowDowngrade: true }] });
    expect(r).toMatchObject({ errorCode: 0, results: [{ feature: ELR_FEATURE, errorCode: 0 }] });
    expect(level(w)).toBe(0);
  });
});
