/**
 * CreateAcls, DescribeAcls and DeleteAcls in Kafka's bytes against a simulated cluster: the
 * authorizer off (SECURITY_DISABLED), the cluster permission they need, Kafka's answers for
 * hostile bindings and filters (nothing changes), and the bindings kept in the metadata log.
 */
import { describe, expect, it } from 'vitest';
import { ApiKey } from '../../generated/index.js';
import { alice, ANY_FILTER, creation, secured } from '../../test-support/secured-sim.js';
import { WireSim } from '../../test-support/wire-sim.js';

describe('ACL APIs on the wire', () => {
  it('answers SECURITY_DISABLED without an authorizer, as Kafka does, and stores nothing', async () => {
    const w = new WireSim({ seed: 3 });
    const created = await w.respond(1, ApiKey.CreateAcls, 3, { creations: [creation()] });
    expect(created.results).toEqual([{ errorCode: 54, errorMessage: 'No Authorizer is configured.' }]);
    const described = await w.respond(1, ApiKey.DescribeAcls, 3, ANY_FILTER);
    expect(described).toMatchObject({ errorCode: 54, errorMessage: 'No Authorizer is configured on the broker', resources: [] });
    const deleted = await w.respond(1, ApiKey.DeleteAcls, 3, { filters: [ANY_FILTER] });
    expect(deleted.filterResults).toEqual([{ errorCode: 54, errorMessage: 'No Authorizer is configured.', matchingAcls: [] }]);
    expect(w.sim.engine.metadata.acls.size).toBe(0);
  });

  it('needs ALTER on the cluster to create and delete, DESCRIBE to describe (CLUSTER_AUTHORIZATION_FAILED)', async () => {
    const w = secured();
    const refused = await w.request(1, ApiKey.CreateAcls, 3, { creations: [creation(), creation({ resourceName: 'x' })] }, { session: alice });
    expect(refused).toMatchObject({ kind: 'respond', body: { results: [{ errorCode: 31 }, { errorCode: 31 }] } });
    const described = await w.request(1, ApiKey.DescribeAcls, 3, ANY_FILTER, { session: alice });
    expect(described).toMatchObject({ body: { errorCode: 31, resources: [] } });
    // A binding giving alice ALTER on the cluster lets her create.
    await w.respond(1, ApiKey.CreateAcls, 3, { creations: [creation({ resourceType: 4, resourceName: 'kafka-cluster', operation: 7 })] });
    w.sim.advance(1_000);
    const allowed = await w.request(1, ApiKey.CreateAcls, 3, { creations: [creation()] }, { session: alice });
    expect(allowed).toMatchObject({ body: { results: [{ errorCode: 0, errorMessage: null }] } });
    // ALTER implies DESCRIBE: she may describe now.
    const listed = await w.request(1, ApiKey.DescribeAcls, 3, ANY_FILTER, { session: alice });
    expect(listed).toMatchObject({ body: { errorCode: 0 } });
  });

  it('creates literal and prefixed bindings in the metadata log, describes them grouped by pattern, and deletes by filter', async () => {
    const w = secured();
    const created = await w.respond(1, ApiKey.CreateAcls, 3, {
      creations: [creation(), creation({ operation: 4 }), creation({ resourceName: 'pay', resourcePatternType: 4, permissionType: 2, host: '10.0.0.1' }), creation()],
    });
    expect(created.results.map((r) => r.errorCode)).toEqual([0, 0, 0, 0]);
    // The same binding twice is one binding.
    expect(w.sim.engine.metadata.acls.size).toBe(3);
    w.sim.advance(1_000);
    const all = await w.respond(2, ApiKey.DescribeAcls, 3, ANY_FILTER);
    expect(all.resources).toEqual([
      { resourceType: 2, resourceName: 'orders', patternType: 3, acls: [{ principal: 'User:alice', host: '*', operation: 3, permissionType: 3 }, { principal: 'User:alice', host: '*', operation: 4, permissionType: 3 }] },
      { resourceType: 2, resourceName: 'pay', patternType: 4, acls: [{ principal: 'User:alice', host: '10.0.0.1', operation: 3, permissionType: 2 }] },
    ]);
    // MATCH on "payments" finds the prefixed binding that applies to it.
    const match = await w.respond(2, ApiKey.DescribeAcls, 3, { ...ANY_FILTER, resourceTypeFilter: 2, resourceNameFilter: 'payments', patternTypeFilter: 2 });
    expect(match.resources.map((r) => r.resourceName)).toEqual(['pay']);
    const deleted = await w.respond(1, ApiKey.DeleteAcls, 3, { filters: [{ ...ANY_FILTER, operation: 4 }, { ...ANY_FILTER, resourceNameFilter: 'orders', patternTypeFilter: 3, operation: 4 }] });
    // Both filters report the WRITE binding; it is removed once.
    expect(deleted.filterResults.map((f) => f.matchingAcls.map((a) => [a.resourceName, a.operation]))).toEqual([[['orders', 4]], [['orders', 4]]]);
    expect([...w.sim.engine.metadata.acls.values()].map((b) => b.operation).sort()).toEqual(['READ', 'READ']);
  });

  it("answers hostile creations with Kafka's errors and stores none of them", async () => {
    const w = secured();
    const bad = await w.respond(1, ApiKey.CreateAcls, 3, {
      creations: [
        creation({ resourceType: 4, resourceName: 'my-cluster' }),
        creation({ resourceName: '' }),
        creation({ principal: 'alice' }),
        creation({ resourceType: 7, resourceName: 'bob', operation: 13 }),
      ],
    });
    expect(bad.results).toEqual([
      { errorCode: 42, errorMessage: 'The only valid name for the CLUSTER resource is kafka-cluster' },
      { errorCode: 42, errorMessage: 'Invalid empty resource name' },
      { errorCode: 42, errorMessage: 'Could not parse principal from `alice` (no colon is present separating the principal type from the principal name)' },
      { errorCode: 0, errorMessage: null },
    ]);
    // ANY or MATCH cannot be a binding at all: Kafka fails the whole request.
    for (const c of [creation({ resourceType: 1 }), creation({ resourcePatternType: 2 }), creation({ operation: 1 }), creation({ permissionType: 1 })]) {
      const r = await w.respond(1, ApiKey.CreateAcls, 3, { creations: [creation({ resourceName: 'fine' }), c] });
      expect(r.results).toEqual([{ errorCode: -1, errorMessage: null }, { errorCode: -1, errorMessage: null }]);
    }
    // Codes Kafka has no name for fail the request's parsing: the connection closes.
    expect((await w.request(1, ApiKey.CreateAcls, 3, { creations: [creation({ operation: 99 })] })).kind).toBe('close');
    expect((await w.request(1, ApiKey.DescribeAcls, 3, { ...ANY_FILTER, resourceTypeFilter: 0 })).kind).toBe('close');
    expect((await w.request(1, ApiKey.DeleteAcls, 3, { filters: [{ ...ANY_FILTER, permissionType: 42 }] })).kind).toBe('close');
    expect([...w.sim.engine.metadata.acls.values()].map((b) => b.resourceType)).toEqual(['USER']);
  });
});
