/**
 * The engine in a forked Node child (the headless host, the benchmark, the tests): fork the
 * engine's bundle — built first when a source changed (`bundle-entry.ts`) — or its TypeScript
 * sources through tsx, and drive it with `connectRemoteService`. A module of its own so that the
 * Electron main bundle, which forks a utility process instead, never carries the bundle check.
 */
import { fork } from 'node:child_process';
import { engineEntry } from './bundle-entry.js';
import { childProcessHandle } from './engine-channel.js';
import { ENGINE_NODE_ARGS } from './node-args.js';
import { connectRemoteService, type RemoteService, type RemoteServiceOptions } from './remote-service.js';

/** Fork the engine as a Node child process and connect to it. */
export async function startRemoteService(options: RemoteServiceOptions): Promise<RemoteService> {
  const { logger, killAfterMs, openTimeoutMs, nodeArgs = [], ...engineOptions } = options;
  const entry = await engineEntry();
  const child = fork(entry.file, [JSON.stringify(engineOptions)], {
    execArgv: [...entry.execArgv, ...ENGINE_NODE_ARGS, ...nodeArgs],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'json',
  });
  return connectRemoteService(childProcessHandle(child), { dataDir: engineOptions.dataDir, logger, killAfterMs, openTimeoutMs });
}
