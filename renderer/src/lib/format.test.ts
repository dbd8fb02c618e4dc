import { describe, expect, it } from 'vitest';
import { bytes, duration, rate } from './format.js';

describe('formatting for people', () => {
  it('says a duration below a second in whole milliseconds, never with the float’s digits', () => {
    expect(duration(0.3806114196777344)).toBe('under 1 ms');
    expect(duration(0)).toBe('0 ms');
    expect(duration(12.6)).toBe('13 ms');
    expect(duration(999.4)).toBe('999 ms');
    expect(duration(1500)).toBe('1.5 s');
    expect(duration(90_000)).toBe('1.5 min');
    expect(duration(604_800_000)).toBe('7 d');
  });

  it('says bytes in whole bytes below 1 KiB and in binary units above', () => {
    expect(bytes(123.456)).toBe('123 B');
    expect(bytes(1023.7)).toBe('1.0 KiB');
    expect(bytes(1536)).toBe('1.5 KiB');
    expect(bytes(10 * 1024 * 1024)).toBe('10 MiB');
  });

  it('rounds rates, keeping two digits of a trickle so it never reads as 0', () => {
    expect(rate(12.4)).toBe('12/s');
    expect(rate(0.008333)).toBe('0.0083/s');
    expect(rate(0)).toBe('0/s');
    expect(rate(4.04)).toBe('4/s');
    expect(rate(1_500)).toBe('1.5 k/s');
  });
});
