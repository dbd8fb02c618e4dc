/**
 * What the connection this window looks at can offer (`connections.get`'s capability list): a
 * local cluster offers everything; an external Kafka cluster lacks what only a cluster we run can
 * show or do (faults, broker membership, each replica's log, the timeline, clock scale, metrics).
 * Pages read it to disable what cannot work, with the connection's reason in the tooltip, instead
 * of letting a click end in UNSUPPORTED_FOR_CONNECTION, and to say "not reported" instead of
 * showing a zero.
 *
 * Until the list is read, an external connection is taken to lack every capability (with a
 * "checking" reason): nothing destructive is offered that it may not support; a local one lacks
 * nothing. One read per console load: switching connections reloads the console.
 */
import { defineStore } from 'pinia';
import { computed, shallowRef } from 'vue';
import type { Capability, CapabilityView } from '../../../app/api/capabilities.js';
import { activeConnection } from '../api/active-connection.js';
import { client } from '../api/instance.js';

const CHECKING = 'Checking what this connection offers…';

export const useCapabilitiesStore = defineStore('capabilities', () => {
  const connection = activeConnection();
  const external = connection?.kind === 'external';
  const list = shallowRef<CapabilityView[] | null>(null);
  let loading: Promise<void> | null = null;

  /** Read the connection's capabilities (once; again after a failure). */
  function load(): Promise<void> {
    if (!external || list.value) return Promise.resolve();
    loading ??= client()
      .call('connections.get', { id: connection!.id })
      .then((c) => void (list.value = c.capabilities))
      .catch(() => undefined)
      .finally(() => (loading = null));
    return loading;
  }

  const missing = computed(() => new Map((list.value ?? []).filter((c) => !c.available).map((c) => [c.name, c.reason ?? c.title])));

  /** Why `capability` is not available on this connection, or null when it is. */
  function unavailable(capability: Capability): string | null {
    if (!external) return null;
    if (!list.value) return CHECKING;
    return missing.value.get(capability) ?? null;
  }

  /** Whether the connection offers `capability`. */
  function can(capability: Capability): boolean {
    return unavailable(capability) === null;
  }

  return { external, list, load, unavailable, can };
});
