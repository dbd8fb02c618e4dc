/**
 * The Impact page: "if these brokers or racks stop", asked of the cluster (`impact.ofStop`, the
 * controller's own rules over its live metadata and configs) — a question, nothing is changed, so
 * no confirmation even on an external cluster. The answer stays until the next question; the
 * export asks again for every partition, not only the listed ones.
 */
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { StopImpactView } from '../../../app/api/impact-contract.js';
import { client } from '../api/instance.js';
import { describeError } from '../lib/notify.js';

/** Partitions shown in the page's table (the counts cover all of them). */
export const IMPACT_PAGE_LIMIT = 2_000;
/** Partitions an export holds at most. */
export const IMPACT_EXPORT_LIMIT = 1_000_000;

export const useImpactStore = defineStore('impact', () => {
  const brokers = ref<number[]>([]);
  const racks = ref<string[]>([]);
  const result = shallowRef<StopImpactView | null>(null);
  const running = ref(false);
  const error = shallowRef<{ title: string; message: string; help?: string } | null>(null);

  function input(limit: number) {
    return { ...(brokers.value.length ? { brokers: [...brokers.value] } : {}), ...(racks.value.length ? { racks: [...racks.value] } : {}), limit };
  }

  async function predict(): Promise<StopImpactView | null> {
    running.value = true;
    error.value = null;
    try {
      result.value = await client().call('impact.ofStop', input(IMPACT_PAGE_LIMIT));
      return result.value;
    } catch (e) {
      error.value = describeError(e);
      result.value = null;
      return null;
    } finally {
      running.value = false;
    }
  }

  /** The same question with every touched partition listed, for a file. */
  async function full(): Promise<StopImpactView | null> {
    try {
      return await client().call('impact.ofStop', input(IMPACT_EXPORT_LIMIT));
    } catch (e) {
      error.value = describeError(e);
      return null;
    }
  }

  return { brokers, racks, result, running, error, predict, full };
});
