/**
 * The Topics page with 2,000 topics × 10 partitions (RF 3: 20,000 partitions, 60,000 replicas)
 * in Chromium, against the host as `npm run serve` runs it (e2e/support/harness.ts).
 *
 * Set-up: a host on a temp data dir serving a build of the console (dist/renderer when it is
 * newer than every renderer and contract source, else a fresh build in a temp dir; E2E_STATIC
 * names one to use as-is); once its three brokers run, the topics are created over HTTP with the
 * Bearer token, TOPICS_PER_BATCH per `topics.createMany`.
 *
 * First render: a fresh page load of `/#/topics` (the page, its scripts, `topics.list` of 2,000
 * summaries, the virtualized list) until the first topic row is in the DOM at the start of a
 * frame (a requestAnimationFrame poll installed before any page script runs, so the time is
 * `performance.now()` from the navigation's start). The figure is the median of LOADS loads; the
 * in-app navigation from the overview (a click on "Topics") is reported alongside.
 *
 * Scroll: on the loaded list, a requestAnimationFrame loop moves the list's scroller down by
 * SCROLL_STEP_PX every frame (wrapping at the end) for SCROLL_MS; the figures are the deltas
 * between consecutive frames (p50, p95, max). At 60 Hz a smooth page gives ~16.7 ms. The deltas
 * come in whole vsync intervals and depend on how busy the machine is (2 shared cores: a p95 of
 * 16.7 or 33.3 ms can flip from one run to the next), so the same scroll also reports the page's
 * main-thread CPU time per frame (thread time of the renderer's main thread in a Chromium trace
 * of the scroll, `toplevel` tasks only): the work the page asks for, whatever else runs. Just
 * before the scroll, the still page's frames are timed for IDLE_FRAMES_MS: their median is the
 * display's frame interval in this run, the unit a frame is judged in (run.ts: a scroll frame is on
 * time below 1.5 intervals, since a late frame takes two).
 *
 * Other pages: fresh loads of the Overview (`/#/`, until its partition tile), the Brokers page
 * (`/#/brokers`, until broker 1's row) and the Balance page (`/#/balance`, until broker 1's column
 * counts), each with the largest `/api/` response of that load, so a page that reads every
 * partition on open shows (at 100,000 partitions that is megabytes). `--partitions N` (with
 * `--per-topic K`, default 10) runs it at another size: `npx tsx bench/ui-topics.ts --partitions 100000 --per-topic 100`;
 * `--live` then stops and starts the busiest broker with the Overview open (ui-live.ts).
 *
 * Everything is bounded: each phase has its own timeout and the whole run a deadline; the host
 * and the browser are stopped (and the temp dirs removed) however it ends.
 */
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { Browser } from 'playwright-core';
import { launchBrowser, startServe } from '../e2e/support/harness.js';
import { makeTempDir, removeAllTempDirs, removeTempDir } from './produce-throughput.js';
import { measureOverviewLive, type OverviewLive } from './ui-live.js';
import { consoleBuild, IDLE_FRAMES, mainThreadCpu, median, percentile, poster, scrollLoop, sleep } from './ui-support.js';

export const TOPICS = 2_000;
export const PARTITIONS_PER_TOPIC = 10;
export const REPLICATION_FACTOR = 3;
export const TOPICS_PER_BATCH = 100;
export const LOADS = 3;
export const SCROLL_MS = 2_000;
/** Ten 40 px rows per frame: a quick fling (600 rows a second at 60 Hz), every frame new rows. */
export const SCROLL_STEP_PX = 400;
/** How long the still page's frames are timed before the scroll, for the display's frame interval. */
export const IDLE_FRAMES_MS = 1_000;
const VIEWPORT = { width: 1400, height: 900 };


/** A page of the console, its URL hash and the element that shows it has read the cluster. */
export const PAGES = [
  { name: 'overview', hash: '#/', ready: '[data-testid="overview-partitions"]' },
  { name: 'brokers', hash: '#/brokers', ready: '[data-testid="broker-row-1"]' },
  { name: 'balance', hash: '#/balance', ready: '[data-testid="broker-counts-1"]' },
] as const;

/** Fresh loads of one page: navigation start → its ready element, and the largest API answer of a load. */
export interface PageOpen {
  page: (typeof PAGES)[number]['name'];
  loadsMs: number[];
  medianMs: number;
  /** The largest `/api/` response body of the median load (bytes as sent) and its method. */
  largestApiBytes: number;
  largestApiMethod: string;
}

/** Milestones of one page load, ms from its navigation start (-1 when absent). */
export interface LoadPhases {
  domContentLoadedMs: number;
  /** The page's `topics.list` request: sent, and its response fully received. */
  listSentMs: number;
  listReceivedMs: number;
}

