/**
 * A stand-in for Electron's `utilityProcess` in tests: `fork` starts a Node child (through tsx,
 * with `fake-parent-port.ts` preloaded) and wraps it in the UtilityProcess surface the adapter uses:
 * `postMessage`, 'message' with the message itself, 'exit' with a numeric code, `kill()` = SIGTERM.
 * Messages are structured-cloned, as over Electron's port.
 */
import { fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { UtilityProcessLike } from '../utility-engine.js';

const SHIM = fileURLToPath(new URL('./fake-parent-port.ts', import.meta.url));

export interface FakeUtilityProcess {
  fork(modulePath: string, args?: string[], options?: unknown): UtilityProcessLike;
  /** Every fork's options, for assertions. */
  forks: { modulePath: string; args: string[]; options: unknown }[];
}

export function fakeUtilityProcess(env: NodeJS.ProcessEnv = process.env): FakeUtilityProcess {
  const forks: FakeUtilityProcess['forks'] = [];
  return {
    forks,
    fork(modulePath, args = [], options?: unknown) {
      forks.push({ modulePath, args, options });
      const child = fork(modulePath, args, {
        execArgv: ['--import', 'tsx', '--import', SHIM, ...((options as { execArgv?: string[] } | undefined)?.execArgv ?? [])],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        serialization: 'advanced',
        env,
      });
      const proc = new EventEmitter();
      child.on('message', (message) => proc.emit('message', message));
      child.on('exit', (code, signal) => proc.emit('exit', code ?? (signal ? 128 : 1)));
      return Object.assign(proc, {
        get pid() {
          return child.pid;
        },
        postMessage(message: unknown) {
          child.send(message as never);
        },
        kill() {
          return child.kill('SIGTERM');
        },
      }) as unknown as UtilityProcessLike;
    },
  };
}
