/**
 * The security drills: a client without permission (refused with Kafka's error, then allowed by
 * one ACL binding) and a producer over its quota (throttled to it). The client is a producer of
 * its own (`clients.produce`): its own connection to the cluster's Kafka listeners and its own
 * client.id, so the authorizer and the quota sensors judge it as they judge any application —
 * the console's own calls are the operator's and never are.
 */
import type { ClientThrottleView } from '../../../../app/api/contract.js';
import type { DrillScenario, DrillStep } from './runner.js';
import { StepError, value, type DrillContext } from './runner.js';
import { createTopicStep, restoreEveryBroker, waitEveryBrokerRunning } from './steps.js';
import { drillProducerId } from './quota-chart.js';

const STANDARD_AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
/** A client with no SASL login on a PLAINTEXT listener is this principal, as in Kafka. */
const ANONYMOUS = 'User:ANONYMOUS';
const QUOTA_BYTES_PER_S = 20_480;
const RECORD_BYTES = 1024;
const RECORDS_PER_REQUEST = 8;
const REQUESTS = 40;

const appId = (ctx: DrillContext) => `${ctx.topic}-app`;
const producerId = (ctx: DrillContext) => drillProducerId(ctx.topic);
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

function produceAs(ctx: DrillContext, clientId: string, repeat = 1, size = 0) {
  const records = Array.from({ length: size > 0 ? RECORDS_PER_REQUEST : 1 }, (_, i) => ({ key: `k${i}`, value: size > 0 ? 'x'.repeat(size) : `${clientId} was here` }));
  return value(ctx, 'clients.produce', { topic: ctx.topic, partition: ctx.partition, acks: 'all', records, repeat, maxRealMs: 20_000, clientId });
}

const authorizerOn: DrillStep = {
  title: 'Check that the cluster has an authorizer',
  kind: 'action',
  async run(ctx) {
    const { authorizer } = await value(ctx, 'acls.list', {});
    if (!authorizer.enabled) {
      throw new StepError(
        'SECURITY_DISABLED',
        `No authorizer is configured, so every client may do everything. Start the cluster with --broker-config authorizer.class.name=${STANDARD_AUTHORIZER} (npm run serve; see docs/operations.md) to run this drill.`,
      );
    }
    if (authorizer.allowEveryoneIfNoAclFound) {
      throw new StepError('INVALID_CONFIG', 'allow.everyone.if.no.acl.found=true lets any principal use a topic without ACLs: the client would not be refused.');
    }
    if (authorizer.superUsers?.includes(ANONYMOUS)) throw new StepError('INVALID_CONFIG', `${ANONYMOUS} is a super user: the authorizer allows it everything.`);
    return { status: 'ok', summary: `The StandardAuthorizer is on; super users: ${authorizer.superUsers?.join(', ') || 'none'}; allow.everyone.if.no.acl.found=false.` };
  },
};

