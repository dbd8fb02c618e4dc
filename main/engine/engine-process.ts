/**
 * The engine process: the cluster (engine, real-time clock, SQLite storage) in a process of its
 * own, so that a busy engine never holds up the process that serves HTTP or draws the UI. Two
 * parents start it, with the same options and the same messages (`engine-channel.ts`), on its
 * entry file `engine-main.ts`:
 *
 *   child_process.fork('dist/engine-node/engine.mjs', [JSON options])   (headless; engine-main.ts bundled
 *                                                                        by bundle-entry.ts, or the source through tsx)
 *   utilityProcess.fork('dist/electron/engine.cjs', [JSON options])     (Electron; engine-main.ts, bundled)
 *
 * The options are one JSON argument: { dataDir, brokers?, seed?, staticConfigs?, shutdownBudgetMs? }
 * (see `OpenClusterOptions`). It talks over the parent channel only, one message per object:
 *
 *   parent → child   { id, method, input }    a contract call (answered in order of arrival, except
 *                                            that `records.produce` calls start one per turn of
 *                                            the event loop, so other calls do not queue behind a
 *                                            burst of them)
 *                    { close: true }          orderly close (controlled shutdown), then exit 0
 *   child → parent   { opened: true, created }  the storage is open (the lock is held); created:
 *                                            the data directory held no cluster before
 *                    { ready: true, brokersReady }  `ready()` resolved (brokersReady: its answer)
 *                    { id, result }           the envelope `service.call` answered
 *                    { events: [...] }        engine events, oldest first: those of one turn of the
 *                                            event loop go together (a bounded number a message;
 *                                            `main/events/event-batcher.ts` says why), and each
 *                                            partition's high-watermark moves of a short window as
 *                                            one event (`main/events/event-outbox.ts`); any other
 *                                            message sends what is held first
 *                    { fatal: message }       opening failed (e.g. the data dir is locked); exit 1
 *
 * If the parent goes away (the Node channel disconnects; Electron ends a utility process itself),
 * the cluster is closed in order and the process exits 0 — also when it went while this process
 * was still loading, before anyone listened for the disconnect (then nothing is opened). SIGINT is ignored (a terminal's Ctrl-C
 * reaches the whole process group; the parent decides); SIGTERM (also what
 * `UtilityProcess.kill()` sends) closes in order like `{ close: true }`.
 */
import { currentParentChannel, type ChildMessage, type ParentChannel, type ParentMessage } from './engine-channel.js';
import { EventOutbox } from '../events/event-outbox.js';
import { openCluster, type OpenCluster, type OpenClusterOptions } from './open-cluster.js';
import { startMemorySettler } from './memory-settler.js';

export type { ChildMessage, ParentMessage } from './engine-channel.js';

/** What the engine process is started with (the serialisable part of `OpenClusterOptions`). */
export type EngineProcessOptions = Omit<OpenClusterOptions, 'logger' | 'outputBacklogged'>;

/**
 * Engine events handed to the channel but not yet written out at which the clock holds its next
 * step (Node's channel only, see `writtenByEventLoop`): about half a message of EVENTS_PER_MESSAGE,
 * ~250 KB, more than the socket takes in one turn of the loop; a step's usual few events never hold it.
 */
export const BACKLOGGED_EVENTS = 1_000;

function oneLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').trim();
}

