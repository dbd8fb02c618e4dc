/**
 * The engine in an Electron utility process: `utilityProcess.fork` on the engine bundle
 * (dist/electron/engine.cjs, built from main/engine/engine-main.ts), adapted to the
 * `EngineProcessHandle` that main/engine/remote-service.ts drives, so the desktop app and the
 * headless host share one protocol and one client. The window's process never opens SQLite.
 *
 * Electron is passed in (type-only import here), so the adapter is unit-tested with a fake.
 */
import type { ForkOptions, UtilityProcess } from 'electron';
import type { ChildMessage, EngineProcessHandle, ParentMessage } from '../engine/engine-channel.js';
import type { EngineProcessOptions } from '../engine/engine-process.js';
import { connectRemoteService, ENGINE_NODE_ARGS, type RemoteConnectOptions, type RemoteService } from '../engine/remote-service.js';

/** The part of `UtilityProcess` the adapter uses. */
export type UtilityProcessLike = Pick<UtilityProcess, 'pid' | 'postMessage' | 'kill' | 'on' | 'once'>;

/** Kill a pid outright; `UtilityProcess.kill()` only sends SIGTERM, which the engine answers with an orderly close. */
export type HardKill = (pid: number) => void;

const sigkill: HardKill = (pid) => process.kill(pid, 'SIGKILL');

/** Adapt a forked utility process to the engine handle. */
export function utilityProcessHandle(proc: UtilityProcessLike, hardKill: HardKill = sigkill): EngineProcessHandle {
  // Posting to a utility process from its own 'exit' listener crashes the main process in some
  // Electron versions (electron/electron#53923), so nothing is posted once it has gone.
  let exited = false;
  proc.once('exit', () => {
    exited = true;
  });
  return {
    get pid() {
      return proc.pid;
    },
    get connected() {
      return !exited;
    },
    send(message: ParentMessage, failed?: () => void) {
      if (exited) return void failed?.();
      try {
        proc.postMessage(message);
      } catch {
        failed?.();
      }
    },
    onMessage(listener: (message: ChildMessage) => void) {
      // The parent side of a utility process gets the message itself (not a { data } event).
      proc.on('message', (message: unknown) => listener(message as ChildMessage));
    },
    onExit(listener) {
      proc.once('exit', (code: number) => listener(code, `exited with ${code}`));
    },
    onError(listener) {
      proc.once('error', (type: string, location: string) => listener(new Error(`${type} in the engine process at ${location}`)));
    },
    kill() {
      if (exited) return;
      const pid = proc.pid;
      try {
        if (pid !== undefined) return hardKill(pid);
      } catch {
        // fall through to Electron's own kill
      }
      proc.kill();
    },
  };
}

export interface UtilityEngineOptions extends EngineProcessOptions, Omit<RemoteConnectOptions, 'dataDir'> {
  /** Absolute path of the engine bundle (dist/electron/engine.cjs). */
  enginePath: string;
}

/** Fork the engine bundle as a utility process and connect the remote service to it. */
export function startUtilityEngine(
  utilityProcess: { fork(modulePath: string, args?: string[], options?: ForkOptions): UtilityProcessLike },
  options: UtilityEngineOptions,
): Promise<RemoteService> {
  const { enginePath, logger, killAfterMs, openTimeoutMs, ...engineOptions } = options;
  const proc = utilityProcess.fork(enginePath, [JSON.stringify(engineOptions)], {
    serviceName: 'Replica Studio engine',
    stdio: 'inherit',
    execArgv: [...ENGINE_NODE_ARGS],
  });
  return connectRemoteService(utilityProcessHandle(proc), { dataDir: engineOptions.dataDir, logger, killAfterMs, openTimeoutMs });
}
