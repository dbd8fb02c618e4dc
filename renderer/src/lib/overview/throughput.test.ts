import { describe, expect, it } from 'vitest';
import type { MetricsView } from '../../../../app/api/contract.js';
import { average, brokerRates, bytesPerSec, recordsPerSec } from './throughput.js';

const sample = (atMs: number, over: Partial<MetricsView> = {}): MetricsView => ({
  atMs,
  intervalMs: 1000,
  produceRecordsPerSec: 0,
  produceBytesPerSec: 0,
  consumeRecordsPerSec: 0,
  replicationBytesPerSec: 0,
  brokers: [],
  ...over,
});

describe('the Overview’s headline rates', () => {
  it('reads records and bytes from one window: one record of 5,760 B in 120 s is not "0 rec/s · 48 B/s"', () => {
    const samples = Array.from({ length: 120 }, (_, i) => sample(1000 * (i + 1), i === 60 ? { produceRecordsPerSec: 1, produceBytesPerSec: 5760 } : {}));
    const records = average(samples, (s) => s.produceRecordsPerSec);
    const bytes = average(samples, (s) => s.produceBytesPerSec);
    expect(bytesPerSec(bytes)).toBe('48 B/s');
    expect(recordsPerSec(records)).toBe('0.0083 rec/s');
    // The same record's bytes over the same seconds: bytes per record is the record's size.
    expect(bytes / records).toBeCloseTo(5760);
  });

  it('weights each sample by its interval (a seeded sample of 5 s counts five times one of 1 s)', () => {
    const samples = [sample(5000, { intervalMs: 5000, produceRecordsPerSec: 10 }), sample(6000, { produceRecordsPerSec: 40 })];
    expect(average(samples, (s) => s.produceRecordsPerSec)).toBeCloseTo(15);
    expect(average([], (s) => s.produceRecordsPerSec)).toBe(0);
  });

  it('keeps a byte rate below 1 B/s readable and per-broker rates on the same window', () => {
    expect(bytesPerSec(0.25)).toBe('0.25 B/s');
    expect(bytesPerSec(0)).toBe('0 B/s');
    const per = brokerRates([
      sample(1000, { brokers: [{ brokerId: 1, produceBytesPerSec: 100, replicationBytesInPerSec: 0, replicationBytesOutPerSec: 50 } as MetricsView['brokers'][number]] }),
      sample(2000, { brokers: [{ brokerId: 1, produceBytesPerSec: 0, replicationBytesInPerSec: 0, replicationBytesOutPerSec: 0 } as MetricsView['brokers'][number]] }),
    ]);
    expect(per.get(1)).toEqual({ inPerSec: 50, outPerSec: 25 });
  });
});
