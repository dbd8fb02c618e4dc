/**
 * Does the Overview stay live while a big cluster works (issue 17: "the Overview and events stay
 * live while 100,000 partitions replicate")? On the Overview of the cluster ui-topics.ts built, the
 * broker leading the most partitions is stopped in order (its leaders move: tens of thousands of
 * metadata records and events at 100,000 partitions) and started again (every replica it holds
 * catches up and rejoins its ISR). Measured, from the page:
 *
 *   stopShownMs   `brokers.stop` asked → the Overview's subtitle says one broker fewer runs (a
 *                 broker in controlled shutdown is not counted as running);
 *   backShownMs   `brokers.start` asked → it says every broker runs and every partition is
 *                 fully replicated again;
 *   stopLagMs, backLagMs  how long after the host's first answer to `cluster.describe` with that
 *                 state arrived here (asked every POLL_MS) the page showed it: how far the console
 *                 is behind the cluster, whatever the cluster takes to get there;
 *   longestUpdateGapMs  from the first request until everything is back, the longest time the
 *                 page went without news from the host: a WebSocket frame (events, metrics) or
 *                 an answer to one of its API calls (the cluster store also polls every 2 s);
 *   longestFrameMs      the longest time between two animation frames of the page meanwhile
 *                 (the page's main thread kept busy by what arrives shows here);
 *   brokerEvents  lines of `broker.stateChanged` in the Recent events feed at the end, under its
 *                 filter "Brokers and controller" (under "All events" the ISR changes fill it).
 */
import { performance } from 'node:perf_hooks';
import type { BrowserContext } from 'playwright-core';

export interface OverviewLive {
  brokerId: number;
  /** Partitions the stopped broker led. */
  leadersMoved: number;
  stopShownMs: number;
  backShownMs: number;
  stopLagMs: number;
  backLagMs: number;
  longestUpdateGapMs: number;
  longestFrameMs: number;
  brokerEvents: number;
}

/** A call to the host's API (ui-topics.ts's poster). */
export type Post = <T>(method: string, body: unknown, timeoutMs?: number) => Promise<{ ok: true; value: T } | { ok: false; error: { code: string; message: string } }>;

