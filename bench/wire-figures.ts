/**
 * The wire figures (issue 36): produce through the Kafka listener of an engine in a child process
 * (wire-produce.ts) for 100 B and 1 KiB records, uncompressed and lz4, each against the engine's
 * in-process produce of records of the same size measured in the same run — records/s, and
 * records per CPU second of the engine's process against the in-process engine's (goal ≥
 * WIRE_GOAL each) — with the produce latency's p50 and p99 beside them; and the consumer that
 * then reads the 100 B log back from the start through the listener, against CONSUME_LIMIT.
 */
import { fmt, pct, round, atLeastFigure, type Figure } from './figures.js';
import { MAX_IN_FLIGHT, MIN_INSYNC_REPLICAS, RECORDS_PER_REQUEST, REPLICATION_FACTOR, type WindowOptions } from './produce-throughput.js';
import { measureWireProduce, type WireLoad } from './wire-produce.js';

/** What the wire must reach of the in-process engine, records/s and per CPU second (issue 36). */
export const WIRE_GOAL = 0.85;
/** A consumer through the listener reads 100 B records at least this fast (issue 36). */
export const CONSUME_LIMIT = 1_000_000;

export const WIRE_LOADS: readonly WireLoad[] = [
  { valueBytes: 100, compression: 'none' },
  { valueBytes: 100, compression: 'lz4' },
  { valueBytes: 1024, compression: 'none' },
  { valueBytes: 1024, compression: 'lz4' },
];

/** The in-process engine's produce of one record size in this run: the limit of the wire figures. */
export interface InProcessProduce {
  recordsPerSec: number;
  recordsPerCpuSec: number;
}

const sizeLabel = (bytes: number): string => (bytes % 1024 === 0 ? `${bytes / 1024}KiB` : `${bytes}B`);

/** `wire.produce.rf3.acks-all.100B.records`, `…1KiB.lz4.records`, …: the figure names of one load. */
export function wireFigureName(load: WireLoad): string {
  return `wire.produce.rf3.acks-all.${sizeLabel(load.valueBytes)}${load.compression === 'none' ? '' : `.${load.compression}`}`;
}

function ratioFigure(name: string, value: number, unit: string, limit: number, context?: Record<string, number>): Figure {
  const ratio = limit > 0 ? value / limit : 0;
  return { name, value: round(value), unit, limit: round(limit), ratio: Math.round(ratio * 1000) / 1000, goal: WIRE_GOAL, pass: ratio >= WIRE_GOAL, ...(context ? { context } : {}) };
}

/**
 * Every load of `loads` whose record size has an in-process figure in `inProcess`, one engine
 * process each; a load that fails is reported and has no figures.
 */
export async function wireFigures(inProcess: ReadonlyMap<number, InProcessProduce>, window: WindowOptions, loads: readonly WireLoad[] = WIRE_LOADS): Promise<Figure[]> {
  console.log(
    `wire produce: engine in a child process with Kafka listeners, RF=${REPLICATION_FACTOR}, acks=all, min.insync.replicas=${MIN_INSYNC_REPLICAS}, 1 partition; ` +
      `our load generator: ${MAX_IN_FLIGHT} connections to the leader, one Produce v7 of ${RECORDS_PER_REQUEST} records outstanding on each; then one consumer catches up with Fetch v11; ` +
      `limits: the in-process produce of the same record size above (goal ≥ ${WIRE_GOAL} of it)`,
  );
  const figures: Figure[] = [];
  for (const load of loads) {
    const limit = inProcess.get(load.valueBytes);
    if (!limit || limit.recordsPerSec <= 0) {
      console.warn(`skipping ${wireFigureName(load)}: no in-process ${sizeLabel(load.valueBytes)} figure in this run`);
      continue;
    }
    try {
      const w = await measureWireProduce(load, window);
      const cpuRatio = w.recordsPerEngineCpuSec / limit.recordsPerCpuSec;
      console.log(
        `  ${sizeLabel(load.valueBytes)} ${load.compression} (${fmt(w.batchBytes)} B batches): ${fmt(Math.round(w.recordsPerSec))} records/s (${w.requests} requests acked, ${w.errors} errors), ` +
          `latency p50 ${w.p50Ms.toFixed(1)} ms, p99 ${w.p99Ms.toFixed(1)} ms; in-process ${fmt(Math.round(limit.recordsPerSec))} records/s (ratio ${(w.recordsPerSec / limit.recordsPerSec).toFixed(3)})`,
      );
      console.log(
        `        per CPU second: the engine's process ${fmt(Math.round(w.recordsPerEngineCpuSec))} records (it had the CPU ${pct(w.engineCpuShare)} of the window), ` +
          `in-process ${fmt(Math.round(limit.recordsPerCpuSec))} (ratio ${cpuRatio.toFixed(3)}); consumer catch-up ${fmt(Math.round(w.catchUpRecordsPerSec))} records/s over ${fmt(w.catchUpRecords)} records ` +
          `(${fmt(Math.round(w.catchUpRecordsPerEngineCpuSec))} per engine CPU second)`,
      );
      if (w.errors > 0) console.warn(`        warning: ${w.errors} produce requests failed`);
      const name = wireFigureName(load);
      const context = { p50Ms: round(w.p50Ms), p99Ms: round(w.p99Ms), errors: w.errors, batchBytes: w.batchBytes, engineCpuShare: round(w.engineCpuShare), catchUpRecordsPerSec: Math.round(w.catchUpRecordsPerSec) };
      figures.push(ratioFigure(`${name}.records`, w.recordsPerSec, 'records/s', limit.recordsPerSec, context));
      figures.push(ratioFigure(`${name}.records-per-cpu-second`, w.recordsPerEngineCpuSec, 'records/CPU s', limit.recordsPerCpuSec));
      if (load.valueBytes === 100 && load.compression === 'none') {
        figures.push({
        ...atLeastFigure('wire.consume.100B.records', w.catchUpRecordsPerSec, 'records/s', CONSUME_LIMIT),
        context: { records: w.catchUpRecords, recordsPerEngineCpuSec: Math.round(w.catchUpRecordsPerEngineCpuSec) },
      });
      }
    } catch (e) {
      console.warn(`${wireFigureName(load)} failed, no figures: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return figures;
}
