/**
 * The headless host's command line:
 *
 *   npm run serve -- [--data DIR] [--port N] [--static DIR]
 *
 * Opens (or creates) the cluster in DIR (default `.data/default`), serves the contract on
 * 127.0.0.1:N (0 = a free port, the default 0) and prints the start URL
 * `http://127.0.0.1:PORT/?token=…` as its first line of stdout. SIGINT/SIGTERM close it in order
 * (controlled shutdown of every broker, storage closed) and exit 0. Failing to start (the data
 * directory is locked by another instance, a bad argument, the port is taken) prints one line to
 * stderr and exits 1 (2 for usage errors).
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startHttpHost, type HttpHost } from './http-host.js';
import { openCluster, type OpenCluster } from './open-cluster.js';
import { loadOrCreateToken } from './token.js';

const USAGE = 'usage: npm run serve -- [--data DIR] [--port N] [--static DIR]';

export interface ServeArgs {
  dataDir: string;
  port: number;
  staticDir?: string;
}

/** Parse the arguments; throws a one-line message on a bad one. */
export function parseServeArgs(argv: string[]): ServeArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      data: { type: 'string', default: '.data/default' },
      port: { type: 'string', default: '0' },
      static: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || !Number.isInteger(port) || port > 65_535) throw new Error(`--port must be an integer 0–65535, got ${JSON.stringify(values.port)}`);
  return { dataDir: resolve(values.data), port, ...(values.static !== undefined ? { staticDir: resolve(values.static) } : {}) };
}

/** Start cluster and host; resolves with both once the host listens. */
export async function serve(args: ServeArgs): Promise<{ cluster: OpenCluster; host: HttpHost }> {
  const cluster = openCluster({ dataDir: args.dataDir });
  try {
    const token = loadOrCreateToken(args.dataDir);
    const host = await startHttpHost({ service: cluster.service, port: args.port, host: '127.0.0.1', token, ...(args.staticDir ? { staticDir: args.staticDir } : {}) });
    return { cluster, host };
  } catch (e) {
    cluster.close();
    throw e;
  }
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
  let running: { cluster: OpenCluster; host: HttpHost };
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
      .then(() => {
        running.cluster.close();
        process.exit(0);
      })
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