export interface UiTopicsResult {
  topics: number;
  partitions: number;
  /** Wall time to create every topic over HTTP. */
  createMs: number;
  /** `topics.list` over HTTP from Node (2,000 summaries), once the topics exist. */
  listMs: number;
  /** Navigation start → first row in the DOM, per fresh load. */
  loadsMs: number[];
  firstRenderMs: number;
  /** Where the median load spent its time (ms from navigation start). */
  phases: LoadPhases;
  /** Click on "Topics" in the overview → first row in the DOM. */
  inAppMs: number;
  /** Rows in the DOM after the first render (the virtualized window, not 2,000). */
  rowsInDom: number;
  frames: {
    count: number;
    p50Ms: number;
    p95Ms: number;
    maxMs: number;
    over50Ms: number;
    scrolledRows: number;
    mainThreadCpuMsPerFrame: number;
    /** The display's frame interval in the same page, still (median rAF delta over IDLE_FRAMES_MS): ~16.7 ms at 60 Hz. */
    idleIntervalMs: number;
  };
  /** The Overview, Brokers and Balance pages opened fresh. */
  pages: PageOpen[];
  /** The Overview while the busiest broker stops and starts (when asked). */
  live?: OverviewLive;
  /** Where the console came from. */
  build: string;
}

/** The size to run at: TOPICS × PARTITIONS_PER_TOPIC by default. */
export interface UiSize {
  topics: number;
  partitionsPerTopic: number;
  /** Also stop and start the busiest broker with the Overview open (ui-live.ts). */
  live?: boolean;
}

/**
 * In every document, before its scripts: note the start of the first frame that has a topic row,
 * and of the first frame that has each page's ready element (window.__pageReadyAt[selector]).
 */
const FIRST_ROWS_PROBE = `(() => {
  const w = window;
  w.__topicsRowsAt = undefined;
  const tick = () => {
    if (document.querySelector('[data-testid="topic-row"]')) {
      w.__topicsRowsAt = performance.now();
      performance.mark('topics-rows-visible');
      return;
    }
    requestAnimationFrame(tick);
  };
  w.__restartTopicsProbe = () => { w.__topicsRowsAt = undefined; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  const selectors = ${JSON.stringify(PAGES.map((p) => p.ready))};
  w.__pageReadyAt = {};
  const pages = () => {
    for (const s of selectors) if (w.__pageReadyAt[s] === undefined && document.querySelector(s)) w.__pageReadyAt[s] = performance.now();
    if (selectors.some((s) => w.__pageReadyAt[s] === undefined)) requestAnimationFrame(pages);
  };
  requestAnimationFrame(pages);
})();`;

