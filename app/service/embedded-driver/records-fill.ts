/**
 * `records.fill` on the embedded cluster (records-fill-contract.ts): synthetic records for many
 * partitions. A partition that is empty and fully in sync (a twin being made) is written on every
 * replica at once by the engine (`fillSynthetic`, app/core/cluster/synthetic-fill.ts): the same
 * batches, offsets, epochs, sizes and high watermarks as produce and replication would give, in
 * one transaction per broker file, without a request per partition. Every other partition (it
 * holds records, a replica is out of sync or its broker down, it is being reassigned) goes through
 * the brokers' Produce path as a producer with many partitions sends them: each round takes the
 * next batch of every partition that still has records to write, groups the batches by the
 * partition's leader as the controller's metadata names it, and sends each leader Produce requests
 * (acks=all) of at most REQUEST_BYTES; the next round starts once every leader answered. A leader
 * appends all of a request's batches in one step (one transaction on its file) and its followers
 * fetch them as they fetch any batch, so offsets, high watermarks, sizes and epochs are what
 * `records.produce` calls with the same batches give.
 *
 * A partition that does not exist is UNKNOWN_TOPIC_OR_PARTITION, one without a leader
 * LEADER_NOT_AVAILABLE; a leader that does not answer is REQUEST_TIMED_OUT (cut off) or
 * NETWORK_EXCEPTION (its process is gone). A partition stops at its first error.
 */
import type { MethodParsedInput } from '../../api/contract.js';
import type { KafkaErrorName } from '../../api/errors.js';
import { RECORDS_FILL_BATCH_BYTES, RECORDS_FILL_BATCH_RECORDS, type FillResultView } from '../../api/records-fill-contract.js';
import type { ClientProduceRequest, Engine, ProduceAnswer } from '../../core/engine.js';
import type { LogRecord } from '../../core/log/records.js';
import type { Answer } from './embedded-methods.js';

/** Value bytes in one Produce request: bounds what a round holds in memory at once. */
const REQUEST_BYTES = 8_000_000;
/** How long partitions whose brokers have not applied the latest metadata wait to be written directly: heartbeat intervals. */
const LATER_HEARTBEATS = 3;
/** Engine ms between two looks at those partitions. */
const LATER_RETRY_MS = 100;
/** The producer's request.timeout.ms / delivery.timeout.ms default for an acks=all write (30 s). */
const DEFAULT_TIMEOUT_MS = 30_000;

/** Records per batch for values of `valueBytes`: as many as the batch limits allow, at least one. */
export function fillBatchRecords(valueBytes: number): number {
  return Math.max(1, Math.min(RECORDS_FILL_BATCH_RECORDS, Math.floor(RECORDS_FILL_BATCH_BYTES / Math.max(1, valueBytes))));
}

interface Pending {
  result: FillResultView;
  left: number;
  valueBytes: number;
}

