/**
 * The in-app producer and consumer (`records.produce`, `records.consume`). Produce sends the
 * records in one request; the partitioner places each by its own key (or the chosen partition
 * takes them all) and the outcome shows per record: its partition and offset, or the Kafka error that refused it; what the cluster acknowledged
 * joins this session's ledger (the drills page checks it for loss). Consume reads from the
 * partition leader up to the high watermark; "load more" continues after the last record read.
 * The topic picker lists the shared topic list, live while the page shows.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { ConsumedRecordView, ProduceResultView } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { useLeases } from '../composables/live-query.js';
import { acknowledgedRecords, type Acks } from '../lib/drills/data-loss.js';
import { schemasOf, type SchemaChoiceForm } from '../lib/messages/schema-choice.js';
import { notifyError } from '../lib/notify.js';
import { useAcknowledgedStore } from './acknowledged.js';
import { useTopicsStore } from './topics.js';

export interface ProduceForm {
  topic: string;
  /** null: the partitioner chooses (murmur2 of each record's key; records without a key stick to one partition). */
  partition: number | null;
  acks: Acks;
  key: string;
  value: string;
  headers: { key: string; value: string }[];
  /** Records to send; `{n}` in key or value becomes the record's number (0-based). */
  count: number;
  timeoutMs: number;
  /** The batch's codec (a producer's compression.type); the topic's compression.type then applies. */
  compression?: ProduceCompression;
  /** The key's and the value's schema (a subject, its version, a Protobuf message); no subject: sent as typed, else JSON encoded. */
  keySchema?: SchemaChoiceForm;
  valueSchema?: SchemaChoiceForm;
}

/** The codecs a produce batch may use. */
export type ProduceCompression = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

/** The compression choices of the produce forms, with what each means. */
export const COMPRESSION_OPTIONS: { label: string; value: ProduceCompression }[] = [
  { label: 'none', value: 'none' },
  { label: 'gzip', value: 'gzip' },
  { label: 'snappy', value: 'snappy' },
  { label: 'lz4', value: 'lz4' },
  { label: 'zstd', value: 'zstd' },
];

export interface RecordOutcome {
  /** Row id, unique in this session. */
  id: number;
  /** Which produce request (1-based, this session). */
  request: number;
  topic: string;
  partition: number;
  /** null with acks=0 or on error. */
  offset: number | null;
  acks: Acks;
  key: string | null;
  value: string;
  errorCode: ProduceResultView['errorCode'];
  errorMessage?: string;
}

export interface ConsumeParams {
  topic: string;
  partition: number;
  offset: number;
  maxRecords: number;
}

const MAX_OUTCOMES = 1000;

/** `{n}` → the record's number. */
export function expand(template: string, n: number): string {
  return template.replaceAll('{n}', String(n));
}

