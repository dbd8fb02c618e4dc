import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MethodInput, MethodName } from '../../../../app/api/contract.js';
import type { Call } from '../../api/client.js';
import { startStoreHost, type StoreHost } from '../../test-support/store-host.js';
import { newContext, runStep, type DrillScenario, type StepResult } from './runner.js';
import { ACCESS_DENIED, QUOTA_THROTTLE } from './security-scenarios.js';

async function run(call: Call, scenario: DrillScenario): Promise<{ results: StepResult[]; topic: string }> {
  const ctx = newContext(call);
  const results: StepResult[] = [];
  for (const step of scenario.steps) {
    const r = await runStep(step, ctx);
    results.push(r);
    if (r.status !== 'ok') throw new Error(`${scenario.name}: step "${step.title}" ${r.status}: ${r.summary}`);
  }
  return { results, topic: ctx.topic };
}

describe('the security drills against a real host with the StandardAuthorizer', () => {
  let h: StoreHost;
  let call: Call;
  beforeAll(async () => {
    h = await startStoreHost(['--broker-config', 'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer']);
    call = <M extends MethodName>(m: M, input: MethodInput<M>) => h.client.result(m, input);
    await h.client.call('clock.setScale', { scale: 60 });
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  });

  it('A client without permission: refused with TOPIC_AUTHORIZATION_FAILED and nothing written, then acknowledged once one ALLOW binding is added', async () => {
    const { results, topic } = await run(call, ACCESS_DENIED);
    const refused = results.find((r) => r.expectedError)!;
    expect(refused.expectedError).toBe('TOPIC_AUTHORIZATION_FAILED');
    expect(results.find((r) => r.summary.startsWith('no-acl-found:'))!.summary).toBe(`no-acl-found: No binding names topic ${topic}, and allow.everyone.if.no.acl.found is false: denied.`);
    expect(results.at(-1)!.summary).toBe('Acknowledged at offset 0: the same client, now allowed by the binding.');
    const acls = await h.client.call('acls.list', { filter: { resourceName: topic } });
    expect(acls.bindings.map((b) => `${b.permissionType} ${b.principal} ${b.operation}`)).toEqual(['ALLOW User:ANONYMOUS WRITE']);
    // The refused request wrote nothing: the one record is the allowed one.
    const read = await h.client.call('records.consume', { topic, partition: 0, offset: 0 });
    expect(read.records.map((r) => r.value)).toEqual([`${topic}-app was here`]);
  }, 120_000);

  it('A producer over its quota: held to its producer_byte_rate by throttles, with no error', async () => {
    const { results, topic } = await run(call, QUOTA_THROTTLE);
    expect((await h.client.call('clock.get', {})).scale).toBe(1);
    const rows = await h.client.call('quotas.throttles', {});
    const leader = (await h.client.call('topics.describe', { name: topic })).partitions[0]!.leader;
    const sensor = rows.find((r) => r.brokerId === leader && r.key === 'producer_byte_rate' && r.clientId === `${topic}-producer`)!;
    expect(sensor.limit).toBe(20_480);
    expect(sensor.entity).toEqual({ 'client-id': `${topic}-producer` });
    expect(sensor.lastThrottleMs).toBeGreaterThan(0);
    // Throttled back to the quota: the broker's measured rate is near it, not the burst's.
    expect(sensor.rate).toBeLessThan(20_480 * 1.5);
    expect(results.at(-1)!.summary).toMatch(/^Broker \d+ measures [\d.]+ KiB\/s against a quota of 20\.0 KiB\/s; its last throttle was \d+ ms/);
    const produced = results.find((r) => r.summary.includes('requests ('))!;
    expect(produced.summary).toMatch(/^40 requests \(320\.6 KiB\) acknowledged/);
    // Without throttling 320 KiB would take a fraction of a second on loopback; the quota held it back.
    expect(produced.realMs).toBeGreaterThan(2_000);
  }, 120_000);
});

describe('the access drill on a cluster without an authorizer', () => {
  let h: StoreHost;
  beforeAll(async () => {
    h = await startStoreHost();
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  });

  it('stops at its first check and says how to start the cluster with one', async () => {
    const ctx = newContext(<M extends MethodName>(m: M, input: MethodInput<M>) => h.client.result(m, input));
    const check = ACCESS_DENIED.steps.find((s) => s.title === 'Check that the cluster has an authorizer')!;
    const r = await runStep(check, ctx);
    expect(r.status).toBe('failed');
    expect(r.summary).toMatch(/^SECURITY_DISABLED: No authorizer is configured.*--broker-config authorizer\.class\.name=org\.apache\.kafka\.metadata\.authorizer\.StandardAuthorizer/);
  }, 60_000);
});
