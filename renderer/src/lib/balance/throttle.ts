/**
 * The replication throttle of a reassignment as the Execute dialog takes it: typed in MiB/s,
 * sent in whole bytes per second (`kafka-reassign-partitions.sh --throttle` and the
 * `*.replication.throttled.rate` configs are longs). What is sent is said when it differs from
 * what was typed, and a value that cannot be sent is refused with the reason; nothing is changed
 * silently. Pure: no Vue.
 */

export const MIB = 1024 * 1024;

export type ThrottleCheck = { ok: true; bytesPerSec: number; note: string | null } | { ok: false; error: string };

const grouped = (n: number): string => n.toLocaleString('en-US');

/** The throttle for `mib` MiB/s per broker, or why it cannot be one. */
export function throttleFromMiB(mib: number | null | undefined): ThrottleCheck {
  if (mib === null || mib === undefined || !Number.isFinite(mib)) return { ok: false, error: 'Type a rate in MiB/s, or turn the throttle off.' };
  if (mib <= 0) return { ok: false, error: 'A throttle must be above 0 MiB/s: to copy at full speed, turn the throttle off.' };
  const exact = mib * MIB;
  const bytesPerSec = Math.round(exact);
  if (bytesPerSec < 1) return { ok: false, error: `${mib} MiB/s is ${exact.toPrecision(3)} bytes/s: Kafka's throttle is in whole bytes per second, so the lowest is 1 byte/s (about 0.000001 MiB/s).` };
  if (!Number.isSafeInteger(bytesPerSec)) return { ok: false, error: `${mib} MiB/s is more bytes per second than a throttle can hold.` };
  const note = bytesPerSec === exact ? null : `${mib} MiB/s is ${exact.toFixed(3)} bytes/s; Kafka's throttle is whole bytes, so ${grouped(bytesPerSec)} bytes/s is sent.`;
  return { ok: true, bytesPerSec, note };
}
