/**
 * The message channel between the engine process (`engine-process.ts`) and its parent, kept
 * apart from the process that carries it. Two parents run the same engine:
 *
 *   - the headless host forks a Node child: the parent has a `ChildProcess` (send / 'message' /
 *     'exit'), the child has `process.send` / `process.on('message')` / 'disconnect';
 *   - the Electron main process forks a utility process (`utilityProcess.fork`): the parent has a
 *     `UtilityProcess` (postMessage / 'message' / 'exit'), the child has `process.parentPort`,
 *     whose 'message' events carry the message in `{ data }` (a MessagePortMain event).
 *
 * The engine sees a `ParentChannel`, the parent an `EngineProcessHandle`; `remote-service.ts`
 * drives either. The Node adapters live here; the UtilityProcess adapter lives in main/electron
 * (main/engine never imports electron), and the parentPort adapter here takes a structural port, so
 * neither this file nor the engine needs Electron's types.
 *
 * Messages are plain data (JSON over the Node channel, structured clone over the port).
 */
import type { ChildProcess } from 'node:child_process';
import type { EngineEvent, Result } from '../../app/api/contract.js';

/** parent → engine: a contract call, or an orderly close. */
export type ParentMessage = { id: number; method: string; input?: unknown } | { close: true };

/** engine → parent: see the protocol table in `engine-process.ts`. */
export type ChildMessage =
  | { opened: true; created: boolean }
  | { ready: true; brokersReady: boolean }
  | { id: number; result: Result<unknown> }
  | { events: EngineEvent[] }
  | { fatal: string };

// ---- the engine's side ------------------------------------------------------------------------

/** The engine's line to its parent. */
export interface ParentChannel {
  /** Whether messages can still reach the parent. */
  readonly connected: boolean;
  /**
   * Whether this process's event loop writes the messages out, so that `sent` runs once one has
   * been written (Node's IPC pipe: what the socket does not take at once is written on later turns
   * of the loop). Electron's port hands each message to its own IPC thread at once, and `sent` is
   * only a grace period.
   */
  readonly writtenByEventLoop: boolean;
  /** Send one message; `sent` runs once it has left (or could not leave): exit only after it. */
  send(message: ChildMessage, sent?: () => void): void;
  onMessage(listener: (message: ParentMessage) => void): void;
  /** The parent went away. */
  onDisconnect(listener: () => void): void;
  /** Stop talking to the parent and end the process (with `process.exitCode`) once the channel has closed. */
  close(): void;
}

/** The part of a Node child's `process` the channel uses. */
export interface NodeChildProcessLike {
  readonly connected?: boolean;
  send?: (message: unknown, callback?: (error: Error | null) => void) => boolean;
  on(event: 'message', listener: (message: ParentMessage) => void): unknown;
  on(event: 'disconnect', listener: () => void): unknown;
  disconnect?: () => void;
}

/**
 * The channel of a child forked by `child_process.fork` (IPC channel, `process.send`). `close()`
 * exits explicitly once the channel has closed: a Node 20 process left to end on its own, with an
 * empty event loop, can spin forever in its handle cleanup — an orphaned engine ran at 100% of a
 * core for an hour after its host had gone (gdb: FreeEnvironment → CleanupHandles → uv_run);
 * `process.exit` does not run that cleanup.
 */
export function nodeParentChannel(proc: NodeChildProcessLike, exit: () => void = () => process.exit()): ParentChannel {
  return {
    get connected() {
      return proc.connected === true;
    },
    writtenByEventLoop: true,
    send(message, sent) {
      if (proc.connected !== true || !proc.send) return void sent?.();
      try {
        proc.send(message, () => sent?.());
      } catch {
        sent?.();
      }
    },
    onMessage(listener) {
      proc.on('message', listener);
    },
    onDisconnect(listener) {
      proc.on('disconnect', listener);
    },
    close() {
      if (proc.connected === true && proc.disconnect) {
        proc.on('disconnect', () => setImmediate(exit));
        proc.disconnect();
      } else setImmediate(exit);
    },
  };
}

