/**
 * The benchmark's figures: how each is judged (a ratio against a limit: throughput against a
 * limit measured in the same run with goal GOAL, a latency or a resource within a limit with goal
 * 1), the console's figures from one `measureUiTopics` run, the table printed and the results file
 * they are merged into. `run.ts` measures; this file only shapes and records what it measured.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sqliteVersion } from './produce-throughput.js';
import type { UiTopicDetailResult } from './ui-topic-detail.js';
import type { UiTopicsResult } from './ui-topics.js';

/** Throughput figures pass at value / limit ≥ GOAL. */
export const GOAL = 0.5;

export interface Figure {
  name: string;
  value: number;
  unit: string;
  limit: number;
  ratio: number;
  goal: number;
  pass: boolean;
  /** What else the run measured alongside (not judged). */
  context?: Record<string, number>;
}

export interface Machine {
  cpu: string;
  cores: number;
  node: string;
  sqlite: string;
  platform: string;
  /** The 1-minute load average when the run started: on a shared machine, how busy it was. */
  loadAverage?: number;
}

export interface Results {
  machine: Machine;
  figures: Figure[];
}

/**
 * A scroll frame is on time below this many of the display's frame intervals, measured on the
 * still page in the same run (ui-topics.ts): rAF deltas come in whole intervals give or take a
 * little jitter, so 1.5 separates one interval (~16.7 ms at 60 Hz, the goal of issue 17) from two.
 */
export const UI_FRAME_LATE_INTERVALS = 1.5;
export const RESULTS_FILE = join(dirname(fileURLToPath(import.meta.url)), 'results', 'latest.json');

export function machine(): Machine {
  const cpu = cpus();
  return { cpu: cpu[0]?.model.trim() ?? 'unknown', cores: cpu.length, node: process.version, sqlite: sqliteVersion(), platform: `${platform()} ${release()}`, loadAverage: Math.round(loadavg()[0]! * 100) / 100 };
}

export function figure(name: string, value: number, unit: string, limit: number): Figure {
  const ratio = limit > 0 ? value / limit : 0;
  return { name, value: round(value), unit, limit: round(limit), ratio: Math.round(ratio * 1000) / 1000, goal: GOAL, pass: ratio >= GOAL };
}

/** A latency figure: it passes at value ≤ limit, so its ratio is limit / value and its goal 1. */
export function latencyFigure(name: string, value: number, limit: number, context?: Record<string, number>): Figure {
  const ratio = value > 0 ? limit / value : 0;
  return { name, value: round(value), unit: 'ms', limit, ratio: Math.round(ratio * 1000) / 1000, goal: 1, pass: ratio >= 1, ...(context ? { context } : {}) };
}

export function round(n: number): number {
  return n >= 100 ? Math.round(n) : Math.round(n * 100) / 100;
}

/** Merge `figures` into the results file: same name replaces, other figures stay. */
export function writeResults(m: Machine, figures: Figure[]): Results {
  let previous: Figure[] = [];
  if (existsSync(RESULTS_FILE)) {
    try {
      const parsed = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Partial<Results>;
      if (Array.isArray(parsed.figures)) previous = parsed.figures;
    } catch {
      console.warn(`${RESULTS_FILE} is not valid JSON; starting it afresh.`);
    }
  }
  const byName = new Map(previous.map((f) => [f.name, f]));
  // Each figure keeps the load it was measured under: the file mixes runs of different days and loads.
  for (const f of figures) byName.set(f.name, f.context?.loadAverage !== undefined || m.loadAverage === undefined ? f : { ...f, context: { ...f.context, loadAverage: m.loadAverage } });
  const results: Results = { machine: m, figures: [...byName.values()] };
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  return results;
}

export function printTable(figures: Figure[]): void {
  const rows = [
    ['name', 'value', 'unit', 'limit', 'ratio', 'goal', 'pass'],
    ...figures.map((f) => [f.name, fmt(f.value), f.unit, fmt(f.limit), f.ratio.toFixed(3), String(f.goal), f.pass ? 'yes' : 'NO']),
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]): string => r.map((cell, c) => (c === 0 || c === 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  console.log(line(rows[0]!));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows.slice(1)) console.log(line(r));
}

export function pct(share: number): string {
  return `${Math.round(share * 100)}%`;
}

