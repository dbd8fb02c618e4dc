/**
 * A broker's SQLite file: the store of its replica logs (sqlite-replica-log.ts), which lists,
 * opens and deletes them, and its clean-shutdown state.
 *
 * A broker lists its replicas just before it opens them all, so listing reads every log of the
 * file in bulk (five queries for the whole file instead of six per log). A clean shutdown writes a
 * summary of every log (`replica_summary`) that the next start reads instead of every batch; the
 * first batch change after it empties it.
 */
import type { BrokerDiskState, BrokerLogStore, ReplicaLogStore } from '../core/log/log-store.js';
import { prepareBrokerStatements, type BrokerStatements, type ReplicaRow } from './broker-file-statements.js';
import { guard } from './sqlite-errors.js';
import { TailBudget } from './batch-tail.js';
import type { SqliteFile } from './sqlite-file.js';
import { SqliteReplicaLog, type Preloaded } from './sqlite-replica-log.js';

/** Per-log figures of the batches: from reading them all, or from a clean shutdown's summary. */
interface StatsRow {
  replica: number;
  last: number;
  bytes: number;
  ts: number;
  at: number;
}

export class SqliteBrokerStore implements BrokerLogStore {
  readonly statements: BrokerStatements;
  private readonly replicas = new Map<string, SqliteReplicaLog>();
  /** Replica logs listed but not opened yet, with what one bulk read knows about each. */
  private preloaded = new Map<string, Preloaded>();
  /**
   * Whether `replica_summary` may hold rows: true until this process has emptied it, again once a
   * clean shutdown wrote it. The first change to any batch after that empties it (one DELETE), so
   * a summary on disk always describes the batches on disk.
   */
  summaryMayExist = true;
  /** The memory budget the replica logs' tails share. */
  readonly tails: TailBudget;

  constructor(readonly file: SqliteFile) {
    this.tails = new TailBudget();
    this.statements = prepareBrokerStatements(file.db);
  }

  replica(key: string): ReplicaLogStore {
    let r = this.replicas.get(key);
    if (r) return r;
    const pre = this.preloaded.get(key);
    if (pre) {
      this.preloaded.delete(key);
      r = new SqliteReplicaLog(this, pre.row.id, pre.row, pre);
      this.replicas.set(key, r);
      return r;
    }
    const s = this.statements;
    let row = s.replicaByKey.get(key) as ReplicaRow | undefined;
    if (!row) {
      const id = this.file.write('create a replica log in', () => s.insertReplica.run(key)).lastInsertRowid;
      row = { id: Number(id), high_watermark: 0, log_start_offset: 0, flushed_offset: 0 };
    }
    r = new SqliteReplicaLog(this, row.id, row);
    this.replicas.set(key, r);
    return r;
  }

  /**
   * Keys of every replica log in the file. The logs not opened yet are read in bulk at the same
   * time (five queries for the whole file instead of six per log): a broker lists its replicas
   * just before it opens them all.
   */
  replicaKeys(): string[] {
    const db = this.file.db;
    return guard(this.file.path, 'read', () => {
      const rows = db.prepare('SELECT id, key, high_watermark, log_start_offset, flushed_offset FROM replicas ORDER BY key').all() as (ReplicaRow & { key: string })[];
      const byId = new Map<number, Preloaded>();
      this.preloaded = new Map();
      for (const r of rows) {
        if (this.replicas.has(r.key)) continue;
        const pre: Preloaded = { row: { id: r.id, high_watermark: r.high_watermark, log_start_offset: r.log_start_offset, flushed_offset: r.flushed_offset }, lastOffset: null, bytes: 0, maxTimestamp: -1, maxAppendTimeMs: -1, epochs: [], segments: [] };
        byId.set(r.id, pre);
        this.preloaded.set(r.key, pre);
      }
      if (byId.size > 0) {
        const stats = this.summariesFor(byId) ?? (db.prepare('SELECT replica, max(last_offset) AS last, sum(size) AS bytes, max(max_timestamp) AS ts, max(append_time) AS at FROM batches GROUP BY replica').all() as StatsRow[]);
        for (const st of stats) {
          const pre = byId.get(st.replica);
          if (!pre) continue;
          pre.lastOffset = st.last;
          pre.bytes = st.bytes;
          pre.maxTimestamp = st.ts;
          pre.maxAppendTimeMs = st.at;
        }
        for (const e of db.prepare('SELECT replica, epoch, start_offset FROM epochs ORDER BY replica, epoch').all() as { replica: number; epoch: number; start_offset: number }[]) {
          byId.get(e.replica)?.epochs.push({ epoch: e.epoch, startOffset: e.start_offset });
        }
        for (const g of db.prepare('SELECT replica, base_offset, created_ms FROM segments ORDER BY replica, base_offset').all() as { replica: number; base_offset: number; created_ms: number }[]) {
          byId.get(g.replica)?.segments.push({ baseOffset: g.base_offset, createdMs: g.created_ms });
        }
      }
      return rows.map((r) => r.key);
    });
  }

