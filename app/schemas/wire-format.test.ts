import { describe, expect, it } from 'vitest';
import { frame, readHeader, readMessageIndexes, writeHeader } from './wire-format.js';

describe("Confluent's wire format", () => {
  it('frames a schema id big-endian after the magic byte', () => {
    const bytes = frame(writeHeader(258), Uint8Array.of(9, 9));
    expect([...bytes]).toEqual([0, 0, 0, 1, 2, 9, 9]);
    expect(readHeader(bytes)).toEqual({ schemaId: 258, payloadOffset: 5 });
    expect(readHeader(Uint8Array.of(1, 0, 0, 0, 1))).toBeNull();
    expect(readHeader(Uint8Array.of(0, 0, 0))).toBeNull();
  });

  it('writes the first message as the single byte 0 and other paths as zigzag varints', () => {
    expect([...writeHeader(1, [0])]).toEqual([0, 0, 0, 0, 1, 0]);
    // [2, 0]: count 2 → 4, 2 → 4, 0 → 0 (zigzag doubles non-negative numbers).
    const h = writeHeader(1, [2, 0]);
    expect([...h.subarray(5)]).toEqual([4, 4, 0]);
    expect(readMessageIndexes(h, 5)).toEqual({ indexes: [2, 0], next: 8 });
    expect(readMessageIndexes(Uint8Array.of(0), 0)).toEqual({ indexes: [0], next: 1 });
    const big = writeHeader(1, [70]);
    expect(readMessageIndexes(big, 5).indexes).toEqual([70]);
    expect(() => readMessageIndexes(Uint8Array.of(4, 4), 0)).toThrow(/truncated/);
  });
});
