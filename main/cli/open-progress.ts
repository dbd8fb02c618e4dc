/**
 * While a big cluster opens, the host says how far it got instead of a silent minute:
 *
 * - `reportLoading`: while the engine loads the data directory (before it can answer at all), a
 *   line every `everyMs` saying it is still loading.
 * - `reportOpening`: then, every `everyMs`, it asks the engine for its brokers and prints one
 *   line (`opening DIR: 7 of 12 brokers running after 12 s`), only when a check finds the cluster
 *   still opening. A cluster that opens within the first interval prints nothing. When the engine
 *   is too busy to answer (a long step of a big cluster), it says so at least every
 *   `BUSY_EVERY` intervals instead of waiting silently for the answer.
 */
import type { EngineService } from '../../app/api/service.js';

export interface OpeningReporter {
  stop(): void;
}

/** Intervals between two lines saying the engine is busy. */
const BUSY_EVERY = 5;

export function reportOpening(service: EngineService, dataDir: string, print: (line: string) => void, everyMs = 2_000): OpeningReporter {
  const started = Date.now();
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pendingSince: number | undefined;
  let lastLine = started;
  const say = (line: string): void => {
    lastLine = Date.now();
    print(line);
  };
  const seconds = (): number => Math.round((Date.now() - started) / 1000);
  const check = (): void => {
    if (stopped) return;
    const now = Date.now();
    if (pendingSince === undefined) {
      pendingSince = now;
      void service.call('brokers.list', {}).then((r) => {
        pendingSince = undefined;
        if (stopped) return;
        if (!r.ok) say(`opening ${dataDir}: the cluster does not answer yet after ${seconds()} s (${r.error.code})`);
        else {
          const running = r.value.filter((b) => b.state === 'running').length;
          const waiting = r.value.filter((b) => b.state === 'starting' || b.state === 'fenced').length;
          if (waiting > 0) say(`opening ${dataDir}: ${running} of ${r.value.length} brokers running after ${seconds()} s`);
        }
      });
    } else if (now - pendingSince >= everyMs && now - lastLine >= BUSY_EVERY * everyMs) {
      say(`opening ${dataDir}: still opening after ${seconds()} s (the engine is busy starting brokers)`);
    }
    timer = setTimeout(check, everyMs);
  };
  timer = setTimeout(check, everyMs);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** Before the engine answers at all: a line every `everyMs` while it loads the data directory. */
export function reportLoading(dataDir: string, print: (line: string) => void, everyMs = 5_000): OpeningReporter {
  const started = Date.now();
  const timer = setInterval(() => print(`opening ${dataDir}: loading its metadata and logs (${Math.round((Date.now() - started) / 1000)} s)`), everyMs);
  return { stop: () => clearInterval(timer) };
}
