/**
 * What the request handlers of one broker's listener reach the cluster through: the engine's
 * public methods (its one door), addressed to that broker, and how to wait for their answers.
 * The host implements `call` by driving the engine's clock in real time; tests implement it on a
 * simulation's virtual clock.
 *
 * Unreachable brokers: an engine request that finds the broker's process gone answers
 * `disconnected` (the listener closes the client's connection, as a dead broker's socket resets);
 * one that finds it cut off answers `timeout`, and the connection stays silent (an isolated
 * broker accepts bytes and never answers; the client's own request timeout ends it).
 */
import type { BrokerAnswer, Engine } from '../../core/engine.js';

export type { ListenerAddress } from '../../core/engine.js';
import { CloseConnection } from '../api-handler.js';

export interface BrokerGateway {
  readonly brokerId: number;
  readonly engine: Engine;
  /** The cluster id Metadata reports (the one `cluster.describe` shows). */
  readonly clusterId: string;
  /** Start an engine call and resolve with its answer. */
  call<T>(start: (done: (value: T) => void) => void): Promise<T>;
  /**
   * RFC 5802's keys of a salted password, all in base64 (ScramFormatter: StoredKey =
   * H(HMAC(salted, "Client Key")), ServerKey = HMAC(salted, "Server Key")); the host supplies
   * the hashing (app/protocol has none). Without it, AlterUserScramCredentials cannot store a
   * credential.
   */
  readonly scramKeys?: ScramKeyDeriver;
}

export type ScramKeyDeriver = (
  mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512',
  salt: Uint8Array,
  saltedPassword: Uint8Array,
) => { salt: string; storedKey: string; serverKey: string };


/** A promise that never settles: the answer of a broker that is cut off. */
const SILENT: Promise<never> = new Promise<never>(() => {});

/**
 * The response of a broker answer, or: a closed connection when the broker's process is gone,
 * silence when it is cut off.
 */
export function answered<T>(answer: BrokerAnswer<T>): T | Promise<never> {
  if (answer.kind === 'response') return answer.response;
  if (answer.reason === 'disconnected') throw new CloseConnection('the broker is not running');
  return SILENT;
}
