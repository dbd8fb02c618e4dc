/**
 * What the console benchmarks share (ui-topics.ts, ui-topic-detail.ts): the console build to
 * serve, percentiles, the still page's frame interval, the page's main-thread CPU from a Chromium
 * trace, and contract calls over HTTP with the host's token.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { CDPSession } from 'playwright-core';
import type { ServedHost } from '../e2e/support/harness.js';
import { makeTempDir } from './produce-throughput.js';
import type { Post } from './ui-live.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function median(values: number[]): number {
  return percentile([...values].sort((a, b) => a - b), 50);
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (!entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** The console to serve: E2E_STATIC, else dist/renderer if up to date, else a fresh temp build. */
export async function consoleBuild(timeoutMs: number): Promise<{ dir: string; label: string; temp: boolean }> {
  if (process.env.E2E_STATIC) return { dir: process.env.E2E_STATIC, label: `E2E_STATIC=${process.env.E2E_STATIC}`, temp: false };
  const dist = join(ROOT, 'dist', 'renderer');
  const index = join(dist, 'index.html');
  const sources = Math.max(newestMtime(join(ROOT, 'renderer')), newestMtime(join(ROOT, 'app', 'api')));
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return { dir: dist, label: 'dist/renderer (up to date)', temp: false };
  const out = makeTempDir('replica-bench-console-');
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '-c', 'vite.renderer.config.ts', '--outDir', out, '--emptyOutDir', '--logLevel', 'warn'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`building the console took over ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`vite build exited with ${code}: ${stderr}`));
    });
  });
  return { dir: out, label: `fresh build (${Math.round(performance.now() - started)} ms)`, temp: true };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The deltas between animation frames of the still page for `ms` (nothing scrolls). */
export const IDLE_FRAMES = `((ms) => new Promise((resolve) => {
  const deltas = [];
  let start = 0;
  let last = 0;
  const frame = (t) => {
    if (start === 0) start = t;
    else deltas.push(t - last);
    last = t;
    if (t - start >= ms) return resolve(deltas);
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}))`;

/**
 * Scroll the element `selector` by `step` px per frame for `ms`, wrapping at the end; resolves
 * with the frame deltas and the pixels passed.
 */
export function scrollLoop(selector: string): string {
  return `(([ms, step]) => new Promise((resolve) => {
  const el = document.querySelector(${JSON.stringify(selector)});
  if (!el) return resolve({ deltas: [], scrolled: 0 });
  const max = el.scrollHeight - el.clientHeight;
  const deltas = [];
  let last = 0;
  let start = 0;
  let top = el.scrollTop;
  let scrolled = 0;
  const frame = (t) => {
    if (start === 0) { start = t; last = t; }
    else { deltas.push(t - last); last = t; }
    if (t - start >= ms) return resolve({ deltas, scrolled });
    const next = top + step > max ? 0 : top + step;
    scrolled += Math.abs(next - top);
    top = next;
    el.scrollTop = next;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}))`;
}

/** A trace event as Chromium's JSON trace format writes it (the fields read here). */
interface TraceEvent {
  ph: string;
  name: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

/**
 * End the trace started on `cdp` and sum the thread time (CPU, not wall time) of the top-level
 * tasks on the page's main thread (`CrRendererMain`), ms. Nested events are inside their task.
 */
export async function mainThreadCpu(cdp: CDPSession): Promise<number> {
  const complete = new Promise<{ stream?: string }>((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.end');
  const { stream } = await complete;
  if (!stream) return NaN;
  let text = '';
  for (;;) {
    const chunk = await cdp.send('IO.read', { handle: stream });
    text += chunk.base64Encoded ? Buffer.from(chunk.data, 'base64').toString() : chunk.data;
    if (chunk.eof) break;
  }
  await cdp.send('IO.close', { handle: stream });
  const parsed = JSON.parse(text) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);
  const main = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const tasks = events.filter((e) => e.ph === 'X' && e.tdur !== undefined && e.dur !== undefined && main.has(`${e.pid}:${e.tid}`)).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  let cpuUs = 0;
  let end = -Infinity;
  for (const e of tasks) {
    if (e.ts < end) continue; // inside the task counted before it
    cpuUs += e.tdur!;
    end = e.ts + e.dur!;
  }
  return cpuUs / 1000;
}

export function poster(host: ServedHost): Post {
  return async (method, body, timeoutMs = 30_000) => {
    const res = await fetch(`${host.origin}/api/${method}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return (await res.json()) as never;
  };
}

