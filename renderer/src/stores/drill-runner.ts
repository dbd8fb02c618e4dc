/**
 * The drills page's scenario runner: the chosen scenario (lib/drills/scenarios.ts), its steps'
 * results in cluster time, and running them one by one (Next) or to the end (Run), stopping at
 * the first step that does not succeed. A run watches the topic its create step made (on the
 * drills store) and adds what the cluster acknowledged to this session's ledger, so the data-loss
 * panel checks it. A faster cluster clock is for watching a run: when the run ends (finished,
 * failed or stopped) the clock goes back to 1×, or it would race on an hour per real minute.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { MethodInput, MethodName } from '../../../app/api/contract.js';
import type { Call } from '../api/client.js';
import { client } from '../api/instance.js';
import { newContext, runStep, type DrillContext, type StepResult } from '../lib/drills/runner.js';
import { SCENARIOS, scenarioById } from '../lib/drills/scenarios.js';
import { useAcknowledgedStore } from './acknowledged.js';
import { useClusterStore } from './cluster.js';
import { useDrillsStore } from './drills.js';

export const useDrillRunnerStore = defineStore('drill-runner', () => {
  const call: Call = <M extends MethodName>(m: M, input: MethodInput<M>) => client().result(m, input);
  const drills = useDrillsStore();
  const ledger = useAcknowledgedStore();
  const scenarioId = ref(SCENARIOS[0]!.id);
  const stepResults = shallowRef<(StepResult | null)[]>([]);
  const stepIndex = ref(0);
  const runningStep = ref<number | null>(null);
  const runningAll = ref(false);
  let ctx: DrillContext | null = null;
  let stopRequested = false;
  /** The clock scale the last run ended at, when the runner put it back to 1×; null otherwise. */
  const restoredFrom = ref<number | null>(null);
  const cluster = useClusterStore();

  /** A run ended: a clock sped up for it goes back to real time. */
  async function endRun(): Promise<void> {
    const clock = await call('clock.get', {});
    if (!clock.ok || clock.value.scale === null || clock.value.scale <= 1) return;
    await cluster.setScale(1);
    restoredFrom.value = clock.value.scale;
  }

  const scenario = computed(() => scenarioById(scenarioId.value) ?? SCENARIOS[0]!);
  const scenarioDone = computed(() => stepIndex.value >= scenario.value.steps.length);

  function selectScenario(id: string): void {
    if (runningStep.value !== null) return;
    scenarioId.value = id;
    resetScenario();
  }

  function resetScenario(): void {
    if (runningStep.value !== null) return;
    stepResults.value = [];
    stepIndex.value = 0;
    restoredFrom.value = null;
    ctx = null;
  }

  /** Run the next step; resolves with its result. */
  async function next(): Promise<StepResult | null> {
    if (runningStep.value !== null || scenarioDone.value) return null;
    const steps = scenario.value.steps;
    const index = stepIndex.value;
    if (index === 0 || !ctx) {
      stopRequested = false;
      restoredFrom.value = null;
      ctx = newContext(call, {
        stopped: () => stopRequested,
        onTopic: (name, p) => {
          void drills.loadTopics();
          void drills.watch(name, p);
        },
        onAcknowledged: ledger.note,
      });
    }
    runningStep.value = index;
    try {
      const result = await runStep(steps[index]!, ctx);
      const results = stepResults.value.slice();
      results[index] = result;
      stepResults.value = results;
      stepIndex.value = index + 1;
      if (stepIndex.value >= steps.length && !runningAll.value) await endRun();
      void drills.refresh();
      if (drills.truncations.length > 0 || drills.uncleanElections.length > 0) void drills.checkLoss({ quiet: true });
      return result;
    } finally {
      runningStep.value = null;
    }
  }

  /** Run the remaining steps; stops at the first one that does not succeed (or on stop()). */
  async function runAll(): Promise<void> {
    if (runningAll.value) return;
    runningAll.value = true;
    stopRequested = false;
    try {
      while (!scenarioDone.value && !stopRequested) {
        const r = await next();
        if (!r || r.status !== 'ok') break;
      }
      await endRun();
    } finally {
      runningAll.value = false;
    }
  }

  function stopScenario(): void {
    stopRequested = true;
  }

  return { scenarioId, scenario, scenarioDone, stepResults, stepIndex, runningStep, runningAll, restoredFrom, selectScenario, resetScenario, next, runAll, stopScenario };
});
