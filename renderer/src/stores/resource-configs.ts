/**
 * Every config of one resource (`configs.describe`): the cluster-wide broker defaults, one broker
 * or one topic. `useResourceConfigsStore(resource)` is one store per resource, shared by the
 * pages that read it (the configs page, the topic page, the drills' settings, the create wizard's
 * hints). Live while in use: re-read when a `config.changed` event names this resource or the
 * cluster-wide broker default (which every broker and topic inherits), when the topic is deleted
 * or created again, and after a reconnect. An alter's answer (the configs after the change) is
 * shown as it is (`show`).
 */
import { defineStore } from 'pinia';
import { computed } from 'vue';
import type { ConfigEntryView, EngineEvent } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { useLiveQuery } from '../composables/live-query.js';

/** A config resource as the contract names it: a broker by id ('' = cluster-wide default) or a topic. */
export interface ConfigResource {
  type: 'broker' | 'topic';
  name: string;
}

/** `broker:` (cluster-wide default), `broker:1`, `topic:payments`: one string for selects, URLs and store ids. */
export function resourceKey(r: ConfigResource): string {
  return `${r.type}:${r.name}`;
}

/** Whether an event may change what `configs.describe` shows for `r`. */
export function changesConfigsOf(r: ConfigResource, e: EngineEvent): boolean {
  if (e.type === 'config.changed') return (e.resourceType === 'broker' && e.resourceName === '') || (e.resourceType === r.type && e.resourceName === r.name);
  return r.type === 'topic' && (e.type === 'topic.deleted' || e.type === 'topic.created') && e.topic === r.name;
}

function defineResourceConfigsStore(resource: ConfigResource) {
  const key = resourceKey(resource);
  return defineStore(`configs/${key}`, () => {
    const query = useLiveQuery<ConfigEntryView[]>({
      name: `configs ${key}`,
      initial: [],
      read: () => client().call('configs.describe', { resource: { ...resource } }),
      invalidatedBy: (e) => changesConfigsOf(resource, e),
      throttleMs: 200,
    });
    const byName = computed(() => new Map(query.data.value.map((e) => [e.name, e])));
    /** The value of one config as described, or undefined before the first read. */
    const value = (name: string): string | undefined => byName.value.get(name)?.value;

    return {
      resource,
      entries: query.data,
      byName,
      value,
      loaded: query.loaded,
      loading: query.loading,
      /** The last failed describe (UNKNOWN_TOPIC_OR_PARTITION for a topic that does not exist). */
      error: query.error,
      refresh: query.refresh,
      /** Show the configs an alter answered with. */
      show: query.set,
      /** Forget what was read (the resource went away). */
      clear: query.reset,
      acquire: query.acquire,
    };
  });
}

type Definition = ReturnType<typeof defineResourceConfigsStore>;
export type ResourceConfigsStore = ReturnType<Definition>;

const definitions = new Map<string, Definition>();

/** The store of one resource's configs (the same one for every caller). */
export function useResourceConfigsStore(resource: ConfigResource): ResourceConfigsStore {
  const key = resourceKey(resource);
  let def = definitions.get(key);
  if (!def) {
    def = defineResourceConfigsStore({ type: resource.type, name: resource.name });
    definitions.set(key, def);
  }
  return def();
}
