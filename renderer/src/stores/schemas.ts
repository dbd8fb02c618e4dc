/**
 * The Schemas page: the cluster's Schema Registry (`schemas.list`, kept current while the page
 * shows: a write to `_schemas` — from this page, the REST API or any client — re-reads it), one
 * subject's versions with two of them side by side, a draft checked against the subject's level
 * (`schemas.check`) and registered (`schemas.register`), and which topics' records carry which
 * schema ids (`schemas.usage`, a bounded scan per topic). On an external connection the methods
 * answer UNSUPPORTED_FOR_CONNECTION, which the page shows with its reason. No DOM access.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { SchemaCheckView, SchemaRegistryView, SchemaUsageView } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { useLiveQuery } from '../composables/live-query.js';
import { prettySchema, sideBySide, type DiffRow } from '../lib/schemas/side-by-side.js';

export type SchemaType = 'AVRO' | 'PROTOBUF' | 'JSON';

/** Records examined per topic by a usage scan (each topic from its log start). */
export const USAGE_SCAN_PER_TOPIC = 10_000;
/** Topics the registry's ids are not looked for in: Kafka's and the registry's own. */
const INTERNAL = new Set(['__consumer_offsets', '__transaction_state', '_schemas']);

export const useSchemasStore = defineStore('schemas', () => {
  const query = useLiveQuery<SchemaRegistryView | null>({
    name: 'schemas',
    initial: null,
    read: () => client().call('schemas.list', {}),
    invalidatedBy: (e) => (e.type === 'highWatermark.advanced' && e.topic === '_schemas') || e.type === 'topic.created',
    throttleMs: 300,
  });

  const subject = ref<string | null>(null);
  const left = ref<number | null>(null);
  const right = ref<number | null>(null);

  const subjects = computed(() => query.data.value?.subjects ?? []);
  const current = computed(() => subjects.value.find((s) => s.subject === subject.value) ?? null);

  /** Show `name`: its previous version on the left, its latest on the right. */
  function select(name: string): void {
    subject.value = name;
    const versions = subjects.value.find((s) => s.subject === name)?.versions ?? [];
    right.value = versions[versions.length - 1]?.version ?? null;
    left.value = versions[versions.length - 2]?.version ?? right.value;
  }

  const versionOf = (v: number | null) => current.value?.versions.find((x) => x.version === v) ?? null;
  const diff = computed<DiffRow[]>(() => {
    const a = versionOf(left.value);
    const b = versionOf(right.value);
    if (!a || !b) return [];
    return sideBySide(prettySchema(a.schema, a.schemaType), prettySchema(b.schema, b.schemaType));
  });

  // ---------------------------------------------------------------- draft
  const draft = ref('');
  const draftType = ref<SchemaType>('AVRO');
  const checked = shallowRef<SchemaCheckView | null>(null);
  const checkError = shallowRef<unknown>(null);
  const checking = ref(false);
  const registered = shallowRef<{ subject: string; id: number } | null>(null);

  /** Start the draft from the subject's latest version. */
  function draftFromLatest(): void {
    const latest = current.value?.versions.filter((v) => !v.deleted).at(-1);
    if (!latest) return;
    draft.value = prettySchema(latest.schema, latest.schemaType);
    draftType.value = latest.schemaType;
    checked.value = null;
    checkError.value = null;
  }

  const draftInput = (target: string) => ({ subject: target, schema: draft.value, schemaType: draftType.value });

  async function check(target: string): Promise<void> {
    checking.value = true;
    registered.value = null;
    try {
      checked.value = await client().call('schemas.check', draftInput(target));
      checkError.value = null;
    } catch (e) {
      checked.value = null;
      checkError.value = e;
    } finally {
      checking.value = false;
    }
  }

  async function register(target: string): Promise<void> {
    checking.value = true;
    try {
      const { id } = await client().call('schemas.register', draftInput(target));
      registered.value = { subject: target, id };
      checked.value = null;
      checkError.value = null;
      await query.refresh();
      select(target);
    } catch (e) {
      registered.value = null;
      checked.value = null;
      checkError.value = e;
    } finally {
      checking.value = false;
    }
  }

  // ---------------------------------------------------------------- usage
  const usage = shallowRef<SchemaUsageView[]>([]);
  const scanning = ref(false);
  const usageError = shallowRef<unknown>(null);
  const scannedAt = ref<number | null>(null);

  /** Every topic but the internal ones, each scanned from its log start for up to USAGE_SCAN_PER_TOPIC records. */
  async function scanUsage(): Promise<void> {
    scanning.value = true;
    usageError.value = null;
    try {
      const topics = (await client().call('topics.list', {})).map((t) => t.name).filter((t) => !INTERNAL.has(t)).sort();
      const found: SchemaUsageView[] = [];
      for (const topic of topics) found.push(await client().call('schemas.usage', { topic, maxScan: USAGE_SCAN_PER_TOPIC }));
      usage.value = found;
      scannedAt.value = Date.now();
    } catch (e) {
      usageError.value = e;
    } finally {
      scanning.value = false;
    }
  }

  /** One row per (id, topic, key/value) carrying it. */
  const usageRows = computed(() =>
    usage.value
      .flatMap((u) => u.ids.map((x) => ({ id: x.id, subjects: x.subjects, topic: u.topic, part: x.part, records: x.records, scanned: u.scanned, complete: u.complete })))
      .sort((a, b) => a.id - b.id || a.topic.localeCompare(b.topic) || a.part.localeCompare(b.part)),
  );

  /** Topics whose scanned records carry `id`. */
  function topicsUsing(id: number): string[] {
    return [...new Set(usageRows.value.filter((r) => r.id === id).map((r) => r.topic))];
  }

  return {
    view: query.data,
    loaded: query.loaded,
    error: query.error,
    refresh: query.refresh,
    acquire: query.acquire,
    subjects,
    subject,
    current,
    left,
    right,
    select,
    diff,
    draft,
    draftType,
    checked,
    checkError,
    checking,
    registered,
    draftFromLatest,
    check,
    register,
    usage,
    usageRows,
    scanning,
    usageError,
    scannedAt,
    scanUsage,
    topicsUsing,
  };
});
