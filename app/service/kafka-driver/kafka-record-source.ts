/**
 * The workbench's `RecordSource` on an external cluster: kafkajs's connections to each
 * partition's leader (Fetch from an offset, ListOffsets for bounds and times), so a search or an
 * export runs in the console's server, not the page, on a real Kafka cluster too. The Fetch is
 * ours and so is its batch decoding (RecordsClient.fetchRaw), so each record carries its batch's
 * codec, timestamp type and producer fields as the embedded driver's do.
 */
import { KafkaError } from '../../api/errors.js';
import type { KafkaAdminClient } from '../../kafka-client/admin-client.js';
import type { RecordSource } from '../workbench/record-source.js';

export function kafkaRecordSource(client: KafkaAdminClient): RecordSource {
  return {
    async partitions(topic) {
      const offsets = await client.offsets(topic);
      return offsets.map((o) => o.partition).sort((a, b) => a - b);
    },
    async bounds(topic, partitions) {
      const offsets = await client.offsets(topic);
      return partitions.map((p) => {
        const o = offsets.find((x) => x.partition === p);
        if (!o) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic ${topic} has no partition ${p}.`);
        return o;
      });
    },
    async offsetForTime(topic, partition, timestampMs) {
      const found = (await client.offsetsForTime(topic, timestampMs)).find((o) => o.partition === partition);
      if (!found) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic ${topic} has no partition ${partition}.`);
      return found.offset;
    },
    async read(topic, partition, fromOffset, maxBytes) {
      const r = await client.records.fetchRaw(topic, partition, fromOffset, maxBytes);
      if (r.errorCode === 'OFFSET_OUT_OF_RANGE') return [];
      if (r.errorCode !== 'NONE') throw new KafkaError(r.errorCode, `Fetching ${topic}-${partition} at offset ${fromOffset} failed with ${r.errorCode}.`);
      return r.records.map((x) => ({ ...x, partition }));
    },
  };
}
