/**
 * The topic page of one topic with 1,000 partitions (RF 3) in Chromium, against the host as
 * `npm run serve` runs it: how long the partition table takes to show, and whether it scrolls at
 * the display's frame rate.
 *
 * First render: a fresh page load of `/#/topics/<topic>` (the page, its scripts, topics.describe of
 * 1,000 partitions with every replica's log state, the brokers, the explainer of each partition,
 * the virtualized table) until the first partition row is in the DOM at the start of a frame (a
 * requestAnimationFrame poll installed before any page script runs). The figure is the median of
 * LOADS loads, against 1,000 ms (issue 34: 1,000 partitions render in under a second).
 *
 * Scroll: on the loaded page, a requestAnimationFrame loop moves the table's scroller down by
 * SCROLL_STEP_PX every frame (ten rows, wrapping at the end) for SCROLL_MS, while the page keeps
 * polling the topic every second as it does live; the figures are the deltas between frames,
 * judged against the still page's frame interval timed just before (ui-topics.ts says why), with
 * the main thread's CPU per frame.
 *
 * `npx tsx bench/ui-topic-detail.ts [--partitions N]` runs it alone; `npm run bench` runs it with
 * the others and `npm run bench -- topic-detail` alone into the results file. Every phase is
 * bounded; the host and browser are stopped and the temp dirs removed however it ends.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { launchBrowser, startServe } from '../e2e/support/harness.js';
import { makeTempDir, removeAllTempDirs, removeTempDir } from './produce-throughput.js';
import { consoleBuild, IDLE_FRAMES, mainThreadCpu, median, percentile, poster, scrollLoop, sleep } from './ui-support.js';

export const DETAIL_PARTITIONS = 1_000;
export const DETAIL_RF = 3;
export const DETAIL_LOADS = 3;
export const DETAIL_SCROLL_MS = 2_000;
/** Ten 34 px rows per frame. */
export const DETAIL_SCROLL_STEP_PX = 340;
const IDLE_FRAMES_MS = 1_000;
const VIEWPORT = { width: 1400, height: 900 };
const TOPIC = 'bench-wide';
const ROW = '[data-testid="partition-row-0"]';

export interface UiTopicDetailResult {
  partitions: number;
  /** Navigation start → first partition row in the DOM, per fresh load. */
  loadsMs: number[];
  firstRenderMs: number;
  /** Rows in the DOM after the first render (the virtualized window, not 1,000). */
  rowsInDom: number;
  /** The largest API answer of the median load (topics.describe of every partition). */
  largestApiBytes: number;
  /** Where the median load spent its time, ms from navigation start (-1 when absent). */
  phases: { domContentLoadedMs: number; describeSentMs: number; describeReceivedMs: number };
  frames: { count: number; p50Ms: number; p95Ms: number; maxMs: number; over50Ms: number; scrolledRows: number; mainThreadCpuMsPerFrame: number; idleIntervalMs: number };
  build: string;
  /** The machine's 1-minute load average when the page was first loaded (a shared machine's frames depend on it). */
  loadAverage: number;
}

/** Before any page script: the start of the first frame with a partition row. */
const FIRST_ROW_PROBE = `(() => {
  const w = window;
  w.__rowAt = undefined;
  const tick = () => {
    if (document.querySelector(${JSON.stringify(ROW)})) { w.__rowAt = performance.now(); return; }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();`;

