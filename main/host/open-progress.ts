/**
 * While a big cluster opens, the host says how far it got instead of a silent minute: every
 * `everyMs` it asks the engine for its brokers and prints one line (`opening DIR: 7 of 12 brokers
 * running after 12 s`), only when a check finds the cluster still opening. A cluster that opens
 * within the first interval prints nothing.
 */
import type { EngineService } from '../../app/api/service.js';

export interface OpeningReporter {
  stop(): void;
}

export function reportOpening(service: EngineService, dataDir: string, print: (line: string) => void, everyMs = 2_000): OpeningReporter {
  const started = Date.now();
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = async (): Promise<void> => {
    const r = await service.call('brokers.list', {});
    if (stopped) return;
    const seconds = Math.round((Date.now() - started) / 1000);
    if (!r.ok) print(`opening ${dataDir}: the cluster does not answer yet after ${seconds} s (${r.error.code})`);
    else {
      const running = r.value.filter((b) => b.state === 'running').length;
      const waiting = r.value.filter((b) => b.state === 'starting' || b.state === 'fenced').length;
      if (waiting > 0) print(`opening ${dataDir}: ${running} of ${r.value.length} brokers running after ${seconds} s`);
    }
    if (!stopped) timer = setTimeout(() => void check(), everyMs);
  };
  timer = setTimeout(() => void check(), everyMs);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
