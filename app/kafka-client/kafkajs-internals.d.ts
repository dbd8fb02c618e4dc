// Types for the kafkajs 2.2.4 modules imported below the package's public entry. kafkajs's own
// `Kafka` class builds its cluster behind a private symbol, so one admin client and the requests
// our generated codecs encode could not share connections; these are the same constructors it
// uses (src/index.js), pinned by the exact version in package.json. Only what app/kafka-client uses.

declare module 'kafkajs/src/cluster/index.js' {
  import type { Cluster } from 'kafkajs';
  const ClusterClass: new (options: Record<string, unknown>) => Cluster;
  export default ClusterClass;
}

declare module 'kafkajs/src/admin/index.js' {
  import type { Admin, Cluster, RetryOptions } from 'kafkajs';
  const createAdmin: (options: { logger: unknown; retry?: RetryOptions; cluster: Cluster }) => Admin;
  export default createAdmin;
}

declare module 'kafkajs/src/producer/index.js' {
  import type { Cluster, ICustomPartitioner, Producer, RetryOptions } from 'kafkajs';
  const createProducer: (options: { logger: unknown; retry?: RetryOptions; cluster: Cluster; createPartitioner?: ICustomPartitioner; idempotent?: boolean; transactionalId?: string; transactionTimeout?: number }) => Producer;
  export default createProducer;
}

declare module 'kafkajs/src/loggers/index.js' {
  export const LEVELS: { NOTHING: 0; ERROR: 1; WARN: 2; INFO: 4; DEBUG: 5 };
  export function createLogger(options: { level: number; logCreator: (level: number) => (entry: unknown) => void }): unknown;
}

declare module 'kafkajs/src/network/socketFactory.js' {
  import type { ISocketFactory } from 'kafkajs';
  const defaultSocketFactory: () => ISocketFactory;
  export default defaultSocketFactory;
}

declare module 'kafkajs/src/protocol/message/compression/index.js' {
  /** Codec by attributes value (1 gzip … 4 zstd): a factory of `{ compress(encoder), decompress(buffer) }`. */
  export const Codecs: Record<number, () => unknown>;
  export const Types: { None: 0; GZIP: 1; Snappy: 2; LZ4: 3; ZSTD: 4 };
}

declare module 'kafkajs/src/consumer/batch.js' {
  // kafkajs' own read_committed filter (aborted transactions' records and markers dropped).
  const Batch: new (
    topic: string,
    fetchedOffset: string,
    partitionData: { partition: number; highWatermark: string; abortedTransactions?: { producerId: string; firstOffset: string }[]; messages: unknown[] },
  ) => { messages: { offset: string; key: Buffer | null; value: Buffer | null }[] };
  export default Batch;
}