/** In the page: the longest frame-to-frame time since `__liveReset()`, and when the subtitle first matched each wanted pattern. */
const LIVE_PROBE = `(() => {
  const w = window;
  w.__live = { longestFrame: 0, seen: {} };
  w.__liveWant = [];
  w.__liveReset = () => { w.__live.longestFrame = 0; return performance.now(); };
  let last = 0;
  const frame = (t) => {
    if (last) w.__live.longestFrame = Math.max(w.__live.longestFrame, t - last);
    last = t;
    const text = document.querySelector('.page-header .subtitle')?.textContent ?? '';
    for (const want of w.__liveWant) if (w.__live.seen[want] === undefined && text.includes(want)) w.__live.seen[want] = performance.now();
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})()`;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** How often this process asks the host what it reports (for the console's lag behind it). */
const POLL_MS = 100;

interface ClusterAnswer {
  brokers: { id: number; state: string }[];
  offlinePartitions: number;
  underReplicatedPartitions: number;
  underMinIsrPartitions: number;
}

/**
 * Run the stop / start on the Overview of the host at `origin` (`brokers` brokers, all running);
 * throws when a step does not finish by `deadlineAt` (a performance.now() time).
 */
export async function measureOverviewLive(context: BrowserContext, origin: string, post: Post, brokers: number, deadlineAt: number, log: (line: string) => void): Promise<OverviewLive> {
  const page = await context.newPage();
  const updates: number[] = [];
  page.on('websocket', (ws) => ws.on('framereceived', () => updates.push(performance.now())));
  page.on('response', (r) => {
    if (r.url().includes('/api/')) updates.push(performance.now());
  });
  const allBack = `${brokers} of ${brokers} brokers running · every partition fully replicated`;
  const oneDown = `${brokers - 1} of ${brokers} brokers running`;
  const waitSeen = async (want: string, what: string): Promise<number> => {
    for (;;) {
      const at = (await page.evaluate(`window.__live.seen[${JSON.stringify(want)}]`)) as number | undefined;
      if (at !== undefined) return at;
      if (performance.now() > deadlineAt) throw new Error(`overview: ${what} not shown in time`);
      await sleep(50);
    }
  };
  try {
    await page.goto(`${origin}/#/`);
    await page.evaluate(LIVE_PROBE);
    await page.evaluate(`window.__liveWant.push(${JSON.stringify(allBack)})`);
    await waitSeen(allBack, 'the settled cluster');
    const list = await post<{ id: number; state: string; leaderCount: number }[]>('brokers.list', {});
    if (!list.ok) throw new Error(`brokers.list: ${list.error.code} ${list.error.message}`);
    const busiest = list.value.reduce((a, b) => (b.leaderCount > a.leaderCount ? b : a));
    await page.evaluate(`(() => { window.__live.seen = {}; window.__liveWant = [${JSON.stringify(oneDown)}, ${JSON.stringify(allBack)}]; })()`);
    await sleep(1_000);

    // The page's clock against this process's: the middle of a round trip.
    const before = performance.now();
    const pageNow = (await page.evaluate('performance.now()')) as number;
    const hereNow = (before + performance.now()) / 2;
    const pageToHere = (t: number): number => t - pageNow + hereNow;
    // When the host first reports the broker down, then everything back (asked every POLL_MS).
    const hostSaw: { down?: number; back?: number } = {};
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const asked = performance.now();
        const c = await post<ClusterAnswer>('cluster.describe', {});
        const answered = performance.now();
        if (c.ok) {
          const b = c.value.brokers.find((x) => x.id === busiest.id);
          if (hostSaw.down === undefined && b?.state !== 'running') hostSaw.down = answered;
          const healthy = c.value.offlinePartitions === 0 && c.value.underReplicatedPartitions === 0 && c.value.underMinIsrPartitions === 0;
          if (hostSaw.down !== undefined && hostSaw.back === undefined && c.value.brokers.every((x) => x.state === 'running') && healthy) hostSaw.back = answered;
        }
        await sleep(Math.max(0, POLL_MS - (performance.now() - asked)));
      }
    })();

    const windowStart = performance.now();
    const stopAt = (await page.evaluate('window.__liveReset()')) as number;
    const stopped = await post('brokers.stop', { brokerId: busiest.id }, 60_000);
    if (!stopped.ok) throw new Error(`brokers.stop: ${stopped.error.code} ${stopped.error.message}`);
    const stopShownAt = await waitSeen(oneDown, `broker ${busiest.id} stopped`);
    // The subtitle counts a broker in controlled shutdown as not running: start it once it stopped.
    for (;;) {
      const now = await post<{ id: number; state: string }[]>('brokers.list', {});
      if (now.ok && now.value.find((b) => b.id === busiest.id)?.state === 'stopped') break;
      if (performance.now() > deadlineAt) throw new Error(`broker ${busiest.id} did not stop in time`);
      await sleep(100);
    }
    await page.evaluate(`delete window.__live.seen[${JSON.stringify(allBack)}]`);
    const startAt = (await page.evaluate('performance.now()')) as number;
    const started = await post('brokers.start', { brokerId: busiest.id }, 60_000);
    if (!started.ok) throw new Error(`brokers.start: ${started.error.code} ${started.error.message}`);
    const backShownAt = await waitSeen(allBack, `broker ${busiest.id} back and every partition in sync`);
    const windowEnd = performance.now();
    polling = false;
    await poller;
    if (hostSaw.down === undefined || hostSaw.back === undefined) throw new Error('the host never reported the broker down and everything back');
    const longestFrameMs = (await page.evaluate('window.__live.longestFrame')) as number;
    // The flood of ISR changes fills "All events"; the feed's filter still finds the broker's.
    await page.getByTestId('event-filter').click();
    await page.locator('.n-base-select-option', { hasText: 'Brokers and controller' }).click();
    const brokerEvents = await page.locator('[data-testid="event-feed"] li[data-type="broker.stateChanged"]').count();

    const inWindow = [windowStart, ...updates.filter((t) => t > windowStart && t < windowEnd).sort((a, b) => a - b), windowEnd];
    let longestUpdateGapMs = 0;
    for (let i = 1; i < inWindow.length; i++) longestUpdateGapMs = Math.max(longestUpdateGapMs, inWindow[i]! - inWindow[i - 1]!);
    const out: OverviewLive = {
      brokerId: busiest.id,
      leadersMoved: busiest.leaderCount,
      stopShownMs: stopShownAt - stopAt,
      backShownMs: backShownAt - startAt,
      stopLagMs: pageToHere(stopShownAt) - hostSaw.down,
      backLagMs: pageToHere(backShownAt) - hostSaw.back,
      longestUpdateGapMs,
      longestFrameMs,
      brokerEvents,
    };
    log(
      `overview live: broker ${out.brokerId} (leading ${out.leadersMoved.toLocaleString('en-US')}) stopped → shown after ${Math.round(out.stopShownMs)} ms (${Math.round(out.stopLagMs)} ms after the host said so); ` +
        `started → all in sync shown after ${Math.round(out.backShownMs)} ms (${Math.round(out.backLagMs)} ms after the host); ` +
        `longest without news from the host ${Math.round(out.longestUpdateGapMs)} ms, longest frame ${Math.round(out.longestFrameMs)} ms, ${out.brokerEvents} broker events in the feed`,
    );
    return out;
  } finally {
    await page.close().catch(() => {});
  }
}
