/** Formatting shared by the views: cluster time, durations, bytes, rates. */

/**
 * Engine time as the console shows it. A real-time cluster's clock is epoch-based (it carries on
 * across restarts), shown as UTC date and time to the millisecond; a clock started at 0 (tests,
 * drills stepped by hand) as h:mm:ss.mmm.
 */
export function clusterTime(ms: number): string {
  if (ms >= 946_684_800_000) return new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC');
  const total = Math.max(0, Math.floor(ms));
  const h = Math.floor(total / 3_600_000);
  const m = Math.floor((total % 3_600_000) / 60_000);
  const s = Math.floor((total % 60_000) / 1000);
  const milli = total % 1000;
  return `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}.${String(milli).padStart(3, '0')}`;
}

/** A duration in ms as Kafka's docs would say it: 30 s, 5 min, 7 d (whole milliseconds below a second). */
export function duration(ms: number): string {
  if (ms < 1) return ms <= 0 ? '0 ms' : 'under 1 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${+(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${+(ms / 60_000).toFixed(1)} min`;
  if (ms < 86_400_000) return `${+(ms / 3_600_000).toFixed(1)} h`;
  return `${+(ms / 86_400_000).toFixed(1)} d`;
}

/** A byte count in binary units (whole bytes below 1 KiB: a share of a size is rounded, never shown as 123.456 B). */
export function bytes(n: number): string {
  if (Math.round(n) < 1024) return `${Math.round(n)} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** A rate; below 10 it keeps two significant digits, so a trickle (0.0083/s) never reads as 0. */
export function rate(perSec: number, unit = '/s'): string {
  if (perSec > 0 && perSec < 10) return `${+perSec.toPrecision(2)}${unit}`;
  if (perSec >= 1_000_000) return `${(perSec / 1_000_000).toFixed(1)} M${unit}`;
  if (perSec >= 1000) return `${(perSec / 1000).toFixed(1)} k${unit}`;
  return `${Math.round(perSec)}${unit}`;
}
