/**
 * The engine service of an engine process (`engine-process.ts`), seen from the parent: the same
 * `EngineService` (app/api/service.ts) the HTTP host takes from an in-process engine, over the
 * message channel of that process. Calls are relayed unchecked; the service in the child checks them. The engine then runs on its own event loop and CPU, so the parent
 * (the HTTP host, the UI) answers promptly however hard the cluster works.
 *
 * `startRemoteService` (forked-engine.ts) forks a Node child (the headless host); `connectRemoteService` drives any
 * `EngineProcessHandle` (engine-channel.ts), e.g. the Electron utility process main/electron forks.
 * Either resolves once the child has opened the storage (so a locked data
 * directory rejects it with the child's message); `ready()` resolves once the brokers run.
 * `call` never throws and never rejects: once the child is gone, pending and later calls answer
 * an INTERNAL envelope. `close()` asks for an orderly close (controlled shutdown, storage closed)
 * and resolves when the child has exited; after `killAfterMs` it is killed.
 */
import type { Result } from '../../app/api/contract.js';
import type { EngineEventListener, EngineService, ErrorLogger } from '../../app/api/service.js';
import type { ChildMessage, EngineProcessHandle } from './engine-channel.js';
import type { EngineProcessOptions } from './engine-process.js';

/** How the parent treats its engine process (whichever kind it is). */
export interface RemoteConnectOptions {
  /** The data directory the child opens (for messages). */
  dataDir: string;
  /** Where child-lifetime problems are logged (default console.error). */
  logger?: ErrorLogger;
  /** Most ms `close()` waits for the orderly exit before killing the child (default 60 000). */
  killAfterMs?: number;
  /** Most ms to wait for the child to open its storage (default 60 000). */
  openTimeoutMs?: number;
}

export type RemoteServiceOptions = EngineProcessOptions &
  Omit<RemoteConnectOptions, 'dataDir'> & {
    /** Extra Node flags for the child (a benchmark's `--cpu-prof`). */
    nodeArgs?: string[];
  };

export interface RemoteService extends EngineService {
  /** The child's pid (-1 if it has none). */
  readonly pid: number;
  /** True when the child created the cluster (its data directory held none). */
  readonly created: boolean;
  /** Resolves true once every broker runs, false if `ready()` timed out or the child is gone. */
  ready(): Promise<boolean>;
  /** Orderly close; resolves with the child's exit code once it exited. Idempotent. */
  close(): Promise<number | null>;
}

import { ENGINE_NODE_ARGS } from './node-args.js';

export { ENGINE_NODE_ARGS };

const defaultLogger: ErrorLogger = { error: (message, error) => console.error(message, error) };

/** Drive an engine process that was just started (before it could have sent anything). */
export async function connectRemoteService(child: EngineProcessHandle, options: RemoteConnectOptions): Promise<RemoteService> {
  const { logger = defaultLogger, killAfterMs = 60_000, openTimeoutMs = 60_000, dataDir } = options;

  const pending = new Map<number, { method: string; resolve: (result: Result<unknown>) => void }>();
  const listeners = new Set<EngineEventListener>();
  let nextId = 1;
  let gone: string | undefined; // why calls can no longer be answered
  let readyResult: boolean | undefined;
  const readyWaiters: ((ready: boolean) => void)[] = [];
  const exited = new Promise<number | null>((done) => child.onExit((code) => done(code)));

  const settleReady = (value: boolean): void => {
    readyResult ??= value;
    for (const w of readyWaiters.splice(0)) w(readyResult);
  };

  const internal = (method: string): Result<unknown> => ({
    ok: false,
    error: { code: 'INTERNAL', message: `Internal error in ${method}: the engine process is not running (${gone ?? 'gone'}).`, retriable: false },
  });

  let created = false;
  const opened = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`the engine process did not open ${dataDir} within ${openTimeoutMs} ms`));
      child.kill();
    }, openTimeoutMs);
    child.onMessage((message: ChildMessage) => {
      if ('events' in message) {
        for (const event of message.events) {
          for (const listener of listeners) {
            try {
              listener(event);
            } catch (error) {
              logger.error(`An event listener failed on ${event.type}`, error);
            }
          }
        }
      } else if ('id' in message) {
        const waiting = pending.get(message.id);
        pending.delete(message.id);
        waiting?.resolve(message.result);
      } else if ('opened' in message) {
        clearTimeout(timer);
        created = message.created;
        resolve();
      } else if ('ready' in message) {
        settleReady(message.brokersReady);
      } else if ('fatal' in message) {
        clearTimeout(timer);
        gone = message.fatal;
        reject(new Error(message.fatal));
      }
    });
    child.onError((e) => {
      clearTimeout(timer);
      gone ??= e.message;
      reject(e);
    });
    child.onExit((_code, reason) => {
      clearTimeout(timer);
      gone ??= reason;
      reject(new Error(`the engine process ${gone} before opening ${dataDir}`));
      if (!closing) logger.error('The engine process exited', new Error(gone));
      for (const [id, waiting] of pending) {
        pending.delete(id);
        waiting.resolve(internal(waiting.method));
      }
      settleReady(false);
    });
  });

  let closing: Promise<number | null> | undefined;
  const close = (): Promise<number | null> => {
    closing ??= (async () => {
      if (child.connected) child.send({ close: true });
      const timer = setTimeout(() => child.kill(), killAfterMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    })();
    return closing;
  };

  try {
    await opened;
  } catch (e) {
    await close();
    throw e;
  }

  const call = (method: string, input: unknown): Promise<Result<unknown>> => {
    if (gone !== undefined || closing || !child.connected) return Promise.resolve(internal(method));
    const id = nextId++;
    return new Promise<Result<unknown>>((resolve) => {
      pending.set(id, { method, resolve });
      child.send({ id, method, input }, () => {
        if (pending.delete(id)) resolve(internal(method));
      });
    });
  };

  return {
    get pid() {
      return child.pid ?? -1;
    },
    created,
    call: call as EngineService['call'],
    subscribe(listener: EngineEventListener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    ready() {
      if (readyResult !== undefined) return Promise.resolve(readyResult);
      return new Promise<boolean>((resolve) => readyWaiters.push(resolve));
    },
    close,
  };
}
