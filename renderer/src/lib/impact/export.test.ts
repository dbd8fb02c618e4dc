import { describe, expect, it } from 'vitest';
import type { PartitionImpactView, StopImpactView } from '../../../../app/api/impact-contract.js';
import { IMPACT_CSV_COLUMNS, impactCsv, impactFileName } from './export.js';

const partition = (topic: string, over: Partial<PartitionImpactView> = {}): PartitionImpactView => ({
  topic,
  partition: 0,
  replicas: [2, 3],
  effectiveMinIsr: 2,
  uncleanLeaderElectionEnable: false,
  before: { leader: 2, isr: [2, 3], elr: [], lastKnownElr: [], outcome: 'available' },
  after: { leader: 3, isr: [3], elr: [], lastKnownElr: [], outcome: 'under-min-isr' },
  leaderMoves: true,
  electedFrom: 'isr',
  elrLost: false,
  ...over,
});

const view = (partitions: PartitionImpactView[]): StopImpactView => ({
  stopped: [2, 5],
  elrEnabled: false,
  partitionCount: partitions.length,
  before: { offline: 0, 'unclean-only': 0, 'unclean-elected': 0, 'under-min-isr': 0, available: partitions.length },
  after: { offline: 0, 'unclean-only': 0, 'unclean-elected': 0, 'under-min-isr': partitions.length, available: 0 },
  leaderMoves: partitions.length,
  elrLost: 0,
  partitions,
  touched: partitions.length,
  coordinators: [],
  racks: [],
});

describe('impactCsv', () => {
  it('writes a header and one row per partition, lists space-separated', () => {
    const lines = impactCsv(view([partition('orders')])).trimEnd().split('\n');
    expect(lines[0]).toBe(IMPACT_CSV_COLUMNS.join(','));
    expect(lines[1]).toBe('orders,0,2 3,available,under-min-isr,2,3,isr,2 3,3,,,2,false');
  });

  it('quotes a topic name a spreadsheet would split (Kafka topic names cannot hold commas, but a row must never shift)', () => {
    const lines = impactCsv(view([partition('a,"b"', { electedFrom: null, leaderMoves: false })])).trimEnd().split('\n');
    expect(lines[1]!.startsWith('"a,""b""",0,')).toBe(true);
    expect(lines[1]!.split(',').length).toBe(IMPACT_CSV_COLUMNS.length + 1);
  });

  it('names the file after the stopped brokers', () => {
    expect(impactFileName(view([]), 'csv')).toBe('impact-stop-brokers-2-5.csv');
  });
});
