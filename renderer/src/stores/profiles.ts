/**
 * The Profiles page: built-in and imported config profiles, the one being looked at, and what can
 * be done with it — diff (against another profile or the live cluster), export (profile JSON,
 * server.properties, kafka-topics.sh / kafka-configs.sh commands, client properties), import
 * (validated by the engine, which names every bad field), and apply: always a dry-run plan first
 * (`profiles.apply` defaults to dryRun), then the real apply the user confirms.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { ApplyPlanView, ExportedFileView, ProfileIssueView, ProfileSummaryView, ProfileView, SettingChangeView } from '../../../app/api/contract.js';
import { ClientError } from '../api/client.js';
import { client } from '../api/instance.js';
import { notifyError, notifySuccess } from '../lib/notify.js';

/** `profiles.export` formats, in the order the page offers them. */
export const EXPORT_FORMATS = [
  { value: 'profile', label: 'Profile JSON' },
  { value: 'server-properties', label: 'server.properties (per broker)' },
  { value: 'topic-commands', label: 'kafka-topics.sh / kafka-configs.sh commands' },
  { value: 'client-properties', label: 'producer / consumer properties' },
] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number]['value'];

/** What a diff compared: `to` null = the live cluster against profile `from`. */
export interface DiffResult {
  from: string;
  to: string | null;
  changes: SettingChangeView[];
}

/** An import the engine refused: every problem with its field path (or one message). */
export type ImportOutcome = { ok: true; name: string; warnings: ProfileIssueView[] } | { ok: false; code: string; message: string; issues: ProfileIssueView[] };

/** What the pasted/loaded text would import as, read before sending (for the overwrite check). */
export interface ImportTarget {
  /** The profile's `name`, when the text is JSON with a string name. */
  name: string | null;
  /** An imported profile of that name exists (importing needs overwrite). */
  exists: boolean;
  /** A built-in profile has that name (the engine refuses it). */
  builtIn: boolean;
}

function issuesOf(e: ClientError): ProfileIssueView[] {
  const details = e.error.details as { errors?: unknown } | undefined;
  if (!details || !Array.isArray(details.errors)) return [];
  return details.errors.filter((x): x is ProfileIssueView => !!x && typeof x === 'object' && typeof (x as ProfileIssueView).path === 'string' && typeof (x as ProfileIssueView).message === 'string');
}

