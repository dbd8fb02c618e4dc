/**
 * The main window's size and position, remembered across runs in `<userData>/window-state.json`.
 * What is read back is checked: numbers only, at least the window's minimum size, and on a
 * display that still exists (a monitor unplugged since last time would otherwise leave the
 * window off-screen) — otherwise the defaults apply. No electron import: the displays are passed in.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export interface WindowBounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized?: boolean;
}

export interface Area {
  x: number;
  y: number;
  width: number;
  height: number;
}

export const DEFAULT_BOUNDS: WindowBounds = { width: 1400, height: 900 };
export const MIN_SIZE = { width: 900, height: 600 };

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** Parse saved state; anything malformed or off every display gives the defaults. */
export function restoreBounds(text: string | undefined, displays: readonly Area[]): WindowBounds {
  if (!text) return DEFAULT_BOUNDS;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return DEFAULT_BOUNDS;
  }
  if (typeof raw !== 'object' || raw === null) return DEFAULT_BOUNDS;
  const r = raw as Record<string, unknown>;
  if (!isInt(r.width) || !isInt(r.height)) return DEFAULT_BOUNDS;
  const width = Math.max(MIN_SIZE.width, r.width);
  const height = Math.max(MIN_SIZE.height, r.height);
  const maximized = r.maximized === true;
  if (!isInt(r.x) || !isInt(r.y)) return { width, height, maximized };
  const x = r.x;
  const y = r.y;
  // Keep the position only if the window's title bar area (top-left 100×40) is on some display.
  const visible = displays.some((d) => x + 100 > d.x && x < d.x + d.width && y >= d.y && y + 40 <= d.y + d.height);
  return visible ? { x, y, width, height, maximized } : { width, height, maximized };
}

export function loadBounds(file: string, displays: readonly Area[]): WindowBounds {
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    text = undefined;
  }
  return restoreBounds(text, displays);
}

export function saveBounds(file: string, bounds: WindowBounds): void {
  try {
    writeFileSync(file, JSON.stringify(bounds));
  } catch {
    // Losing the window position is not worth an error dialog.
  }
}