export const ACCESS_DENIED: DrillScenario = {
  id: 'access-denied',
  name: 'A client without permission',
  explanation:
    'With an authorizer (KRaft’s StandardAuthorizer, KIP-11) every request is checked against the ACL bindings in the metadata log: a principal, a host, an operation on a resource. A client that logs in without SASL on a PLAINTEXT listener is User:ANONYMOUS. It has no binding, and allow.everyone.if.no.acl.found is false, so its Metadata request does not even show it the topic and its Produce is refused with TOPIC_AUTHORIZATION_FAILED: Kafka does not say whether the topic exists to a principal that may not describe it. One ALLOW binding for WRITE on the topic (WRITE implies DESCRIBE) lets the same client in once each broker has applied the record — nothing restarts, no client changes.',
  watch: 'The refused produce shows Kafka’s error as the client got it; the access check names the rule that decided (no ACL found for the topic). On the Security page’s Access tab the new binding appears; the next produce is acknowledged.',
  steps: [
    restoreEveryBroker(),
    waitEveryBrokerRunning(),
    authorizerOn,
    createTopicStep({}, 'no ACL binding on it'),
    {
      title: `Produce as ${ANONYMOUS} (client drill-<n>-app) with no binding (expect TOPIC_AUTHORIZATION_FAILED)`,
      kind: 'action',
      async run(ctx) {
        const r = await produceAs(ctx, appId(ctx));
        if (r.errorCode !== 'TOPIC_AUTHORIZATION_FAILED') throw new StepError(r.errorCode, `Expected TOPIC_AUTHORIZATION_FAILED, got ${r.errorCode}${r.errorMessage ? `: ${r.errorMessage}` : ''}.`);
        return { status: 'ok', expectedError: r.errorCode, summary: `Refused: ${r.errorCode}${r.errorMessage ? ` (${r.errorMessage})` : ''}. Nothing was written.` };
      },
    },
    {
      title: 'Ask the authorizer why',
      kind: 'action',
      async run(ctx) {
        const c = await value(ctx, 'acls.check', { principal: ANONYMOUS, host: '127.0.0.1', operation: 'WRITE', resourceType: 'TOPIC', resourceName: ctx.topic });
        if (c.allowed) throw new StepError('INVALID_STATE', `The authorizer allows it: ${c.explanation}`);
        return { status: 'ok', summary: `${c.rule}: ${c.explanation}` };
      },
    },
    {
      title: `Add a binding: ALLOW ${ANONYMOUS} WRITE on topic drill-<n>`,
      kind: 'action',
      async run(ctx) {
        const binding = { resourceType: 'TOPIC', resourceName: ctx.topic, patternType: 'LITERAL', principal: ANONYMOUS, host: '*', operation: 'WRITE', permissionType: 'ALLOW' } as const;
        const [r] = await value(ctx, 'acls.create', { bindings: [binding] });
        if (r!.errorCode !== 'NONE') throw new StepError(r!.errorCode, r!.errorMessage ?? '');
        return { status: 'ok', summary: `Created ALLOW ${ANONYMOUS} from * WRITE on TOPIC ${ctx.topic} (LITERAL): a record in the metadata log, which every broker applies.` };
      },
    },
    {
      title: 'Produce again until the leader has applied the binding',
      kind: 'wait',
      maxClusterMs: 30_000,
      onTimeout: 'The leader never let the client write.',
      async check(ctx) {
        const r = await produceAs(ctx, appId(ctx));
        if (r.errorCode === 'TOPIC_AUTHORIZATION_FAILED') return null;
        if (r.errorCode !== 'NONE') throw new StepError(r.errorCode, r.errorMessage ?? `The client got ${r.errorCode}.`);
        return { status: 'ok', summary: `Acknowledged at offset ${r.firstOffset}: the same client, now allowed by the binding.` };
      },
    },
  ],
};

/** The producer's sensor on the partition's leader (where it sent everything). */
async function leaderSensor(ctx: DrillContext): Promise<ClientThrottleView | undefined> {
  const t = await value(ctx, 'topics.describe', { name: ctx.topic });
  const leader = t.partitions.find((p) => p.partition === ctx.partition)?.leader;
  const rows = await value(ctx, 'quotas.throttles', {});
  return rows.find((r) => r.brokerId === leader && r.key === 'producer_byte_rate' && r.clientId === producerId(ctx));
}

