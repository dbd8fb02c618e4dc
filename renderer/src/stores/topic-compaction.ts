/**
 * The Compaction section of the topic page: `topics.compaction` for the open topic, kept current
 * while the section is shown (the cleaner's events, config changes and high-watermark moves of
 * this topic re-read it, with a 2 s poll as the fallback: the dirty ratio moves with every write).
 * On an external cluster the method answers UNSUPPORTED_FOR_CONNECTION, which the section shows
 * with its reason. No DOM access, so it runs in Node.
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { TopicCompactionView } from '../../../app/api/compaction-contract.js';
import type { EngineEvent } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { useLiveQuery } from '../composables/live-query.js';

const POLL_MS = 2_000;

export const useTopicCompactionStore = defineStore('topic-compaction', () => {
  const name = ref<string | null>(null);
  const concerns = (e: EngineEvent): boolean =>
    (e.type === 'log.cleaned' || e.type === 'log.uncleanable' || e.type === 'highWatermark.advanced' || e.type === 'replica.truncated') && e.topic === name.value
      ? true
      : e.type === 'config.changed' && (e.resourceType === 'broker' || e.resourceName === name.value);
  const query = useLiveQuery<TopicCompactionView | null>({
    name: 'topic compaction',
    initial: null,
    read: async () => (name.value ? client().call('topics.compaction', { name: name.value }) : null),
    invalidatedBy: concerns,
    throttleMs: 500,
    pollMs: POLL_MS,
  });

  /** Show `topic` (and read it) while the returned release has not been called. */
  function watch(topic: string): () => void {
    if (name.value !== topic) {
      name.value = topic;
      query.reset();
    }
    return query.acquire();
  }

  return { name, view: query.data, loaded: query.loaded, error: query.error, refresh: query.refresh, watch };
});
