import { describe, expect, it } from 'vitest';
import { MIB, throttleFromMiB } from './throttle.js';

describe('the reassignment throttle typed in MiB/s', () => {
  it('sends what was typed, in bytes per second, and says nothing when it is whole bytes', () => {
    expect(throttleFromMiB(10)).toEqual({ ok: true, bytesPerSec: 10 * MIB, note: null });
  });

  it('keeps a small rate as typed (0.001 MiB/s is 1,049 bytes/s, not 0.01 MiB/s) and says it was rounded to whole bytes', () => {
    const t = throttleFromMiB(0.001);
    expect(t).toMatchObject({ ok: true, bytesPerSec: 1049 });
    expect(t.ok && t.note).toContain('1,049 bytes/s is sent');
  });

  it('refuses what cannot be sent, with the reason', () => {
    expect(throttleFromMiB(0)).toMatchObject({ ok: false });
    expect(throttleFromMiB(-1)).toMatchObject({ ok: false });
    expect(throttleFromMiB(null)).toMatchObject({ ok: false });
    const tiny = throttleFromMiB(1e-8);
    expect(tiny.ok).toBe(false);
    expect(!tiny.ok && tiny.error).toContain('whole bytes per second');
  });
});
