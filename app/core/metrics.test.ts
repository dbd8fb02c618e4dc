import { describe, expect, it } from 'vitest';
import { BrokerTraffic, emptyMetrics, MetricsSampler } from './metrics.js';

function traffic(produceRecords: number, produceBytes: number, replicationBytesIn = 0, replicationBytesOut = 0): BrokerTraffic {
  return Object.assign(new BrokerTraffic(), { produceRecords, produceBytes, replicationBytesIn, replicationBytesOut });
}

describe('the metrics sampler', () => {
  it("turns the counters' growth over each second into rates", () => {
    const sampler = new MetricsSampler();
    const b1 = traffic(0, 0);
    const b2 = traffic(0, 0);
    sampler.sample(1_000, 0, [{ id: 2, traffic: b2, logBytes: 0 }, { id: 1, traffic: b1, logBytes: 0 }], 0);
    Object.assign(b1, { produceRecords: 30, produceBytes: 3_000, replicationBytesOut: 3_000 });
    Object.assign(b2, { replicationBytesIn: 3_000 });
    const s = sampler.sample(2_000, 0, [{ id: 2, traffic: b2, logBytes: 3_000 }, { id: 1, traffic: b1, logBytes: 3_000 }], 12);
    expect(s).toEqual({
      atMs: 2_000,
      intervalMs: 1_000,
      produceRecordsPerSec: 30,
      produceBytesPerSec: 3_000,
      consumeRecordsPerSec: 12,
      replicationBytesPerSec: 3_000,
      brokers: [
        { brokerId: 1, produceBytesPerSec: 3_000, replicationBytesInPerSec: 0, replicationBytesOutPerSec: 3_000, logBytes: 3_000 },
        { brokerId: 2, produceBytesPerSec: 0, replicationBytesInPerSec: 3_000, replicationBytesOutPerSec: 0, logBytes: 3_000 },
      ],
    });
    expect(sampler.latest).toBe(s);
  });

  it('starts a broker that was removed and added again under the same id from zero', () => {
    const sampler = new MetricsSampler();
    sampler.sample(1_000, 0, [{ id: 1, traffic: traffic(500, 50_000), logBytes: 0 }], 0);
    const s = sampler.sample(2_000, 0, [{ id: 1, traffic: traffic(2, 200), logBytes: 0 }], 0);
    expect(s).toMatchObject({ produceRecordsPerSec: 2, produceBytesPerSec: 200, brokers: [{ brokerId: 1, produceBytesPerSec: 200 }] });
  });

  it('reports zeros with the current disk use before the first sample', () => {
    expect(emptyMetrics(42, [{ id: 3, traffic: traffic(9, 9), logBytes: 77 }])).toEqual({
      atMs: 42,
      intervalMs: 0,
      produceRecordsPerSec: 0,
      produceBytesPerSec: 0,
      consumeRecordsPerSec: 0,
      replicationBytesPerSec: 0,
      brokers: [{ brokerId: 3, produceBytesPerSec: 0, replicationBytesInPerSec: 0, replicationBytesOutPerSec: 0, logBytes: 77 }],
    });
  });
});
