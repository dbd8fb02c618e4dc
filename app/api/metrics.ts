/**
 * Throughput figures: the result of `metrics.get` and the payload of the `metrics.sampled` event.
 * A module of their own so that the event map (events.ts) and the views (views.ts) both build on
 * them without importing each other.
 */

/** One broker's throughput over the last second of engine time, and its disk use. */
export interface BrokerMetricsView {
  brokerId: number;
  /** Bytes of record batches this broker appended as a partition leader from produce requests (its `BytesInPerSec`). */
  produceBytesPerSec: number;
  /** Bytes this broker received as a follower in replica fetch responses (Kafka's `ReplicationBytesInPerSec`). */
  replicationBytesInPerSec: number;
  /** Bytes this broker sent as a leader in replica fetch responses (Kafka's `ReplicationBytesOutPerSec`). */
  replicationBytesOutPerSec: number;
  /** Disk use at the sample: as `BrokerView.logBytes`. */
  logBytes: number;
}

/**
 * Throughput of the cluster over the last second of engine time (`metrics.get`, and the payload
 * of the `metrics.sampled` event the engine emits once per second of engine time).
 *
 * Produce figures count what partition leaders appended from produce requests, acknowledged or
 * not: an acks=all write that later times out counts, a write the leader refused
 * (NOT_ENOUGH_REPLICAS, NOT_LEADER_OR_FOLLOWER, MESSAGE_TOO_LARGE, …) does not — Kafka's
 * `MessagesInPerSec` / `BytesInPerSec`. Bytes are record-batch bytes as the log stores them (Kafka's
 * v2 batch size). Rates are whole counts per second: the sampling interval is one second.
 */
export interface MetricsView {
  /** Engine time the sample was taken at (the end of its one-second window). */
  atMs: number;
  /** Length of the sampled window in ms: 1000, or 0 before the first sample (every rate is then 0). */
  intervalMs: number;
  /** Records appended by partition leaders from produce requests, per second. */
  produceRecordsPerSec: number;
  /** Record-batch bytes appended by partition leaders from produce requests, per second. */
  produceBytesPerSec: number;
  /** Records returned to the in-app consumer (`records.consume`), per second. */
  consumeRecordsPerSec: number;
  /** Bytes leaders sent in replica fetch responses, per second (the sum of every broker's `replicationBytesOutPerSec`). */
  replicationBytesPerSec: number;
  /** Every broker, by id. */
  brokers: BrokerMetricsView[];
}

/** `metrics.get` asked for a history: the latest sample, and the samples of the window asked for, oldest first. */
export interface MetricsWithHistoryView extends MetricsView {
  /** Present when `historyMs` was given: the samples the service kept from that much engine time (up to 10 min), oldest first. */
  history?: MetricsView[];
}

/** One topic's data and traffic, as a topic list shows it (`topics.stats`). */
export interface TopicStatsView {
  name: string;
  /** Records consumers can read: the high watermark minus the log start offset, summed over the partitions. */
  records: number;
  /** Bytes of the partition leaders' logs (record batches as stored). */
  sizeBytes: number;
  /** Records committed (the high watermark's advance) per second of engine time over the last minute. */
  recordsPerSec: number;
}
