/**
 * A simulated cluster spoken to in Kafka's bytes: every broker gets the dispatcher its listener
 * would have, over the simulation's engine; requests go in as frames built with our codecs and
 * answers come back decoded. The virtual clock runs while a request waits (in steps, so a long
 * poll can be woken by a produce made meanwhile).
 */
import { createHash, createHmac } from 'node:crypto';
import type { LogRecord } from '../../core/log/records.js';
import type { ClientSession } from '../api-handler.js';
import { Simulation, type SimOptions } from '../../sim/simulation.js';
import type { Dispatcher, DispatchOutcome } from '../dispatcher.js';
import { type ApiKeyNumber, type ApiMessages, type RequestHeader } from '../generated/index.js';
import type { BrokerGateway } from '../handlers/broker-gateway.js';
import { createBrokerDispatcher } from '../handlers/index.js';
import { createCompressionCodecs } from '../records/compression.js';
import { createProducedBatchValidator } from '../records/produced-batch-validator.js';
import { type EncodeOptions, encodeRecordBatch } from '../records/record-batch.js';
import type { Init } from '../runtime/index.js';
import { readResponse, requestFrame } from './frames.js';

export const codecs = createCompressionCodecs();
export const CLUSTER_ID = 'wire-sim-cluster';

const utf8 = new TextEncoder();

/** A record as a producer builds it. */
export function clientRecord(value: string, key: string | null = null, timestamp = 0, headers: { key: string; value: string }[] = []): LogRecord {
  return { key: key === null ? null : utf8.encode(key), value: utf8.encode(value), headers: headers.map((h) => ({ key: h.key, value: utf8.encode(h.value) })), timestamp };
}

/** A batch as a producer sends it: base offset 0, leader epoch -1 (kafkajs, librdkafka). */
export function clientBatch(records: LogRecord[], options: EncodeOptions = {}): Uint8Array {
  return encodeRecordBatch({ baseOffset: 0, lastOffset: records.length - 1, leaderEpoch: -1, appendTimeMs: 0, records, sizeBytes: 0 }, { codecs, ...options });
}

/** A quota's throttle as the dispatcher reports it (how long the connection is muted). */
export interface AnswerThrottle {
  ms: number;
  clientThrottles: boolean;
}

export type Answer<K extends ApiKeyNumber> =
  | { kind: 'respond'; body: ApiMessages[K]['response']; throttle?: AnswerThrottle }
  | { kind: 'none'; throttle?: AnswerThrottle }
  | { kind: 'close'; reason: string }
  | { kind: 'pending' };

export class WireSim {
  readonly sim: Simulation;
  private readonly dispatchers = new Map<number, Dispatcher>();
  readonly handlerErrors: unknown[] = [];
  /** Who sends a request that names no session (User:ANONYMOUS unless a test says otherwise). */
  defaultSession: ClientSession | undefined;

  constructor(options: SimOptions = {}) {
    this.sim = new Simulation({ producedBatches: createProducedBatchValidator(codecs), ...options });
    for (const b of this.sim.engine.members()) this.sim.engine.setListenerAddress(b.id, { host: '127.0.0.1', port: 19_090 + b.id });
  }

  gateway(brokerId: number): BrokerGateway {
    return {
      brokerId,
      engine: this.sim.engine,
      clusterId: CLUSTER_ID,
      call: <T>(start: (done: (value: T) => void) => void) => new Promise<T>((resolve) => start(resolve)),
      scramKeys: (mechanism, salt, salted) => {
        const hash = mechanism === 'SCRAM-SHA-256' ? 'sha256' : 'sha512';
        const clientKey = createHmac(hash, salted).update('Client Key').digest();
        return { salt: Buffer.from(salt).toString('base64'), storedKey: createHash(hash).update(clientKey).digest('base64'), serverKey: createHmac(hash, salted).update('Server Key').digest('base64') };
      },
    };
  }

  dispatcher(brokerId: number): Dispatcher {
    let d = this.dispatchers.get(brokerId);
    if (!d) {
      d = createBrokerDispatcher(this.gateway(brokerId), { onHandlerError: (_key, e) => this.handlerErrors.push(e) });
      this.dispatchers.set(brokerId, d);
    }
    return d;
  }

  /** Send a request and run the clock (up to `maxMs` of virtual time) until it is answered. */
  async request<K extends ApiKeyNumber>(
    brokerId: number,
    apiKey: K,
    version: number,
    body: Init<ApiMessages[K]['request']>,
    options: { maxMs?: number; header?: Partial<RequestHeader>; meanwhile?: () => void; session?: ClientSession } = {},
  ): Promise<Answer<K>> {
    const frame = requestFrame(apiKey, version, body, options.header);
    const outcome = await this.drive(this.dispatcher(brokerId).dispatch(frame.subarray(4), options.session ?? this.defaultSession), options.maxMs ?? 60_000, options.meanwhile);
    if (outcome === 'pending') return { kind: 'pending' };
    if (outcome.kind !== 'respond') return outcome.kind === 'none' ? { kind: 'none', ...(outcome.throttle ? { throttle: outcome.throttle } : {}) } : outcome;
    return { kind: 'respond', body: readResponse(apiKey, version, outcome.parts).body, ...(outcome.throttle ? { throttle: outcome.throttle } : {}) };
  }

  /** The decoded response, or a failure naming what came instead. */
  async respond<K extends ApiKeyNumber>(brokerId: number, apiKey: K, version: number, body: Init<ApiMessages[K]['request']>, maxMs?: number): Promise<ApiMessages[K]['response']> {
    const a = await this.request(brokerId, apiKey, version, body, maxMs === undefined ? {} : { maxMs });
    if (a.kind !== 'respond') throw new Error(`expected a response, got ${JSON.stringify(a)}`);
    return a.body;
  }

  /** Runs the clock in 10 ms steps until `p` settles; 'pending' after `maxMs`. */
  async drive<T>(p: Promise<T>, maxMs: number, meanwhile?: () => void): Promise<T | 'pending'> {
    let settled: { value: T } | null = null;
    let failed: { error: unknown } | null = null;
    p.then(
      (value) => (settled = { value }),
      (error: unknown) => (failed = { error }),
    );
    await flush();
    meanwhile?.();
    for (let t = 0; settled === null && failed === null && t < maxMs; t += 10) {
      this.sim.advance(10);
      await flush();
    }
    if (failed) throw (failed as { error: unknown }).error;
    return settled ? (settled as { value: T }).value : 'pending';
  }
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export type { DispatchOutcome };
