/**
 * What a broker process is made from: its id and rack, the clock, network and random source it
 * shares with the rest of the cluster, its disk (which outlives the process), its static configs,
 * the engine's ports for record bytes, and where it reports events and changes.
 *
 * Apart from the broker (broker.ts), which is the process these build: the cluster assembles
 * these once per broker, and the broker hands parts of them on (coordinator-hosts.ts).
 */
import type { EngineEvent } from '../../api/events.js';
import type { CleanedBatchWriter } from '../log/cleaner/cleaned-batch.js';
import type { BrokerLogStore } from '../log/log-store.js';
import type { ProducedBatchValidator } from '../log/produced-batch.js';
import type { GroupRecordCodec } from '../group/record-codec.js';
import type { Network } from '../network.js';
import type { Random } from '../random.js';
import type { Scheduler } from '../time.js';
import type { TxnRecordCodec } from '../txn/record-codec.js';

export interface BrokerDeps {
  id: number;
  rack: string | null;
  scheduler: Scheduler;
  network: Network;
  random: Random;
  disk: BrokerLogStore;
  staticConfigs: Readonly<Record<string, string>>;
  /** The bytes of `__consumer_offsets` records (Kafka's schemas, generated in app/protocol). */
  groupRecords: GroupRecordCodec;
  /** The bytes of `__transaction_state` records (absent: no transactional id is served). */
  txnRecords?: TxnRecordCodec;
  /** Validates Kafka clients' record batches (the LogValidator port). */
  producedBatches?: ProducedBatchValidator;
  /** Writes the batches the log cleaner keeps part of (default: without bytes, storage encodes them). */
  cleanedBatches?: CleanedBatchWriter;
  emit: (event: EngineEvent) => void;
  /** Called whenever something the console shows about this broker may have changed. */
  onChange: (reason: string) => void;
}