export const useMessagesStore = defineStore('messages', () => {
  const topicsStore = useTopicsStore();
  const ledger = useAcknowledgedStore();
  const page = useLeases(() => [topicsStore.acquire()]);
  const topics = computed(() => topicsStore.topics);
  const topicsError = computed(() => topicsStore.error);
  const loadingTopics = computed(() => topicsStore.loading);

  const outcomes = shallowRef<RecordOutcome[]>([]);
  const producing = ref(false);
  const produceError = shallowRef<unknown>(null);
  let requests = 0;
  let rowIds = 0;

  const records = shallowRef<ConsumedRecordView[]>([]);
  const highWatermark = ref<number | null>(null);
  const logStartOffset = ref<number | null>(null);
  const consumed = shallowRef<ConsumeParams | null>(null);
  const consuming = ref(false);
  const consumeError = shallowRef<unknown>(null);

  /** Where "load more" continues. */
  const nextOffset = computed(() => {
    const last = records.value[records.value.length - 1];
    return last ? last.offset + 1 : (consumed.value?.offset ?? 0);
  });
  const canLoadMore = computed(() => consumed.value !== null && highWatermark.value !== null && nextOffset.value < highWatermark.value);

  async function loadTopics(): Promise<void> {
    await topicsStore.refresh();
  }

  /** Partition count of a listed topic (0 when unknown). */
  function partitionCount(topic: string): number {
    return topics.value.find((t) => t.name === topic)?.partitionCount ?? 0;
  }

  /** Produce `form.count` records as one batch; every record gets an outcome row. */
  async function produce(form: ProduceForm): Promise<RecordOutcome[]> {
    producing.value = true;
    produceError.value = null;
    const count = Math.max(1, Math.min(10_000, Math.floor(form.count)));
    const headers = form.headers.filter((h) => h.key !== '');
    const batch = Array.from({ length: count }, (_, n) => ({
      key: form.key === '' ? null : expand(form.key, n),
      value: expand(form.value, n),
      ...(headers.length ? { headers: headers.map((h) => ({ key: h.key, value: expand(h.value, n) })) } : {}),
    }));
    const request = ++requests;
    try {
      const r = await client().call('records.produce', {
        topic: form.topic,
        ...(form.partition === null ? {} : { partition: form.partition }),
        acks: form.acks,
        records: batch,
        timeoutMs: form.timeoutMs,
        ...(form.compression && form.compression !== 'none' ? { compression: form.compression } : {}),
        ...schemasOf(form.keySchema, form.valueSchema),
      });
      // Each record's own batch: without a partition, records spread by key over several.
      const rows: RecordOutcome[] = [];
      for (const b of r.batches) {
        const ok = b.errorCode === 'NONE';
        b.records.forEach((index, k) => {
          const rec = batch[index]!;
          rows[index] = {
            id: 0,
            request,
            topic: form.topic,
            partition: b.partition,
            offset: ok && b.baseOffset >= 0 ? b.baseOffset + k : null,
            acks: form.acks,
            key: rec.key,
            value: rec.value,
            errorCode: b.errorCode,
            ...(b.errorMessage ? { errorMessage: b.errorMessage } : {}),
          };
        });
      }
      for (const row of rows) row.id = ++rowIds;
      outcomes.value = [...rows, ...outcomes.value].slice(0, MAX_OUTCOMES);
      ledger.note(acknowledgedRecords(form.topic, form.acks, r, batch.map((rec) => rec.value)));
      // The consumer's bounds are of the partition it read: records produced there move its high watermark.
      const c = consumed.value;
      if (c && c.topic === form.topic && rows.some((row) => row.partition === c.partition)) void refreshBounds();
      return rows;
    } catch (e) {
      produceError.value = e;
      notifyError(e, 'Produce');
      return [];
    } finally {
      producing.value = false;
    }
  }

  function clearOutcomes(): void {
    outcomes.value = [];
  }

  /**
   * Re-read the consumed partition's high watermark and log start offset (after a produce to it),
   * so "Load more" and the bounds shown are the partition's as it is now, not as it was read.
   */
  async function refreshBounds(): Promise<void> {
    const c = consumed.value;
    if (!c) return;
    try {
      const t = await client().call('topics.describe', { name: c.topic });
      const p = t.partitions.find((x) => x.partition === c.partition);
      if (!p || consumed.value !== c) return;
      highWatermark.value = p.highWatermark;
      logStartOffset.value = p.logStartOffset;
    } catch {
      // The bounds stay as last read; the next Consume reads them again.
    }
  }

  /** The log start offset of a partition (where a consumer starting "from the beginning" reads). */
  async function logStartOf(topic: string, partition: number): Promise<number> {
    const t = await client().call('topics.describe', { name: topic });
    return t.partitions.find((p) => p.partition === partition)?.logStartOffset ?? 0;
  }

  async function read(params: ConsumeParams, append: boolean): Promise<void> {
    consuming.value = true;
    try {
      const r = await client().call('records.consume', params);
      records.value = append ? [...records.value, ...r.records] : r.records;
      highWatermark.value = r.highWatermark;
      logStartOffset.value = r.logStartOffset;
      if (!append) consumed.value = params;
      consumeError.value = null;
    } catch (e) {
      consumeError.value = e;
      if (!append) {
        records.value = [];
        consumed.value = params;
      }
      // OFFSET_OUT_OF_RANGE carries the partition's bounds: show them anyway.
      const details = (e as { error?: { details?: { highWatermark?: number; logStartOffset?: number } } }).error?.details;
      if (details?.highWatermark !== undefined) highWatermark.value = details.highWatermark;
      if (details?.logStartOffset !== undefined) logStartOffset.value = details.logStartOffset;
    } finally {
      consuming.value = false;
    }
  }

  /** Read from `offset` (null: the log start offset) up to the high watermark, at most `maxRecords`. */
  async function consume(params: Omit<ConsumeParams, 'offset'> & { offset: number | null }): Promise<void> {
    let offset = params.offset;
    if (offset === null) {
      try {
        offset = await logStartOf(params.topic, params.partition);
      } catch (e) {
        consumeError.value = e;
        return;
      }
    }
    await read({ topic: params.topic, partition: params.partition, offset, maxRecords: params.maxRecords }, false);
  }

  /** Continue after the last record read. */
  async function loadMore(): Promise<void> {
    const c = consumed.value;
    if (!c) return;
    await read({ ...c, offset: nextOffset.value }, true);
  }

  return {
    topics,
    topicsError,
    loadingTopics,
    outcomes,
    producing,
    produceError,
    records,
    highWatermark,
    logStartOffset,
    consumed,
    consuming,
    consumeError,
    nextOffset,
    canLoadMore,
    loadTopics,
    /** Keep the topic list live while the page shows (idempotent); `stop()` when it goes. */
    start: page.start,
    stop: page.stop,
    partitionCount,
    produce,
    clearOutcomes,
    consume,
    loadMore,
    refreshBounds,
  };
});
