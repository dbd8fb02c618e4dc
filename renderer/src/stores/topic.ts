/**
 * One topic and its partitions (`topics.describe`), shared by every page that watches it (the
 * topic page, the drills' watched partition): `useTopicStore(name)` is one store per topic name,
 * so two pages on the same topic share one live query.
 *
 * Live while in use: events of this topic (high watermark, ISR, leader, truncation, reassignment,
 * its configs) and broker or controller changes trigger a throttled re-read, a 1 s poll is the
 * fallback, and a reconnect re-reads at once. Every read also re-reads the shared brokers store
 * and lands after it, so the brokers' states are never older than the partitions shown with them
 * (an offline partition is never explained with its broker still "running"). A topic that does not exist (or was deleted) reads
 * as `notFound` with no topic, not as an error; a topic created again under the same name is
 * read afresh.
 */
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { EngineEvent, TopicView } from '../../../app/api/contract.js';
import { ClientError } from '../api/client.js';
import { client } from '../api/instance.js';
import { useLiveQuery } from '../composables/live-query.js';
import { useBrokersStore } from './brokers.js';

const POLL_MS = 1000;
const THROTTLE_MS = 200;

export function isNotFound(e: unknown): boolean {
  return e instanceof ClientError && (e.code === 'UNKNOWN_TOPIC_OR_PARTITION' || e.code === 'UNKNOWN_TOPIC_ID');
}

/** The topic an event is about (by name or id), or null for cluster-wide events. */
export function topicOf(e: EngineEvent): string | null {
  if ('topic' in e) return e.topic;
  if (e.type === 'config.changed' && e.resourceType === 'topic') return e.resourceName;
  return null;
}

function defineTopicStore(name: string) {
  return defineStore(`topic/${name}`, () => {
    const brokers = useBrokersStore();
    const notFound = ref(false);
    /** Engine time of the last successful read. */
    const updatedAt = ref<number | null>(null);

    const concerns = (e: EngineEvent): boolean => {
      const t = topicOf(e);
      return t !== null && (t === name || t === query.data.value?.topicId);
    };

    const query = useLiveQuery<TopicView | null>({
      name: `topic ${name}`,
      initial: null,
      async read() {
        try {
          const [t, clock] = await Promise.all([client().call('topics.describe', { name }), client().call('clock.get', {}), brokers.refresh()]);
          notFound.value = false;
          updatedAt.value = clock.nowMs;
          return t;
        } catch (e) {
          if (!isNotFound(e)) throw e;
          notFound.value = true;
          return null;
        }
      },
      invalidatedBy: (e) => e.type === 'broker.stateChanged' || e.type === 'controller.changed' || (concerns(e) && e.type !== 'topic.deleted' && e.type !== 'topic.created'),
      onEvent(e) {
        if (e.type === 'topic.deleted' && e.topic === name) {
          notFound.value = true;
          query.set(null);
        } else if (e.type === 'topic.created' && e.topic === name) {
          void query.refresh();
        }
      },
      throttleMs: THROTTLE_MS,
      pollMs: POLL_MS,
    });

    /** Show the topic as an action answered with it (`partitions.add`); reads in flight are dropped. */
    function show(t: TopicView): void {
      notFound.value = false;
      query.set(t);
    }

    /** The topic was deleted from this console. */
    function gone(): void {
      notFound.value = true;
      query.set(null);
    }

    return {
      name,
      topic: query.data,
      notFound,
      updatedAt,
      loaded: query.loaded,
      loading: query.loading,
      /** The last failure to read the topic (not-found is `notFound`). */
      error: query.error,
      refresh: query.refresh,
      show,
      gone,
      acquire: query.acquire,
    };
  });
}

type TopicStoreDefinition = ReturnType<typeof defineTopicStore>;
export type TopicStore = ReturnType<TopicStoreDefinition>;

const definitions = new Map<string, TopicStoreDefinition>();

/** The store of topic `name` (the same one for every caller). */
export function useTopicStore(name: string): TopicStore {
  let def = definitions.get(name);
  if (!def) {
    def = defineTopicStore(name);
    definitions.set(name, def);
  }
  return def();
}