/** Run the engine for the parent at the other end of `channel`. */
export function runEngineProcess(options: EngineProcessOptions, channel: ParentChannel): void {
  // Events wait for the end of the current turn (one engine step), high-watermark moves for a
  // short window, and leave in batches; any other message flushes them first, so the parent sees
  // everything in the order it happened.
  // Events handed to the channel and not yet written out: a burst (a controlled shutdown at
  // 100,000 partitions sends ~33,000) holds the clock until it is out, so an answer sent after it
  // is not left waiting behind the steps that follow (open-cluster's `outputBacklogged`).
  let unwritten = 0;
  const events = new EventOutbox({
    send: (batch) => {
      if (!channel.connected) return;
      const n = batch.length;
      unwritten += n;
      channel.send({ events: batch }, () => {
        unwritten -= n;
      });
    },
  });
  const send = (message: ChildMessage): void => {
    events.flush();
    if (channel.connected) channel.send(message);
  };
  // A parent that went away while this process was still loading (its 'disconnect' came before
  // anyone listened): open nothing — a cluster opened now would hold its ports and files with no
  // one to close it.
  if (!channel.connected) {
    console.error('The engine process lost its parent before the cluster was opened; exiting.');
    process.exit(0);
  }
  let cluster: OpenCluster;
  try {
    cluster = openCluster({
      ...options,
      logger: { error: (message, error) => console.error(message, error) },
      ...(channel.writtenByEventLoop ? { outputBacklogged: () => unwritten >= BACKLOGGED_EVENTS } : {}),
    });
  } catch (e) {
    fatal(e, channel);
    return;
  }
  send({ opened: true, created: cluster.created });
  const stopSettler = startMemorySettler();

  const unsubscribe = cluster.service.subscribe((event) => events.push(event));
  let closing = false;
  const close = (): void => {
    if (closing) return;
    closing = true;
    stopSettler();
    unsubscribe();
    try {
      cluster.close();
    } catch (e) {
      console.error('The engine process could not close the cluster in order', e);
      process.exit(1);
    }
    // Leave once the channel has flushed and closed (the channel exits then); the timer, which
    // holds the loop open, is the bound if it never says so.
    process.exitCode = 0;
    events.close();
    channel.close();
    setTimeout(() => process.exit(0), 2_000);
  };

  const answer = ({ id, method, input }: { id: number; method: string; input?: unknown }): void => {
    void cluster.service.call(method, input).then((result) => send({ id, result }));
  };
  // Produce calls (the bulk path) start one per turn of the event loop, in order: every call
  // syncs the clock (a step of the engine), so a burst of them read off the channel at once would
  // otherwise run back to back, and a `cluster.describe` behind them would wait for them all.
  // Between two, the loop reads the channel again and answers every other call at once.
  const produces: { id: number; method: string; input?: unknown }[] = [];
  let draining = false;
  const drainOne = (): void => {
    const next = produces.shift();
    if (next && !closing) answer(next);
    if (produces.length > 0 && !closing) setImmediate(drainOne);
    else draining = false;
  };

  channel.onMessage((raw: ParentMessage) => {
    if ('close' in raw) {
      close();
      return;
    }
    if (closing) return;
    if (raw.method === 'records.produce') {
      produces.push(raw);
      if (!draining) {
        draining = true;
        setImmediate(drainOne);
      }
    } else answer(raw);
  });
  channel.onDisconnect(close);
  if (!channel.connected) close(); // gone while the cluster was opening
  process.on('SIGINT', () => {});
  process.on('SIGTERM', close);

  void cluster.ready(60_000).then((brokersReady) => {
    if (!closing) send({ ready: true, brokersReady });
  });
}

/** Report a failure to open and exit 1 once the message has left (so the parent always reads it). */
function fatal(e: unknown, channel: ParentChannel | undefined): void {
  const message = oneLine(e);
  if (channel?.connected) channel.send({ fatal: message }, () => process.exit(1));
  else {
    process.stderr.write(`engine process: ${message}\n`);
    process.exit(1);
  }
}

/**
 * Run as the process's entry (`engine-main.ts`): the options are the one JSON argument `arg`.
 * A bad argument exits 2 with the usage; a process without a parent channel exits 1.
 */
export function startEngineProcess(arg: string | undefined): void {
  let options: EngineProcessOptions;
  try {
    options = JSON.parse(arg ?? '') as EngineProcessOptions;
    if (typeof options.dataDir !== 'string') throw new Error('dataDir is missing');
  } catch (e) {
    process.stderr.write(`usage: node --import tsx main/engine/engine-main.ts '{"dataDir":"…"}' (${oneLine(e)})\n`);
    process.exit(2);
  }
  const channel = currentParentChannel();
  if (channel) runEngineProcess(options, channel);
  else fatal(new Error('no parent: start it with child_process.fork or utilityProcess.fork'), undefined);
}

