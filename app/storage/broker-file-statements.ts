/**
 * The SQL of a broker's file, prepared once per file, and the shapes of the rows it reads back.
 *
 * Apart from the replica log and the broker's store that both run them (sqlite-replica-log.ts,
 * sqlite-broker-store.ts) so the two see one list of statements: preparing them once per file
 * rather than per log is what lets a broker open tens of thousands of logs quickly.
 */
import type { Database, Statement } from 'better-sqlite3';

/** A row of `replicas`: one replica log, with its checkpoint. */
export interface ReplicaRow {
  id: number;
  high_watermark: number;
  log_start_offset: number;
  flushed_offset: number;
}

/** A stored batch as a read returns it. */
export interface BatchRow {
  base_offset: number;
  append_time: number;
  data: Buffer;
}

export type BrokerStatements = Record<
  | 'insertBatch'
  | 'lastBatch'
  | 'totalSize'
  | 'floorBase'
  | 'readRange'
  | 'batchAt'
  | 'deleteFrom'
  | 'deleteBefore'
  | 'deleteOne'
  | 'deleteRange'
  | 'cleanerOffset'
  | 'saveCleanerOffset'
  | 'setLogStart'
  | 'loadEpochs'
  | 'clearEpochs'
  | 'insertEpoch'
  | 'replicaById'
  | 'saveCheckpoint'
  | 'loadSegments'
  | 'clearSegments'
  | 'insertSegment'
  | 'rangeStats'
  | 'replicaByKey'
  | 'insertReplica'
  | 'allReplicaKeys'
  | 'deleteReplicaBatches'
  | 'deleteReplicaEpochs'
  | 'deleteReplicaSegments'
  | 'deleteReplicaRow'
  | 'timeStats'
  | 'replicaCount'
  | 'allSummaries'
  | 'clearSummaries'
  | 'insertSummary',
  Statement
>;

/** Every statement of a broker's file, prepared on `db`. */
export function prepareBrokerStatements(db: Database): BrokerStatements {
  const p = (sql: string): Statement => db.prepare(sql);
  return {
    insertBatch: p('INSERT INTO batches (replica, base_offset, last_offset, leader_epoch, append_time, max_timestamp, size, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
    lastBatch: p('SELECT last_offset FROM batches WHERE replica = ? ORDER BY base_offset DESC LIMIT 1'),
    totalSize: p('SELECT sum(size) AS total FROM batches WHERE replica = ?'),
    floorBase: p('SELECT max(base_offset) AS base FROM batches WHERE replica = ? AND base_offset <= ?'),
    readRange: p('SELECT base_offset, append_time, data FROM batches WHERE replica = ? AND base_offset >= ? AND base_offset < ? ORDER BY base_offset'),
    batchAt: p('SELECT base_offset, last_offset, append_time, data FROM batches WHERE replica = ? AND base_offset <= ? AND last_offset >= ?'),
    deleteFrom: p('DELETE FROM batches WHERE replica = ? AND base_offset >= ?'),
    deleteBefore: p('DELETE FROM batches WHERE replica = ? AND last_offset < ?'),
    deleteOne: p('DELETE FROM batches WHERE replica = ? AND base_offset = ?'),
    deleteRange: p('DELETE FROM batches WHERE replica = ? AND base_offset >= ? AND base_offset < ?'),
    cleanerOffset: p('SELECT cleaner_offset FROM replicas WHERE id = ?'),
    saveCleanerOffset: p('UPDATE replicas SET cleaner_offset = ? WHERE id = ?'),
    setLogStart: p('UPDATE replicas SET log_start_offset = ? WHERE id = ?'),
    loadEpochs: p('SELECT epoch, start_offset FROM epochs WHERE replica = ? ORDER BY epoch'),
    clearEpochs: p('DELETE FROM epochs WHERE replica = ?'),
    insertEpoch: p('INSERT INTO epochs (replica, epoch, start_offset) VALUES (?, ?, ?)'),
    replicaById: p('SELECT id, high_watermark, log_start_offset, flushed_offset FROM replicas WHERE id = ?'),
    saveCheckpoint: p('UPDATE replicas SET high_watermark = ?, log_start_offset = ?, flushed_offset = ? WHERE id = ?'),
    loadSegments: p('SELECT base_offset, created_ms FROM segments WHERE replica = ? ORDER BY base_offset'),
    clearSegments: p('DELETE FROM segments WHERE replica = ?'),
    insertSegment: p('INSERT INTO segments (replica, base_offset, created_ms) VALUES (?, ?, ?)'),
    rangeStats: p('SELECT sum(size) AS bytes, max(max_timestamp) AS ts, max(append_time) AS at FROM batches WHERE replica = ? AND base_offset >= ? AND base_offset < ?'),
    // Prepared once: opening 20,000 replica logs spent most of its time preparing these.
    replicaByKey: p('SELECT id, high_watermark, log_start_offset, flushed_offset FROM replicas WHERE key = ?'),
    insertReplica: p('INSERT INTO replicas (key) VALUES (?)'),
    allReplicaKeys: p('SELECT key FROM replicas ORDER BY key'),
    deleteReplicaBatches: p('DELETE FROM batches WHERE replica = ?'),
    deleteReplicaEpochs: p('DELETE FROM epochs WHERE replica = ?'),
    deleteReplicaSegments: p('DELETE FROM segments WHERE replica = ?'),
    deleteReplicaRow: p('DELETE FROM replicas WHERE id = ?'),
    timeStats: p('SELECT max(max_timestamp) AS ts, max(append_time) AS at FROM batches WHERE replica = ?'),
    replicaCount: p('SELECT count(*) AS n FROM replicas'),
    allSummaries: p('SELECT replica, last_offset, bytes, max_timestamp, max_append_time FROM replica_summary'),
    clearSummaries: p('DELETE FROM replica_summary'),
    insertSummary: p('INSERT INTO replica_summary (replica, last_offset, bytes, max_timestamp, max_append_time) VALUES (?, ?, ?, ?, ?)'),
  };
}