export function recordsFillMethod(engine: Engine, answerLater: Answer) {
  const values = new Map<number, Uint8Array>();
  const valueOf = (bytes: number): Uint8Array => {
    let v = values.get(bytes);
    if (!v) values.set(bytes, (v = new Uint8Array(bytes).fill(0x78)));
    return v;
  };

  async function send(leader: number, batches: { p: Pending; n: number }[], timeoutMs: number): Promise<void> {
    const now = engine.scheduler.now();
    const request: ClientProduceRequest = {
      type: 'produce',
      acks: -1,
      timeoutMs,
      partitions: batches.map(({ p, n }) => {
        const value = valueOf(p.valueBytes);
        const records: LogRecord[] = Array.from({ length: n }, () => ({ key: null, value, headers: [], timestamp: now }));
        return { topic: p.result.topic, partition: p.result.partition, records };
      }),
    };
    const a = await answerLater<ProduceAnswer>((done) => engine.produceRequest(leader, request, done));
    const fail = (p: Pending, errorCode: KafkaErrorName, message?: string): void => {
      p.result.errorCode = errorCode;
      if (message) p.result.message = message;
    };
    if (a.kind !== 'response') {
      const code: KafkaErrorName = a.kind === 'unreachable' && a.reason === 'timeout' ? 'REQUEST_TIMED_OUT' : 'NETWORK_EXCEPTION';
      for (const { p } of batches) fail(p, code, `Broker ${leader} did not answer the produce request.`);
      return;
    }
    const byPartition = new Map(a.response.partitions.map((r) => [`${r.topic}\u0000${r.partition}`, r]));
    for (const { p, n } of batches) {
      const r = byPartition.get(`${p.result.topic}\u0000${p.result.partition}`);
      if (!r || r.error !== 'NONE') {
        fail(p, r?.error ?? 'UNKNOWN_SERVER_ERROR', r?.message);
        continue;
      }
      p.left -= n;
      p.result.records += n;
      p.result.nextOffset = r.baseOffset + n;
    }
  }

  /**
   * The partitions the engine writes on every replica at once (fillSynthetic: empty and fully in
   * sync); null for the others. Brokers apply the controller's metadata with their heartbeats, so
   * partitions made or moved just before the call wait for that (at most LATER_HEARTBEATS
   * heartbeat intervals, and the call's timeout) before the Produce path takes them.
   */
  async function writeDirectly(partitions: MethodParsedInput<'records.fill'>['partitions'], timeoutMs: number): Promise<(FillResultView | null)[]> {
    const fills = partitions.map((p) => ({ ...p, batchRecords: fillBatchRecords(p.valueBytes) }));
    const results: (FillResultView | null)[] = partitions.map(() => null);
    const until = engine.scheduler.now() + Math.min(timeoutMs, LATER_HEARTBEATS * engine.clusterConfig().brokerHeartbeatIntervalMs);
    for (let todo = fills.map((_, i) => i); ; ) {
      const answers = engine.fillSynthetic(todo.map((i) => fills[i]!));
      const again: number[] = [];
      answers.forEach((d, j) => {
        const i = todo[j]!;
        if (d.direct) results[i] = { topic: fills[i]!.topic, partition: fills[i]!.partition, errorCode: d.errorCode, ...(d.message ? { message: d.message } : {}), records: d.records, nextOffset: d.nextOffset };
        else if (d.later) again.push(i);
      });
      if (again.length === 0 || engine.scheduler.now() >= until) return results;
      todo = again;
      await answerLater<void>((done) => engine.scheduler.schedule(LATER_RETRY_MS, () => done()));
    }
  }

  return {
    'records.fill': async ({ partitions, timeoutMs = DEFAULT_TIMEOUT_MS }: MethodParsedInput<'records.fill'>): Promise<FillResultView[]> => {
      const direct = await writeDirectly(partitions, timeoutMs);
      const results: FillResultView[] = [];
      const pending: Pending[] = [];
      partitions.forEach((p, i) => {
        let result = direct[i];
        if (!result) {
          result = { topic: p.topic, partition: p.partition, errorCode: 'NONE', records: 0, nextOffset: -1 };
          pending.push({ result, left: p.records, valueBytes: p.valueBytes });
        }
        results.push(result);
      });
      for (;;) {
        const byLeader = new Map<number, { p: Pending; n: number }[]>();
        for (const p of pending) {
          if (p.left === 0 || p.result.errorCode !== 'NONE') continue;
          const state = engine.metadata.topicsByName.get(p.result.topic)?.partitions.get(p.result.partition);
          if (!state) p.result.errorCode = 'UNKNOWN_TOPIC_OR_PARTITION';
          else if (state.leader < 0) p.result.errorCode = 'LEADER_NOT_AVAILABLE';
          else {
            const list = byLeader.get(state.leader) ?? [];
            list.push({ p, n: Math.min(p.left, fillBatchRecords(p.valueBytes)) });
            byLeader.set(state.leader, list);
          }
        }
        if (byLeader.size === 0) break;
        await Promise.all(
          [...byLeader].map(async ([leader, batches]) => {
            // Requests of at most REQUEST_BYTES of values, one after another per leader.
            for (let i = 0; i < batches.length; ) {
              let bytes = 0;
              let j = i;
              while (j < batches.length && (j === i || bytes + batches[j]!.n * batches[j]!.p.valueBytes <= REQUEST_BYTES)) bytes += batches[j]!.n * batches[j++]!.p.valueBytes;
              await send(leader, batches.slice(i, j), timeoutMs);
              i = j;
            }
          }),
        );
      }
      return results;
    },
  };
}
