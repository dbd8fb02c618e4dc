/**
 * The records the cluster acknowledged to this console in this session (from the Messages page,
 * the drills' producer and the scripted drills), with the leader epoch and append time each
 * produce answer named. The drills page checks them against what the partition holds now; any
 * page that produces only adds to it.
 */
import { defineStore } from 'pinia';
import { shallowRef } from 'vue';
import type { AcknowledgedRecord } from '../lib/drills/data-loss.js';

/** Oldest records go first past this many. */
export const MAX_ACKNOWLEDGED = 20_000;

export const useAcknowledgedStore = defineStore('acknowledged', () => {
  /** Oldest first. */
  const records = shallowRef<readonly AcknowledgedRecord[]>([]);

  function note(list: readonly AcknowledgedRecord[]): void {
    if (list.length === 0) return;
    records.value = [...records.value, ...list].slice(-MAX_ACKNOWLEDGED);
  }

  return { records, note };
});