/** Electron's `process.parentPort` in a utility process, as far as the channel uses it. */
export interface ParentPortLike {
  on(event: 'message', listener: (messageEvent: { data: unknown }) => void): unknown;
  off(event: 'message', listener: (messageEvent: { data: unknown }) => void): unknown;
  postMessage(message: unknown): void;
}

/**
 * Ms between handing a message to the port and calling its `sent` (and between `close()` and the
 * exit). `postMessage` has no delivery callback: it hands the message to Mojo at once, and this
 * lets the IPC thread write it out before the process ends.
 */
export const PARENT_PORT_GRACE_MS = 100;

/**
 * The channel of an Electron utility process. Its port has no 'disconnect': Electron ends a
 * utility process together with its parent. Nor does a utility process end when its event loop
 * is empty (electron/electron#47228), so `close()` exits it explicitly.
 */
export function parentPortChannel(
  port: ParentPortLike,
  exit: () => void = () => process.exit(),
  graceMs: number = PARENT_PORT_GRACE_MS,
): ParentChannel {
  let open = true;
  const listeners: ((messageEvent: { data: unknown }) => void)[] = [];
  return {
    get connected() {
      return open;
    },
    writtenByEventLoop: false,
    send(message, sent) {
      if (open) {
        try {
          port.postMessage(message);
        } catch {
          return void sent?.();
        }
      }
      if (sent) setTimeout(sent, open ? graceMs : 0);
    },
    onMessage(listener) {
      const unwrap = (messageEvent: { data: unknown }): void => listener(messageEvent.data as ParentMessage);
      listeners.push(unwrap);
      port.on('message', unwrap);
    },
    onDisconnect() {},
    close() {
      if (!open) return;
      open = false;
      for (const unwrap of listeners.splice(0)) port.off('message', unwrap);
      setTimeout(exit, graceMs);
    },
  };
}

/**
 * The channel of this process: the utility-process port when there is one, else the Node IPC
 * channel, else undefined (started by hand, without a parent).
 */
export function currentParentChannel(proc: NodeJS.Process = process): ParentChannel | undefined {
  // `parentPort` is Electron's addition to `process`, typed only where electron's types load.
  const port = (proc as unknown as { parentPort?: ParentPortLike }).parentPort;
  if (port) return parentPortChannel(port, () => proc.exit());
  if (typeof proc.send === 'function') return nodeParentChannel(proc as NodeChildProcessLike, () => proc.exit());
  return undefined;
}

// ---- the parent's side ------------------------------------------------------------------------

/** The engine process as its parent sees it: a forked Node child or an Electron utility process. */
export interface EngineProcessHandle {
  /** The OS pid, once the process has been spawned. */
  readonly pid: number | undefined;
  /** Whether it runs and takes messages. */
  readonly connected: boolean;
  /** Send one message; `failed` runs if it could not be handed over (the process is gone). */
  send(message: ParentMessage, failed?: () => void): void;
  onMessage(listener: (message: ChildMessage) => void): void;
  /** Once, when the process has ended: its exit code (null if a signal ended it) and why, in words. */
  onExit(listener: (code: number | null, reason: string) => void): void;
  /** It could not be started, or failed beyond repair ('exit' may or may not follow). */
  onError(listener: (error: Error) => void): void;
  /** End it at once (SIGKILL), without an orderly close. */
  kill(): void;
}

/** Adapt a `child_process.fork` child to the handle. */
export function childProcessHandle(child: ChildProcess): EngineProcessHandle {
  return {
    get pid() {
      return child.pid;
    },
    get connected() {
      return child.exitCode === null && child.signalCode === null && child.connected;
    },
    send(message, failed) {
      try {
        child.send(message, (error) => {
          if (error) failed?.();
        });
      } catch {
        failed?.();
      }
    },
    onMessage(listener) {
      child.on('message', (message) => listener(message as ChildMessage));
    },
    onExit(listener) {
      child.once('exit', (code, signal) => listener(code, `exited with ${signal ?? code}`));
    },
    onError(listener) {
      child.once('error', listener);
    },
    kill() {
      child.kill('SIGKILL');
    },
  };
}
