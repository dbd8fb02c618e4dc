/**
 * A producer that is a client of its own: its own connections, client.id and credentials, so the
 * cluster's authorizer and quotas treat it as they treat any application (the drills' "a client
 * without permission" and "a producer over its quota"). It sends the same records `repeat` times,
 * one Produce request each, on one connection, so a throttled answer delays the next request as
 * kafkajs honours throttle_time_ms (KIP-219), and stops at the first refusal.
 */
import createProducer from 'kafkajs/src/producer/index.js';
import type { KafkaErrorName } from '../api/errors.js';
import { createKafkajsCluster, quietLogger, type KafkaConnectionConfig } from './config.js';
import { errorName, rootCause, toKafkaError } from './errors.js';

export interface ClientProduceInput {
  topic: string;
  partition: number;
  acks: 0 | 1 | -1;
  records: { key: string | null; value: string | null }[];
  repeat: number;
  /** Stop sending (between requests) once this much real time has passed. */
  maxRealMs: number;
}

export interface ClientProduceOutcome {
  /** NONE, or the refusal that stopped the client (Kafka's error name). */
  errorCode: KafkaErrorName;
  errorMessage: string | null;
  /** Requests answered without an error, the bytes of their keys and values, the real time they took. */
  requestsAcknowledged: number;
  bytes: number;
  realMs: number;
  /** The first acknowledged request's base offset (-1: none). */
  firstOffset: number;
}

const bytesOf = (records: ClientProduceInput['records']) => records.reduce((n, r) => n + Buffer.byteLength(r.key ?? '') + Buffer.byteLength(r.value ?? ''), 0);

export async function produceAsClient(config: KafkaConnectionConfig, input: ClientProduceInput): Promise<ClientProduceOutcome> {
  const logger = quietLogger();
  // No retries: the outcome is the broker's own answer to this client.
  const { cluster, destroySockets } = createKafkajsCluster({ ...config, retries: 0 }, logger);
  const producer = createProducer({ cluster, logger, retry: { retries: 0 } });
  const started = Date.now();
  const perRequest = bytesOf(input.records);
  let acknowledged = 0;
  let firstOffset = -1;
  const done = (errorCode: KafkaErrorName, errorMessage: string | null): ClientProduceOutcome => ({
    errorCode,
    errorMessage,
    requestsAcknowledged: acknowledged,
    bytes: acknowledged * perRequest,
    realMs: Date.now() - started,
    firstOffset,
  });
  try {
    await producer.connect();
    for (let i = 0; i < input.repeat && Date.now() - started < input.maxRealMs; i++) {
      const sent = await producer.send({ topic: input.topic, acks: input.acks, messages: input.records.map((r) => ({ partition: input.partition, key: r.key, value: r.value })) });
      const meta = sent.find((m) => m.partition === input.partition);
      const code = errorName(meta?.errorCode ?? 0);
      if (code !== 'NONE') return done(code, null);
      if (acknowledged === 0) firstOffset = Number(meta?.baseOffset ?? -1);
      acknowledged++;
    }
    return done('NONE', null);
  } catch (e) {
    const cause = rootCause(e) as { code?: number; message?: string };
    if (typeof cause?.code === 'number') return done(errorName(cause.code), cause.message ?? null);
    throw toKafkaError(e, `Producing to ${input.topic}-${input.partition} as client ${config.clientId ?? 'replica-studio'}`);
  } finally {
    await producer.disconnect().catch(() => {});
    destroySockets();
  }
}