  /**
   * The per-log figures the last clean shutdown wrote, when the broker stopped cleanly and they
   * cover every log listed (Kafka skips log recovery after a clean shutdown likewise); undefined
   * otherwise, and the caller reads every batch instead.
   */
  private summariesFor(byId: ReadonlyMap<number, Preloaded>): StatsRow[] | undefined {
    if (!this.loadState().cleanShutdown) return undefined;
    const rows = this.statements.allSummaries.all() as { replica: number; last_offset: number | null; bytes: number; max_timestamp: number; max_append_time: number }[];
    const covered = new Set(rows.map((r) => r.replica));
    for (const id of byId.keys()) if (!covered.has(id)) return undefined;
    return rows.filter((r) => r.last_offset !== null).map((r) => ({ replica: r.replica, last: r.last_offset!, bytes: r.bytes, ts: r.max_timestamp, at: r.max_append_time }));
  }

  /** Empty `replica_summary`: a batch is about to change. */
  dropSummary(): void {
    this.file.write('forget the replica summaries of', () => this.statements.clearSummaries.run());
    this.summaryMayExist = false;
  }

  /**
   * At a clean shutdown: what opening each log will need of its batches (last offset, bytes,
   * largest timestamps), one row per log. Written only when this process knows every log of the
   * file (it lists them all when the broker starts); otherwise left empty, and the next start reads
   * every batch.
   */
  private writeSummary(): void {
    const s = this.statements;
    s.clearSummaries.run();
    this.summaryMayExist = false;
    const total = (s.replicaCount.get() as { n: number }).n;
    if (this.replicas.size + this.preloaded.size !== total) return;
    for (const log of this.replicas.values()) {
      const m = log.summary();
      s.insertSummary.run(log.rowId, m.lastOffset, m.bytes, m.maxTimestamp, m.maxAppendTimeMs);
    }
    for (const pre of this.preloaded.values()) s.insertSummary.run(pre.row.id, pre.lastOffset, pre.bytes, pre.maxTimestamp, pre.maxAppendTimeMs);
    this.summaryMayExist = true;
  }

  hasReplica(key: string): boolean {
    return this.replicas.has(key) || this.statements.replicaByKey.get(key) !== undefined;
  }

  deleteReplica(key: string): void {
    const s = this.statements;
    const row = s.replicaByKey.get(key) as ReplicaRow | undefined;
    this.replicas.get(key)?.dropTail();
    this.replicas.delete(key);
    this.preloaded.delete(key);
    if (!row) return;
    if (this.summaryMayExist) this.dropSummary();
    this.file.write('delete a replica log from', () => {
      for (const st of [s.deleteReplicaBatches, s.deleteReplicaEpochs, s.deleteReplicaSegments, s.deleteReplicaRow]) st.run(row.id);
    });
  }

  totalBytes(): number {
    return guard(this.file.path, 'read', () => (this.file.db.prepare('SELECT sum(size) AS total FROM batches').get() as { total: number | null }).total ?? 0);
  }

  loadState(): BrokerDiskState {
    const row = this.file.db.prepare('SELECT clean_shutdown, last_broker_epoch, power_lost FROM broker_state WHERE id = 1').get() as
      | { clean_shutdown: number; last_broker_epoch: number; power_lost: number }
      | undefined;
    if (!row) return { cleanShutdown: false, lastBrokerEpoch: -1, powerLost: false };
    return { cleanShutdown: row.clean_shutdown === 1, lastBrokerEpoch: row.last_broker_epoch, powerLost: row.power_lost === 1 };
  }

  saveState(state: BrokerDiskState): void {
    // The summary first: a clean-shutdown mark is never on disk without the summary it vouches for.
    if (state.cleanShutdown) this.file.write('summarise the replica logs of', () => this.writeSummary());
    this.file.write('save the broker state in', () =>
      this.file.db
        .prepare(
          'INSERT INTO broker_state (id, clean_shutdown, last_broker_epoch, power_lost) VALUES (1, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET clean_shutdown = excluded.clean_shutdown, last_broker_epoch = excluded.last_broker_epoch, power_lost = excluded.power_lost',
        )
        .run(state.cleanShutdown ? 1 : 0, state.lastBrokerEpoch, state.powerLost ? 1 : 0),
    );
  }
}