export function fmt(n: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

/** A figure whose value must reach `limit` (its ratio is value / limit, its goal 1). */
export function atLeastFigure(name: string, value: number, unit: string, limit: number): Figure {
  const ratio = limit > 0 ? value / limit : 0;
  return { name, value: round(value), unit, limit, ratio: Math.round(ratio * 1000) / 1000, goal: 1, pass: ratio >= 1 };
}

/** A figure whose value must not exceed `limit` (its ratio is limit / value, its goal 1). */
export function withinFigure(name: string, value: number, unit: string, limit: number): Figure {
  const ratio = value > 0 ? limit / value : 0;
  return { name, value: round(value), unit, limit, ratio: Math.round(ratio * 1000) / 1000, goal: 1, pass: ratio >= 1 };
}

/**
 * The console's figures from one `measureUiTopics` run, named `${prefix}.topics.first-render`,
 * `${prefix}.topics.scroll-frame-p95` (limit: UI_FRAME_LATE_INTERVALS of the still page's frame
 * interval in the same run) and `${prefix}.<page>.open`, the first render and each page within `openLimitMs`.
 */
export function uiFigures(prefix: string, ui: UiTopicsResult, openLimitMs: number): Figure[] {
  const out: Figure[] = [
    latencyFigure(`${prefix}.topics.first-render`, ui.firstRenderMs, openLimitMs, {
      minMs: round(Math.min(...ui.loadsMs)),
      maxMs: round(Math.max(...ui.loadsMs)),
      inAppMs: round(ui.inAppMs),
      domContentLoadedMs: round(ui.phases.domContentLoadedMs),
      topicsListSentMs: round(ui.phases.listSentMs),
      topicsListReceivedMs: round(ui.phases.listReceivedMs),
      topicsListHttpMs: round(ui.listMs),
      rowsInDom: ui.rowsInDom,
      topics: ui.topics,
      partitions: ui.partitions,
    }),
    latencyFigure(`${prefix}.topics.scroll-frame-p95`, ui.frames.p95Ms, round(UI_FRAME_LATE_INTERVALS * ui.frames.idleIntervalMs), {
      p50Ms: round(ui.frames.p50Ms),
      maxMs: round(ui.frames.maxMs),
      idleFrameIntervalMs: round(ui.frames.idleIntervalMs),
      frames: ui.frames.count,
      framesOver50Ms: ui.frames.over50Ms,
      rowsScrolled: ui.frames.scrolledRows,
      mainThreadCpuMsPerFrame: round(ui.frames.mainThreadCpuMsPerFrame),
      partitions: ui.partitions,
    }),
  ];
  // The Overview, Brokers and Balance pages opened fresh.
  for (const p of ui.pages) {
    out.push(
      latencyFigure(`${prefix}.${p.page}.open`, p.medianMs, openLimitMs, {
        minMs: round(Math.min(...p.loadsMs)),
        maxMs: round(Math.max(...p.loadsMs)),
        largestApiBytes: p.largestApiBytes,
        partitions: ui.partitions,
      }),
    );
  }
  return out;
}


/** The topic page of one wide topic (ui-topic-detail.ts): its first render and the partition table's scroll. */
export function topicDetailFigures(prefix: string, r: UiTopicDetailResult, firstRenderLimitMs: number): Figure[] {
  return [
    latencyFigure(`${prefix}.first-render`, r.firstRenderMs, firstRenderLimitMs, {
      minMs: round(Math.min(...r.loadsMs)),
      maxMs: round(Math.max(...r.loadsMs)),
      rowsInDom: r.rowsInDom,
      largestApiBytes: r.largestApiBytes,
      domContentLoadedMs: round(r.phases.domContentLoadedMs),
      describeSentMs: round(r.phases.describeSentMs),
      describeReceivedMs: round(r.phases.describeReceivedMs),
      partitions: r.partitions,
      loadAverage: r.loadAverage,
    }),
    latencyFigure(`${prefix}.scroll-frame-p95`, r.frames.p95Ms, round(UI_FRAME_LATE_INTERVALS * r.frames.idleIntervalMs), {
      p50Ms: round(r.frames.p50Ms),
      maxMs: round(r.frames.maxMs),
      idleFrameIntervalMs: round(r.frames.idleIntervalMs),
      frames: r.frames.count,
      framesOver50Ms: r.frames.over50Ms,
      rowsScrolled: r.frames.scrolledRows,
      mainThreadCpuMsPerFrame: round(r.frames.mainThreadCpuMsPerFrame),
      partitions: r.partitions,
      loadAverage: r.loadAverage,
    }),
  ];
}
