/**
 * The headless host's command line:
 *
 *   npm run serve -- [--data DIR] [--port N] [--static DIR] [--in-process]
 *
 * The engine runs in a child process of its own (`engine-process.ts`, reached through
 * `remote-service.ts`), so the HTTP server answers promptly while the cluster works at full speed;
 * `--in-process` runs it on the server's own event loop instead (the former behaviour).
 *
 * Opens (or creates) the cluster in DIR (default `.data/default`), serves the contract on
 * 127.0.0.1:N (0 = a free port, the default 0) and prints the start URL
 * `http://127.0.0.1:PORT/?token=…` as its first line of stdout. SIGINT/SIGTERM close it in order
 * (controlled shutdown of every broker, storage closed) and exit 0. Failing to start (the data
 * directory is locked by another instance, a bad argument, the port is taken) prints one line to
 * stderr and exits 1 (2 for usage errors).
 */
import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startHttpHost, type HttpHost, type HttpHostOptions } from './http-host.js';
import { openCluster } from './open-cluster.js';
import { startRemoteService } from './remote-service.js';
import { loadOrCreateToken } from './token.js';

/** The console built by `npm run build:renderer`, served at `/` unless --static names another folder. */
export const BUILT_RENDERER = fileURLToPath(new URL('../../dist/renderer', import.meta.url));

const USAGE = 'usage: npm run serve -- [--data DIR] [--port N] [--static DIR] [--in-process]';

export interface ServeArgs {
  dataDir: string;
  port: number;
  staticDir?: string;
  /** Run the engine on this process's event loop rather than in a child process. */
  inProcess?: boolean;
}

/** The running cluster, wherever its engine lives. */
export interface ServedCluster {
  readonly service: HttpHostOptions['service'];
  /** Orderly close (controlled shutdown of every broker, storage closed). */
  close(): Promise<void>;
}

/** Parse the arguments; throws a one-line message on a bad one. */
export function parseServeArgs(argv: string[]): ServeArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      data: { type: 'string', default: '.data/default' },
      port: { type: 'string', default: '0' },
      static: { type: 'string' },
      'in-process': { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || !Number.isInteger(port) || port > 65_535) throw new Error(`--port must be an integer 0–65535, got ${JSON.stringify(values.port)}`);
  return {
    dataDir: resolve(values.data),
    port,
    ...(values.static !== undefined ? { staticDir: resolve(values.static) } : existsSync(BUILT_RENDERER) ? { staticDir: BUILT_RENDERER } : {}),
    ...(values['in-process'] ? { inProcess: true } : {}),
  };
}

/** Start cluster and host; resolves with both once the host listens. */
export async function serve(args: ServeArgs): Promise<{ cluster: ServedCluster; host: HttpHost }> {
  const cluster = await openServedCluster(args);
  try {
    const token = loadOrCreateToken(args.dataDir);
    const host = await startHttpHost({ service: cluster.service, port: args.port, host: '127.0.0.1', token, ...(args.staticDir ? { staticDir: args.staticDir } : {}) });
    return { cluster, host };
  } catch (e) {
    await cluster.close();
    throw e;
  }
}

async function openServedCluster(args: ServeArgs): Promise<ServedCluster> {
  if (args.inProcess) {
    const cluster = openCluster({ dataDir: args.dataDir });
    return { service: cluster.service, close: () => Promise.resolve(cluster.close()) };
  }
  const remote = await startRemoteService({ dataDir: args.dataDir });
  return {
    service: remote,
    async close() {
      const code = await remote.close();
      if (code !== 0) throw new Error(`the engine process exited with ${code}`);
    },
  };
}

function oneLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').trim();
}

async function main(): Promise<void> {
  let args: ServeArgs;
  try {
    args = parseServeArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`replica-studio serve: ${oneLine(e)}\n${USAGE}\n`);
    process.exit(2);
  }
  let running: { cluster: ServedCluster; host: HttpHost };
  try {
    running = await serve(args);
  } catch (e) {
    process.stderr.write(`replica-studio serve: cannot start on ${args.dataDir}: ${oneLine(e)}\n`);
    process.exit(1);
  }
  process.stdout.write(`${running.host.url}\n`);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`replica-studio serve: ${signal}, shutting down\n`);
    running.host
      .close()
      .then(() => running.cluster.close())
      .then(() => process.exit(0))
      .catch((e: unknown) => {
        process.stderr.write(`replica-studio serve: shutdown failed: ${oneLine(e)}\n`);
        process.exit(1);
      });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

function isMain(): boolean {
  const arg = process.argv[1];
  if (!arg) return false;
  try {
    return realpathSync(arg) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) void main();