/** Run it; throws when a phase fails or the deadline (ms of wall time from now) passes. */
export async function measureUiTopicDetail(deadlineMs = 150_000, log: (line: string) => void = () => {}, partitions = DETAIL_PARTITIONS): Promise<UiTopicDetailResult> {
  const started = performance.now();
  const left = (): number => deadlineMs - (performance.now() - started);
  const check = (phase: string): void => {
    if (left() <= 0) throw new Error(`ui-topic-detail: out of time before ${phase}`);
  };
  const build = await consoleBuild(Math.min(180_000, left()));
  log(`console: ${build.label}`);
  check('starting the host');
  const dataDir = makeTempDir('replica-bench-ui-detail-');
  const host = await startServe({ dataDir, extraArgs: process.env.E2E_STATIC ? [] : ['--static', build.dir] });
  const killHost = (): void => void host.process.kill('SIGKILL');
  process.once('exit', killHost);
  let browser: Browser | undefined;
  try {
    const post = poster(host);
    for (let ready = false; !ready; ) {
      check('the brokers ran');
      const c = await post<{ brokers: { state: string }[] }>('cluster.describe', {});
      ready = c.ok && c.value.brokers.filter((b) => b.state === 'running').length >= DETAIL_RF;
      if (!ready) await sleep(200);
    }
    const created = await post('topics.create', { name: TOPIC, partitions, replicationFactor: DETAIL_RF }, Math.max(1_000, Math.min(60_000, left())));
    if (!created.ok) throw new Error(`topics.create: ${created.error.code} ${created.error.message}`);
    // Some records spread by key, so sizes, skews and high watermarks differ from row to row.
    const records = Array.from({ length: 2_000 }, (_, i) => ({ key: `k${i}`, value: `v${'x'.repeat(i % 97)}` }));
    const produced = await post('records.produce', { topic: TOPIC, acks: 1, records }, Math.max(1_000, Math.min(60_000, left())));
    if (!produced.ok) throw new Error(`records.produce: ${produced.error.code} ${produced.error.message}`);
    log(`created ${TOPIC}: ${partitions} partitions, RF ${DETAIL_RF}, 2,000 records`);

    check('launching Chromium');
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: 'light' });
    await context.addInitScript(FIRST_ROW_PROBE);
    const page = await context.newPage();
    const waitMs = (): number => Math.max(1_000, Math.min(30_000, left()));
    const rowAt = async (): Promise<number> => {
      const until = performance.now() + waitMs();
      for (;;) {
        const at = (await page.evaluate('window.__rowAt')) as number | undefined;
        if (typeof at === 'number') return at;
        if (performance.now() > until) throw new Error('no partition row appeared');
        await sleep(25);
      }
    };
    // The start URL sets the host's cookie.
    await page.goto(host.url, { timeout: waitMs() });
    await page.getByTestId('connection-status').getByText('Live').waitFor({ timeout: waitMs() });

    const loadAverage = Math.round(loadavg()[0]! * 100) / 100;
    const loads: { ms: number; bytes: number; phases: UiTopicDetailResult['phases'] }[] = [];
    for (let i = 0; i < DETAIL_LOADS; i++) {
      check('loading the topic page');
      await page.goto('about:blank');
      await page.goto(`${host.origin}/#/topics/${TOPIC}`, { timeout: waitMs() });
      const at = await rowAt();
      const bytes = (await page.evaluate(`(() => Math.max(0, ...performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/') && e.responseEnd <= ${at} + 1).map((e) => e.encodedBodySize)))()`)) as number;
      const phases = (await page.evaluate(`(() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const d = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/api/topics.describe'))[0];
        return { domContentLoadedMs: nav ? nav.domContentLoadedEventEnd : -1, describeSentMs: d ? d.startTime : -1, describeReceivedMs: d ? d.responseEnd : -1 };
      })()`)) as UiTopicDetailResult['phases'];
      loads.push({ ms: at, bytes, phases });
    }
    const loadsMs = loads.map((l) => l.ms);
    const firstRenderMs = median(loadsMs);
    const medianLoad = loads.find((l) => l.ms === firstRenderMs) ?? loads[0]!;
    const largestApiBytes = medianLoad.bytes;
    const phases = medianLoad.phases;
    const rowsInDom = await page.locator('[data-testid^="partition-row-"]').count();
    log(`first render of the topic page: ${loadsMs.map((ms) => `${Math.round(ms)} ms`).join(', ')} (fresh loads); ${rowsInDom} rows in the DOM; largest API answer ${largestApiBytes.toLocaleString('en-US')} B`);
    log(`  the median load: DOMContentLoaded at ${Math.round(phases.domContentLoadedMs)} ms, topics.describe sent at ${Math.round(phases.describeSentMs)} ms and received at ${Math.round(phases.describeReceivedMs)} ms, first row at ${Math.round(firstRenderMs)} ms`);

    check('scrolling');
    await sleep(500);
    const idleDeltas = (await page.evaluate(`${IDLE_FRAMES}(${IDLE_FRAMES_MS})`)) as number[];
    if (idleDeltas.length === 0) throw new Error('the still page drew no frames');
    const cdp = await context.newCDPSession(page);
    await cdp.send('Tracing.start', { categories: 'toplevel,__metadata', transferMode: 'ReturnAsStream' });
    const { deltas, scrolled } = (await page.evaluate(`${scrollLoop('[data-testid="partition-scroller"]')}([${DETAIL_SCROLL_MS}, ${DETAIL_SCROLL_STEP_PX}])`)) as { deltas: number[]; scrolled: number };
    if (deltas.length === 0) throw new Error('the table did not scroll (no scroller or no frames)');
    const cpuMs = await mainThreadCpu(cdp);
    const sorted = [...deltas].sort((a, b) => a - b);
    const frames = {
      count: deltas.length,
      p50Ms: percentile(sorted, 50),
      p95Ms: percentile(sorted, 95),
      maxMs: sorted[sorted.length - 1]!,
      over50Ms: deltas.filter((d) => d > 50).length,
      scrolledRows: Math.round(scrolled / 34),
      mainThreadCpuMsPerFrame: cpuMs / deltas.length,
      idleIntervalMs: median(idleDeltas),
    };
    log(
      `scroll: ${frames.count} frames in ${DETAIL_SCROLL_MS} ms, ${frames.scrolledRows} rows passed; frame p50 ${frames.p50Ms.toFixed(1)} ms, p95 ${frames.p95Ms.toFixed(1)} ms, max ${frames.maxMs.toFixed(1)} ms, ${frames.over50Ms} over 50 ms (the still page's frame interval ${frames.idleIntervalMs.toFixed(1)} ms); main thread ${frames.mainThreadCpuMsPerFrame.toFixed(1)} ms of CPU per frame`,
    );
    await context.close();
    return { partitions, loadsMs, firstRenderMs, rowsInDom, largestApiBytes, phases, frames, build: build.label, loadAverage };
  } finally {
    await browser?.close().catch(() => {});
    await host.stop();
    process.removeListener('exit', killHost);
    removeTempDir(dataDir);
    if (build.temp) removeTempDir(build.dir);
  }
}

// `npx tsx bench/ui-topic-detail.ts [--partitions N]`: this benchmark alone, printed as JSON.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.on('exit', removeAllTempDirs);
  const i = process.argv.indexOf('--partitions');
  const partitions = i >= 0 ? Number(process.argv[i + 1]) : DETAIL_PARTITIONS;
  measureUiTopicDetail(150_000, (line) => console.log(line), partitions)
    .then((r) => console.log(JSON.stringify(r, null, 2)))
    .catch((e: unknown) => {
      console.error(e);
      process.exit(1);
    });
}