export const useProfilesStore = defineStore('profiles', () => {
  const list = shallowRef<ProfileSummaryView[]>([]);
  const loading = ref(false);
  const error = shallowRef<unknown>(null);
  const selectedName = ref<string | null>(null);
  const profile = shallowRef<ProfileView | null>(null);
  const profileLoading = ref(false);
  const profileError = shallowRef<unknown>(null);
  const diff = shallowRef<DiffResult | null>(null);
  const diffLoading = ref(false);
  const diffError = shallowRef<unknown>(null);
  const exported = shallowRef<ExportedFileView[]>([]);
  const exportLoading = ref(false);
  const exportError = shallowRef<unknown>(null);
  const plan = shallowRef<ApplyPlanView | null>(null);
  const planLoading = ref(false);
  const planError = shallowRef<unknown>(null);
  let selectGeneration = 0;

  const selected = computed(() => list.value.find((p) => p.name === selectedName.value) ?? null);

  async function refresh(): Promise<void> {
    loading.value = true;
    try {
      list.value = await client().call('profiles.list', {});
      error.value = null;
    } catch (e) {
      error.value = e;
    } finally {
      loading.value = false;
    }
  }

  /** Open one profile: its settings with their rationale; clears the previous one's results. */
  async function select(name: string | null): Promise<void> {
    const gen = ++selectGeneration;
    if (name !== selectedName.value) {
      diff.value = null;
      diffError.value = null;
      exported.value = [];
      exportError.value = null;
      plan.value = null;
      planError.value = null;
    }
    selectedName.value = name;
    profile.value = null;
    profileError.value = null;
    if (name === null) return;
    profileLoading.value = true;
    try {
      const p = await client().call('profiles.get', { name });
      if (gen === selectGeneration) profile.value = p;
    } catch (e) {
      if (gen === selectGeneration) profileError.value = e;
    } finally {
      if (gen === selectGeneration) profileLoading.value = false;
    }
  }

  /** Settings that differ from profile `from` to profile `to`, or (to = null) from the live cluster to `from`. */
  async function compare(from: string, to: string | null): Promise<DiffResult | null> {
    diffLoading.value = true;
    try {
      const changes = await client().call('profiles.diff', to === null ? { from } : { from, to });
      diff.value = { from, to, changes };
      diffError.value = null;
      return diff.value;
    } catch (e) {
      diff.value = null;
      diffError.value = e;
      return null;
    } finally {
      diffLoading.value = false;
    }
  }

  async function exportFiles(name: string, formats: readonly ExportFormat[], bootstrapServers?: string): Promise<ExportedFileView[]> {
    exportLoading.value = true;
    try {
      const files = await client().call('profiles.export', { name, formats: [...formats], ...(bootstrapServers ? { bootstrapServers } : {}) });
      exported.value = files;
      exportError.value = null;
      return files;
    } catch (e) {
      exported.value = [];
      exportError.value = e;
      return [];
    } finally {
      exportLoading.value = false;
    }
  }

  /** Read the name out of profile JSON text, and whether importing it would replace or clash. */
  function importTarget(json: string): ImportTarget {
    let name: string | null = null;
    try {
      const parsed: unknown = JSON.parse(json);
      if (parsed && typeof parsed === 'object' && typeof (parsed as { name?: unknown }).name === 'string') name = (parsed as { name: string }).name;
    } catch {
      name = null;
    }
    const existing = name === null ? undefined : list.value.find((p) => p.name === name);
    return { name, exists: !!existing && !existing.builtIn, builtIn: !!existing?.builtIn };
  }

  /** Import profile JSON; the engine validates it against the schema and the config catalogue. */
  async function importProfile(json: string, overwrite = false): Promise<ImportOutcome> {
    try {
      const r = await client().call('profiles.import', { json, ...(overwrite ? { overwrite: true } : {}) });
      notifySuccess(`Imported profile ${r.name}${r.warnings.length ? ` (${r.warnings.length} warning${r.warnings.length === 1 ? '' : 's'})` : ''}`);
      await refresh();
      return { ok: true, name: r.name, warnings: r.warnings };
    } catch (e) {
      if (e instanceof ClientError) return { ok: false, code: e.code, message: e.error.message, issues: issuesOf(e) };
      return { ok: false, code: 'Error', message: e instanceof Error ? e.message : String(e), issues: [] };
    }
  }

  /** What applying the profile would change (a dry run: nothing changes). */
  async function planApply(name: string, includeExistingTopics: boolean): Promise<ApplyPlanView | null> {
    planLoading.value = true;
    try {
      const p = await client().call('profiles.apply', { name, dryRun: true, includeExistingTopics });
      plan.value = p;
      planError.value = null;
      return p;
    } catch (e) {
      plan.value = null;
      planError.value = e;
      return null;
    } finally {
      planLoading.value = false;
    }
  }

  /** Apply the profile's configs to the live cluster for real (after the user saw the plan). */
  async function apply(name: string, includeExistingTopics: boolean): Promise<ApplyPlanView | null> {
    planLoading.value = true;
    try {
      const p = await client().call('profiles.apply', { name, dryRun: false, includeExistingTopics });
      plan.value = p;
      planError.value = null;
      notifySuccess(p.upToDate ? `Nothing to change: the cluster already has ${name}'s configs` : `Applied profile ${name}`);
      return p;
    } catch (e) {
      notifyError(e, `Apply ${name}`);
      return null;
    } finally {
      planLoading.value = false;
    }
  }

  return {
    list,
    loading,
    error,
    selectedName,
    selected,
    profile,
    profileLoading,
    profileError,
    diff,
    diffLoading,
    diffError,
    exported,
    exportLoading,
    exportError,
    plan,
    planLoading,
    planError,
    refresh,
    select,
    compare,
    exportFiles,
    importTarget,
    importProfile,
    planApply,
    apply,
  };
});
