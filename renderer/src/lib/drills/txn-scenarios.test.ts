import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MethodInput, MethodName } from '../../../../app/api/contract.js';
import type { Call } from '../../api/client.js';
import { startStoreHost, until, type StoreHost } from '../../test-support/store-host.js';
import { newContext, runStep, type DrillContext, type DrillScenario, type StepResult } from './runner.js';
import { TXN_COORDINATOR_DIES, TXN_PRODUCER_DIES, TXN_ZOMBIE_FENCED } from './txn-scenarios.js';

describe('the transaction drills against a real host at 60×, checked by a kafkajs consumer', () => {
  let h: StoreHost;
  let call: Call;
  let kafka: Kafka;
  beforeAll(async () => {
    h = await startStoreHost();
    call = <M extends MethodName>(m: M, input: MethodInput<M>) => h.client.result(m, input);
    await h.client.call('clock.setScale', { scale: 60 });
    const { bootstrapServers } = await h.client.call('cluster.describe', {});
    kafka = new Kafka({ clientId: 'drill-check', brokers: bootstrapServers.split(','), logLevel: logLevel.NOTHING, connectionTimeout: 3_000 });
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  });

  /** Run the steps in order; `after(title)` runs once the step of that title passed. */
  async function run(scenario: DrillScenario, after: Record<string, (ctx: DrillContext) => Promise<void>> = {}): Promise<{ results: StepResult[]; topic: string }> {
    const ctx = newContext(call);
    const results: StepResult[] = [];
    for (const step of scenario.steps) {
      const r = await runStep(step, ctx);
      results.push(r);
      if (r.status !== 'ok') throw new Error(`${scenario.name}: step "${step.title}" ${r.status}: ${r.summary}`);
      await after[step.title]?.(ctx);
    }
    return { results, topic: ctx.topic };
  }

  /** A kafkajs consumer group of this isolation level from the start of `topic`; `stop()` returns every value it got. */
  async function consume(topic: string, readUncommitted: boolean): Promise<{ values: string[]; stop(): Promise<string[]> }> {
    const consumer = kafka.consumer({ groupId: `${topic}-check-${readUncommitted ? 'ru' : 'rc'}-${Date.now()}`, maxWaitTimeInMs: 100, readUncommitted });
    // A record delivered again (kafkajs refetches what it had not committed yet after a rebalance) is one record: keyed by its offset.
    const values: string[] = [];
    const seen = new Set<string>();
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        if (seen.has(`${partition}@${message.offset}`)) return;
        seen.add(`${partition}@${message.offset}`);
        values.push(message.value!.toString());
      },
    });
    return {
      values,
      async stop() {
        await consumer.disconnect();
        return values;
      },
    };
  }

  /** What a consumer reads once it has `count` values, and 1.5 s more for anything past them. */
  async function readAll(topic: string, readUncommitted: boolean, count: number): Promise<string[]> {
    const c = await consume(topic, readUncommitted);
    await until(() => c.values.length >= count, 30_000);
    await new Promise((r) => setTimeout(r, 1_500));
    return c.stop();
  }

  it('A producer dies mid-transaction: its open transaction holds the LSO and read_committed consumers stall until transaction.timeout.ms aborts it', async () => {
    let stalled: { values: string[]; stop(): Promise<string[]> } | undefined;
    let during: string[] = [];
    // At 5× the minute of transaction.timeout.ms is 12 s of real time: long enough for a real consumer to join and be seen to stall.
    await h.client.call('clock.setScale', { scale: 5 });
    const { results, topic } = await run(TXN_PRODUCER_DIES, {
      'Read the partition as read_committed and read_uncommitted consumers': async (ctx) => {
        // A real read_committed consumer, started while the transaction is open, gets the committed records and stops there.
        stalled = await consume(ctx.topic, false);
        await until(() => stalled!.values.length >= 3, 30_000);
        await new Promise((r) => setTimeout(r, 1_500));
        during = [...stalled.values];
      },
    });
    expect(during).toEqual(['paid-0-1', 'paid-0-2', 'paid-0-3']);
    // Once aborted, the same consumer gets the plain record the transaction held back, and none of the aborted ones.
    await until(() => stalled!.values.length >= 4, 30_000);
    expect(await stalled!.stop()).toEqual(['paid-0-1', 'paid-0-2', 'paid-0-3', `${topic}-plain-1`]);

    const held = results.find((r) => r.summary.includes('read_committed consumers stall there'))!;
    // 3 committed records and their marker (offsets 0–3); the open transaction at 4–5, the plain record at 6.
    expect(held.summary).toMatch(/^HW 7, LSO 4: read_committed gets 3 records, read_uncommitted 6\. .*plain record at offset 6/);
    const crash = results.find((r) => r.summary.includes('only the coordinator can end it now'))!;
    expect(crash.summary).toContain('with its transaction open');
    const recent = await h.client.call('events.recent', { types: ['transaction.stateChanged'] });
    const abort = recent.find((e) => e.type === 'transaction.stateChanged' && e.transactionalId === `${topic}-tx` && e.state === 'PrepareAbort')!;
    expect(abort).toMatchObject({ reason: 'open longer than its timeout (60000 ms)' });
    // Aborted by the timeout, not sooner: at least transaction.timeout.ms after the transaction began (before the crash).
    expect(abort.atMs - crash.startedAtMs).toBeGreaterThanOrEqual(60_000 - 10_000);
    expect(abort.atMs - crash.startedAtMs).toBeLessThan(60_000 + 20_000);
    expect(results.at(-1)!.summary).toBe('read_committed sees all 4 committed records once each and none of the 2 aborted ones; read_uncommitted reads 6 records (aborted ones included, markers never).');
    expect(await readAll(topic, true, 6)).toEqual(['paid-0-1', 'paid-0-2', 'paid-0-3', 'pending-0-1', 'pending-0-2', `${topic}-plain-1`]);
    await h.client.call('clock.setScale', { scale: 60 });
  }, 180_000);

  it('A zombie producer is fenced: its commit is refused, its records stay aborted, and only its successor’s are committed', async () => {
    const { results, topic } = await run(TXN_ZOMBIE_FENCED);
    const refused = results.find((r) => r.expectedError)!;
    expect(refused.expectedError).toBe('INVALID_PRODUCER_EPOCH');
    expect(refused.summary).toMatch(/^Refused: INVALID_PRODUCER_EPOCH/);
    expect(results.find((r) => r.summary.includes('when producer 2 started'))!.summary).toMatch(/aborted producer 1’s transaction with epoch 1 when producer 2 started/);
    expect(results.at(-1)!.summary).toBe('read_committed sees all 2 committed records once each and none of the 2 aborted ones; read_uncommitted reads 4 records (aborted ones included, markers never).');
    expect(await readAll(topic, false, 2)).toEqual(['successor-0-1', 'successor-0-2']);
    expect(await readAll(topic, true, 4)).toEqual(['zombie-0-1', 'zombie-0-2', 'successor-0-1', 'successor-0-2']);
  }, 120_000);

  it('The coordinator dies between markers: partitions commit unevenly, then the new coordinator completes the commit with nothing lost or duplicated', async () => {
    const { results, topic } = await run(TXN_COORDINATOR_DIES);
    const half = results.find((r) => r.summary.startsWith('Half committed'))!;
    // Partition 0: the warm-up (a record and its marker) and the order (two and a marker); partition 1 held at 0 with its two; partition 2 committed.
    expect(half.summary).toContain('0: LSO 5, HW 5, read_committed gets 3; 1: LSO 0, HW 2, read_committed gets 0; 2: LSO 3, HW 3, read_committed gets 2.');
    const kill = results.find((r) => r.summary.startsWith('Killed broker'))!;
    const killed = Number(/^Killed broker (\d+)/.exec(kill.summary)![1]);
    const finished = results.find((r) => r.summary.includes('wrote its markers again'))!;
    const successor = Number(/^Broker (\d+) loaded __transaction_state-/.exec(finished.summary)![1]);
    expect(successor).not.toBe(killed);
    expect(results.find((r) => r.summary.startsWith('read_committed sees'))!.summary).toBe(
      'read_committed sees all 7 committed records once each and none of the 0 aborted ones; read_uncommitted reads 7 records (aborted ones included, markers never).',
    );
    const recent = await h.client.call('events.recent', { types: ['transaction.stateChanged'] });
    const complete = recent.filter((e) => e.type === 'transaction.stateChanged' && e.transactionalId === `${topic}-tx` && e.state === 'CompleteCommit' && e.atMs >= kill.startedAtMs);
    // The old coordinator never completed it; the new one did, once.
    expect(complete.map((e) => e.type === 'transaction.stateChanged' && e.coordinatorId)).toEqual([successor]);
    // A real read_committed consumer of every partition: each record exactly once.
    const read = await readAll(topic, false, 7);
    expect(read.sort()).toEqual(['order-0-1', 'order-0-2', 'order-1-1', 'order-1-2', 'order-2-1', 'order-2-2', 'warmup-0-1']);
    // The cut-off broker held no replica of the coordinator's __transaction_state partition (a fourth broker was added where needed).
    expect(results.find((r) => r.summary.includes('follows none of it'))).toBeDefined();
  }, 180_000);
});
