/**
 * The Security page: ACL bindings (`acls.list`, with what the authorizer is), SCRAM users
 * (`users.list`), client quotas (`quotas.list`) and, on the cluster the console runs, the throttle
 * each client gets (`quotas.throttles`). Each is a live query while its tab shows: re-read on
 * `security.changed` events, polled (an external cluster sends none; throttles change with
 * traffic). Changes go through the contract and read the lists again; a delete is previewed first.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type {
  AccessCheckView,
  AclBindingView,
  AclDeleteResultView,
  AclFilterInput,
  AclListView,
  ClientQuotaView,
  ClientThrottleView,
  MethodInput,
  QuotaEntityView,
  ScramUserView,
} from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { useLeases, useLiveQuery } from '../composables/live-query.js';
import { describeError, notifyError, notifySuccess } from '../lib/notify.js';

const SECURITY_CHANGED = (e: { type: string }): boolean => e.type === 'security.changed';
const EMPTY_ACLS: AclListView = { authorizer: { enabled: false, superUsers: null, allowEveryoneIfNoAclFound: null }, bindings: [] };

export const useSecurityStore = defineStore('security', () => {
  const acls = useLiveQuery<AclListView>({ name: 'acls', initial: EMPTY_ACLS, read: () => client().call('acls.list', {}), invalidatedBy: SECURITY_CHANGED, pollMs: 5_000 });
  const users = useLiveQuery<ScramUserView[]>({ name: 'users', initial: [], read: () => client().call('users.list', {}), invalidatedBy: SECURITY_CHANGED, pollMs: 5_000 });
  const quotas = useLiveQuery<ClientQuotaView[]>({ name: 'quotas', initial: [], read: () => client().call('quotas.list', {}), invalidatedBy: SECURITY_CHANGED, pollMs: 5_000 });
  const throttles = useLiveQuery<ClientThrottleView[] | null>({
    name: 'quota-throttles',
    initial: null,
    // An external cluster has no such view (JMX): the page says why instead of an empty table.
    read: () => client().call('quotas.throttles', {}),
    pollMs: 1_000,
  });
  const page = useLeases(() => [acls.acquire(), users.acquire(), quotas.acquire(), throttles.acquire()]);

  const busy = ref(false);
  const deletePreview = shallowRef<{ filter: AclFilterInput; results: AclDeleteResultView[] } | null>(null);
  const check = shallowRef<AccessCheckView | null>(null);

  const errorOf = (q: { error: { value: unknown } }) => computed(() => (q.error.value ? describeError(q.error.value) : null));

  async function act<T>(what: string, run: () => Promise<T>, done?: (value: T) => string | null): Promise<T | null> {
    busy.value = true;
    try {
      const value = await run();
      const message = done?.(value);
      if (message) notifySuccess(message);
      return value;
    } catch (e) {
      notifyError(e, what);
      return null;
    } finally {
      busy.value = false;
    }
  }

  /** Create bindings; each is answered on its own (Kafka's message for a refused one). */
  async function createAcls(bindings: AclBindingView[]) {
    const results = await act('Create ACL', () => client().call('acls.create', { bindings }));
    if (results) {
      for (const r of results) if (r.errorCode !== 'NONE') notifyError(new Error(`${r.errorCode}: ${r.errorMessage ?? ''}`), 'Create ACL');
      await acls.refresh();
    }
    return results;
  }

  /** What deleting by `filter` would remove (nothing is deleted). */
  async function previewDelete(filter: AclFilterInput) {
    const results = await act('Preview ACL delete', () => client().call('acls.delete', { filters: [filter], dryRun: true }));
    deletePreview.value = results ? { filter, results } : null;
    return results;
  }

  /** Delete what the previewed filter matches. */
  async function confirmDelete() {
    const p = deletePreview.value;
    if (!p) return null;
    const results = await act('Delete ACLs', () => client().call('acls.delete', { filters: [p.filter] }), (r) => `Deleted ${r[0]?.bindings.length ?? 0} binding(s)`);
    deletePreview.value = null;
    await acls.refresh();
    return results;
  }

  async function runCheck(input: MethodInput<'acls.check'>) {
    check.value = await act('Check access', () => client().call('acls.check', input));
    return check.value;
  }

  async function upsertUser(input: MethodInput<'users.upsert'>) {
    const results = await act('Set password', () => client().call('users.upsert', input));
    const failed = results?.find((r) => r.errorCode !== 'NONE');
    if (failed) notifyError(new Error(`${failed.errorCode}: ${failed.errorMessage ?? ''}`), 'Set password');
    else if (results) notifySuccess(`Password of ${input.name} set (${input.mechanism})`);
    await users.refresh();
    return results;
  }

  async function deleteUser(name: string, mechanism?: 'SCRAM-SHA-256' | 'SCRAM-SHA-512') {
    const results = await act('Delete user', () => client().call('users.delete', { name, ...(mechanism ? { mechanism } : {}) }), () => `Deleted the credentials of ${name}`);
    await users.refresh();
    return results;
  }

  const exported = shallowRef<{ filename: string; contents: string }[] | null>(null);
  /** The cluster's bindings, users and quotas as Kafka's commands (`security.export`). */
  async function exportCommands() {
    exported.value = await act('Export security', () => client().call('security.export', {}));
    return exported.value;
  }

  async function alterQuota(entity: QuotaEntityView, set: Record<string, number | null>) {
    const result = await act('Set quota', () => client().call('quotas.alter', { entity, set }));
    if (result && result.errorCode !== 'NONE') notifyError(new Error(`${result.errorCode}: ${result.errorMessage ?? ''}`), 'Set quota');
    await quotas.refresh();
    return result;
  }

  return {
    start: () => page.start(),
    stop: () => page.stop(),
    acls: acls.data,
    aclsError: errorOf(acls),
    users: users.data,
    usersError: errorOf(users),
    quotas: quotas.data,
    quotasError: errorOf(quotas),
    throttles: throttles.data,
    throttlesError: errorOf(throttles),
    busy,
    deletePreview,
    check,
    createAcls,
    previewDelete,
    cancelDelete: () => (deletePreview.value = null),
    confirmDelete,
    runCheck,
    upsertUser,
    deleteUser,
    alterQuota,
    exported,
    exportCommands,
    closeExport: () => (exported.value = null),
  };
});
