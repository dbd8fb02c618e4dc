import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrameReader } from './frame-reader.js';

function sized(payload: number[]): number[] {
  const n = payload.length;
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255, ...payload];
}

describe('FrameReader', () => {
  it('returns frames whole however the stream is cut into chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 40 }), { maxLength: 8 }), fc.array(fc.integer({ min: 1, max: 17 })), (payloads, cuts) => {
        const stream = payloads.flatMap(sized);
        const reader = new FrameReader(1000);
        const got: number[][] = [];
        let at = 0;
        let i = 0;
        while (at < stream.length) {
          const n = cuts.length ? cuts[i++ % cuts.length]! : stream.length;
          const result = reader.push(Uint8Array.from(stream.slice(at, at + n)));
          expect('error' in result).toBe(false);
          got.push(...result.frames.map((f) => [...f]));
          at += n;
        }
        expect(got).toEqual(payloads);
        expect(reader.bufferedBytes).toBe(0);
      }),
    );
  });

  it('keeps an incomplete frame until the rest arrives, holding only the bytes received', () => {
    const reader = new FrameReader(1 << 20);
    expect(reader.push(Uint8Array.from([0, 0x0f, 0x42, 0x40, 1, 2])).frames).toEqual([]); // size 1,000,000
    expect(reader.bufferedBytes).toBe(6);
  });

  it('fails for good on a size above socket.request.max.bytes or below zero, as Kafka closes the connection', () => {
    const big = new FrameReader(100);
    const result = big.push(Uint8Array.from(sized(new Array<number>(101).fill(0))));
    expect(result).toMatchObject({ error: expect.stringMatching(/invalid frame size 101 \(socket.request.max.bytes is 100\)/) });
    expect(big.push(Uint8Array.from(sized([1]))).frames).toEqual([]);
    expect(new FrameReader(100).push(Uint8Array.from([0xff, 0xff, 0xff, 0xfe]))).toMatchObject({ error: expect.stringMatching(/size -2/) });
  });

  it('accepts a frame of exactly the limit', () => {
    const reader = new FrameReader(5);
    expect(reader.push(Uint8Array.from(sized([1, 2, 3, 4, 5]))).frames.map((f) => [...f])).toEqual([[1, 2, 3, 4, 5]]);
  });
});