/** Run the benchmark; throws when a phase fails or the deadline (ms of wall time from now) passes. */
export async function measureUiTopics(deadlineMs = 150_000, log: (line: string) => void = () => {}, size: UiSize = { topics: TOPICS, partitionsPerTopic: PARTITIONS_PER_TOPIC }): Promise<UiTopicsResult> {
  const { topics: topicCount, partitionsPerTopic: perTopic } = size;
  const started = performance.now();
  const left = (): number => deadlineMs - (performance.now() - started);
  const check = (phase: string): void => {
    if (left() <= 0) throw new Error(`ui-topics: out of time before ${phase}`);
  };

  const build = await consoleBuild(Math.min(180_000, left()));
  log(`console: ${build.label}`);
  check('starting the host');
  const dataDir = makeTempDir('replica-bench-ui-');
  const host = await startServe({ dataDir, extraArgs: process.env.E2E_STATIC ? [] : ['--static', build.dir] });
  const killHost = (): void => void host.process.kill('SIGKILL');
  process.once('exit', killHost);
  let browser: Browser | undefined;
  try {
    const post = poster(host);
    for (let ready = false; !ready; ) {
      check('the brokers ran');
      const c = await post<{ brokers: { state: string }[] }>('cluster.describe', {});
      ready = c.ok && c.value.brokers.filter((b) => b.state === 'running').length >= REPLICATION_FACTOR;
      if (!ready) await sleep(200);
    }

    const createStarted = performance.now();
    for (let first = 0; first < topicCount; first += TOPICS_PER_BATCH) {
      check('creating the topics');
      const topics = Array.from({ length: Math.min(TOPICS_PER_BATCH, topicCount - first) }, (_, i) => ({
        name: `bench-topic-${String(first + i).padStart(5, '0')}`,
        partitions: perTopic,
        replicationFactor: REPLICATION_FACTOR,
      }));
      const r = await post<{ name: string; errorCode: string; message?: string }[]>('topics.createMany', { topics }, Math.max(1_000, Math.min(60_000, left())));
      if (!r.ok) throw new Error(`topics.createMany: ${r.error.code} ${r.error.message}`);
      const failed = r.value.find((t) => t.errorCode !== 'NONE');
      if (failed) throw new Error(`topics.createMany: ${failed.name}: ${failed.errorCode} ${failed.message ?? ''}`);
    }
    const createMs = performance.now() - createStarted;
    const listStarted = performance.now();
    const listed = await post<unknown[]>('topics.list', {});
    const listMs = performance.now() - listStarted;
    if (!listed.ok || listed.value.length !== topicCount) throw new Error(`topics.list: expected ${topicCount} topics`);
    log(`created ${topicCount} topics × ${perTopic} partitions (RF ${REPLICATION_FACTOR}) in ${Math.round(createMs)} ms; topics.list over HTTP ${Math.round(listMs)} ms`);

    check('launching Chromium');
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: 'light' });
    await context.addInitScript(FIRST_ROWS_PROBE);
    const page = await context.newPage();
    const waitMs = (): number => Math.max(1_000, Math.min(30_000, left()));
    // Polled from here (the page's CSP forbids string evaluation inside it); the time itself is taken in the page.
    const rowsAt = async (): Promise<number> => {
      const until = performance.now() + waitMs();
      for (;;) {
        const at = (await page.evaluate('window.__topicsRowsAt')) as number | undefined;
        if (typeof at === 'number') return at;
        if (performance.now() > until) throw new Error('no topic row appeared');
        await sleep(25);
      }
    };

    // The start URL sets the host's cookie and opens the overview; then the in-app navigation.
    await page.goto(host.url, { timeout: waitMs() });
    await page.getByTestId('connection-status').getByText('Live').waitFor({ timeout: waitMs() });
    await page.getByRole('heading', { level: 1 }).first().waitFor({ timeout: waitMs() });
    await sleep(300);
    const clickedAt = (await page.evaluate(`(() => {
      window.__restartTopicsProbe();
      const link = [...document.querySelectorAll('nav[aria-label="Main"] a')].find((a) => a.textContent.trim() === 'Topics');
      const t = performance.now();
      link.click();
      return t;
    })()`)) as number;
    const inAppMs = (await rowsAt()) - clickedAt;

    // Fresh loads of /#/topics: the document, its scripts, topics.list and the first rows.
    const loadsMs: number[] = [];
    const phases: LoadPhases[] = [];
    for (let i = 0; i < LOADS; i++) {
      check('loading /topics');
      await page.goto('about:blank');
      await page.goto(`${host.origin}/#/topics`, { timeout: waitMs() });
      loadsMs.push(await rowsAt());
      phases.push(
        (await page.evaluate(`(() => {
          const nav = performance.getEntriesByType('navigation')[0];
          const list = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/api/topics.list')).pop();
          return { domContentLoadedMs: nav ? nav.domContentLoadedEventEnd : -1, listSentMs: list ? list.startTime : -1, listReceivedMs: list ? list.responseEnd : -1 };
        })()`)) as LoadPhases,
      );
    }
    const rowsInDom = await page.getByTestId('topic-row').count();
    const phase = phases[loadsMs.indexOf(median(loadsMs))] ?? phases[0]!;
    log(`first render of /topics: ${loadsMs.map((ms) => `${Math.round(ms)} ms`).join(', ')} (fresh loads); ${Math.round(inAppMs)} ms from the overview; ${rowsInDom} rows in the DOM`);
    log(
      `  the median load: DOMContentLoaded at ${Math.round(phase.domContentLoadedMs)} ms, topics.list sent at ${Math.round(phase.listSentMs)} ms and received at ${Math.round(phase.listReceivedMs)} ms, rows at ${Math.round(median(loadsMs))} ms`,
    );

    check('scrolling');
    await sleep(500);
    const idleDeltas = (await page.evaluate(`${IDLE_FRAMES}(${IDLE_FRAMES_MS})`)) as number[];
    if (idleDeltas.length === 0) throw new Error('the still page drew no frames');
    const cdp = await context.newCDPSession(page);
    await cdp.send('Tracing.start', { categories: 'toplevel,__metadata', transferMode: 'ReturnAsStream' });
    const { deltas, scrolled } = (await page.evaluate(`${scrollLoop('[data-testid="topic-scroller"]')}([${SCROLL_MS}, ${SCROLL_STEP_PX}])`)) as { deltas: number[]; scrolled: number };
    if (deltas.length === 0) throw new Error('the list did not scroll (no scroller or no frames)');
    const mainThreadCpuMs = await mainThreadCpu(cdp);
    const sorted = [...deltas].sort((a, b) => a - b);
    const frames = {
      count: deltas.length,
      p50Ms: percentile(sorted, 50),
      p95Ms: percentile(sorted, 95),
      maxMs: sorted[sorted.length - 1]!,
      over50Ms: deltas.filter((d) => d > 50).length,
      scrolledRows: Math.round(scrolled / 40),
      mainThreadCpuMsPerFrame: mainThreadCpuMs / deltas.length,
      idleIntervalMs: median(idleDeltas),
    };
    log(
      `scroll: ${frames.count} frames in ${SCROLL_MS} ms, ${frames.scrolledRows} rows passed; frame p50 ${frames.p50Ms.toFixed(1)} ms, p95 ${frames.p95Ms.toFixed(1)} ms, max ${frames.maxMs.toFixed(1)} ms, ${frames.over50Ms} over 50 ms (the still page's frame interval ${frames.idleIntervalMs.toFixed(1)} ms); main thread ${frames.mainThreadCpuMsPerFrame.toFixed(1)} ms of CPU per frame`,
    );

    // The other pages, opened fresh: until each shows what it read, and the largest API answer it waited for.
    const pages: PageOpen[] = [];
    for (const p of PAGES) {
      const loads: { ms: number; bytes: number; method: string }[] = [];
      for (let i = 0; i < LOADS; i++) {
        check(`loading ${p.hash}`);
        await page.goto('about:blank');
        await page.goto(`${host.origin}/${p.hash}`, { timeout: waitMs() });
        const until = performance.now() + waitMs();
        let at: number | undefined;
        while (at === undefined) {
          at = (await page.evaluate(`window.__pageReadyAt && window.__pageReadyAt[${JSON.stringify(p.ready)}]`)) as number | undefined;
          if (at === undefined) {
            if (performance.now() > until) throw new Error(`${p.hash}: ${p.ready} did not appear`);
            await sleep(25);
          }
        }
        const largest = (await page.evaluate(`(() => {
          const api = performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/') && e.responseEnd <= ${at} + 1);
          const top = api.sort((a, b) => b.encodedBodySize - a.encodedBodySize)[0];
          return top ? { bytes: top.encodedBodySize, method: top.name.split('/api/')[1] } : { bytes: 0, method: '' };
        })()`)) as { bytes: number; method: string };
        loads.push({ ms: at, ...largest });
      }
      const mid = median(loads.map((l) => l.ms));
      const m = loads.find((l) => l.ms === mid) ?? loads[0]!;
      pages.push({ page: p.name, loadsMs: loads.map((l) => l.ms), medianMs: mid, largestApiBytes: m.bytes, largestApiMethod: m.method });
      log(`open ${p.hash}: ${loads.map((l) => `${Math.round(l.ms)} ms`).join(', ')} (fresh loads); largest API answer ${m.method} ${m.bytes.toLocaleString('en-US')} B`);
    }
    let live: OverviewLive | undefined;
    if (size.live) {
      check('stopping and starting a broker on the Overview');
      const brokers = await post<{ brokers: unknown[] }>('cluster.describe', {});
      if (!brokers.ok) throw new Error(`cluster.describe: ${brokers.error.code} ${brokers.error.message}`);
      live = await measureOverviewLive(context, host.origin, post, brokers.value.brokers.length, started + deadlineMs, log);
    }
    await context.close();
    return { topics: topicCount, partitions: topicCount * perTopic, createMs, listMs, loadsMs, firstRenderMs: median(loadsMs), phases: phase, inAppMs, rowsInDom, frames, pages, live, build: build.label };
  } finally {
    await browser?.close().catch(() => {});
    await host.stop();
    process.removeListener('exit', killHost);
    removeTempDir(dataDir);
    if (build.temp) removeTempDir(build.dir);
  }
}

// `npx tsx bench/ui-topics.ts`: this benchmark alone, printed as JSON (npm run bench runs it with the others).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.on('exit', removeAllTempDirs);
  const arg = (name: string): number | undefined => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? Number(process.argv[i + 1]) : undefined;
  };
  const perTopic = arg('--per-topic') ?? PARTITIONS_PER_TOPIC;
  const topics = Math.ceil((arg('--partitions') ?? TOPICS * PARTITIONS_PER_TOPIC) / perTopic);
  const deadlineMs = (arg('--budget-s') ?? 150) * 1000;
  measureUiTopics(deadlineMs, (line) => console.log(line), { topics, partitionsPerTopic: perTopic, live: process.argv.includes('--live') })
    .then((r) => console.log(JSON.stringify(r, null, 2)))
    .catch((e: unknown) => {
      console.error(e);
      process.exit(1);
    });
}