export const QUOTA_THROTTLE: DrillScenario = {
  id: 'quota-throttle',
  name: 'A producer over its quota, throttled',
  explanation:
    'A client quota (KIP-13, KIP-55, per user and client id) caps a client’s byte rate on each broker. Kafka does not refuse a client over its quota: the broker measures its rate over quota.window.num windows of quota.window.size.seconds (never over less than ten of the eleven seconds, so a new client gets a burst), and when the rate is above the quota answers with throttle_time_ms — the time that brings the rate back to the quota — and stops reading that connection for as long (KIP-219). The client waits too; nothing fails, it just goes slower. Quotas are rates in the cluster’s time, so the drill runs the clock at 1×.',
  watch: 'Below the steps, the drill draws the client drill-<n>-producer’s rate on the leader against its 20 KiB/s quota, and the throttle_time_ms the leader answers it with, second by second (the Security page’s Quotas tab shows the same sensors). The produce step reports how long the client took; the last step, the rate the broker measured and the last throttle time.',
  steps: [
    restoreEveryBroker(),
    waitEveryBrokerRunning(),
    {
      title: 'Run the clock at 1× (quotas are per second of cluster time)',
      kind: 'action',
      async run(ctx) {
        const c = await value(ctx, 'clock.get', {});
        if (c.scale === null || c.scale === 1) return { status: 'ok', summary: c.scale === null ? 'The clock is driven by hand.' : 'The clock already runs at 1×.' };
        await value(ctx, 'clock.setScale', { scale: 1 });
        return { status: 'ok', summary: `Clock set from ${c.scale}× to 1×.` };
      },
    },
    createTopicStep({}, 'for one producer'),
    {
      title: `Give client drill-<n>-producer a quota: producer_byte_rate ${QUOTA_BYTES_PER_S / 1024} KiB/s`,
      kind: 'action',
      async run(ctx) {
        const r = await value(ctx, 'quotas.alter', { entity: { 'client-id': producerId(ctx) }, set: { producer_byte_rate: QUOTA_BYTES_PER_S } });
        if (r.errorCode !== 'NONE') throw new StepError(r.errorCode, r.errorMessage ?? '');
        return { status: 'ok', summary: `client-id=${producerId(ctx)}: producer_byte_rate=${QUOTA_BYTES_PER_S}.` };
      },
    },
    {
      title: `With an authorizer, allow ${ANONYMOUS} to write to drill-<n>`,
      kind: 'action',
      async run(ctx) {
        const { authorizer } = await value(ctx, 'acls.list', {});
        if (!authorizer.enabled) return { status: 'ok', summary: 'No authorizer: every client may write.' };
        const [r] = await value(ctx, 'acls.create', {
          bindings: [{ resourceType: 'TOPIC', resourceName: ctx.topic, patternType: 'LITERAL', principal: ANONYMOUS, host: '*', operation: 'WRITE', permissionType: 'ALLOW' }],
        });
        if (r!.errorCode !== 'NONE') throw new StepError(r!.errorCode, r!.errorMessage ?? '');
        return { status: 'ok', summary: `Created ALLOW ${ANONYMOUS} WRITE on TOPIC ${ctx.topic}.` };
      },
    },
    {
      title: `Produce ${REQUESTS} requests of ${kib(RECORDS_PER_REQUEST * RECORD_BYTES)} as fast as the broker lets it`,
      kind: 'action',
      async run(ctx) {
        const r = await produceAs(ctx, producerId(ctx), REQUESTS, RECORD_BYTES);
        if (r.errorCode !== 'NONE') throw new StepError(r.errorCode, r.errorMessage ?? `The producer got ${r.errorCode}.`);
        const rate = r.bytes / Math.max(r.realMs / 1000, 0.001);
        return { status: 'ok', summary: `${r.requestsAcknowledged} requests (${kib(r.bytes)}) acknowledged in ${(r.realMs / 1000).toFixed(1)} s: ${kib(rate)}/s on average, the first ~10 s of quota as a burst, then held back.` };
      },
    },
    {
      title: 'Read the producer’s sensor on the leader',
      kind: 'wait',
      maxClusterMs: 10_000,
      onTimeout: 'The leader has no sensor for the producer, or never throttled it.',
      async check(ctx) {
        const s = await leaderSensor(ctx);
        if (!s || s.lastThrottleAtMs === null) return null;
        return {
          status: 'ok',
          summary: `Broker ${s.brokerId} measures ${kib(s.rate)}/s against a quota of ${kib(s.limit ?? 0)}/s; its last throttle was ${s.lastThrottleMs} ms${s.throttledNow ? ', still running' : ''}.`,
        };
      },
    },
  ],
};
