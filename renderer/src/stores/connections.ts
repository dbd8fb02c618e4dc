/**
 * The Connections page: every cluster this console manages (the host's own, other local clusters,
 * external Kafka clusters), which one this window looks at, and what can be done with them —
 * test an external cluster (what was found, or exactly where it failed), add one, create a local
 * cluster from a profile, switch to a connection, delete one with its name typed.
 *
 * Switching reloads the console on the Overview: every store and live query then reads the chosen
 * cluster from scratch, so no page can show one cluster's data under another's name.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { registryInputSchema, type ConnectionTestView, type ConnectionView, type ExternalSettingsInput } from '../../../app/api/connections.js';
import { activeConnection, setActiveConnection } from '../api/active-connection.js';
import { ClientError } from '../api/client.js';
import { client } from '../api/instance.js';
import { useLiveQuery } from '../composables/live-query.js';
import { notifyError, notifySuccess } from '../lib/notify.js';

/** The add-external form as the page holds it (bootstrap servers as typed, comma-separated). */
export interface ExternalForm {
  name: string;
  bootstrap: string;
  security: NonNullable<ExternalSettingsInput['security']>;
  mechanism: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
  username: string;
  password: string;
  caFile: string;
  registry: RegistryForm;
}

/**
 * The cluster's Schema Registry as the form holds it: no URL is no registry; basic auth
 * (username and password) or a bearer token. A secret left empty on an edit keeps the saved one.
 */
export interface RegistryForm {
  url: string;
  auth: 'none' | 'basic' | 'bearer';
  username: string;
  password: string;
  token: string;
}

export function emptyRegistryForm(): RegistryForm {
  return { url: '', auth: 'none', username: '', password: '', token: '' };
}

export function emptyExternalForm(): ExternalForm {
  return { name: '', bootstrap: '', security: 'PLAINTEXT', mechanism: 'SCRAM-SHA-512', username: '', password: '', caFile: '', registry: emptyRegistryForm() };
}

/** The contract's `schemaRegistry` for the form's fields (undefined: no URL, no registry). */
export function registryOf(r: RegistryForm): ExternalSettingsInput['schemaRegistry'] {
  const url = r.url.trim();
  if (url === '') return undefined;
  if (r.auth === 'basic') return { url, auth: 'basic', username: r.username.trim(), ...(r.password ? { password: r.password } : {}) };
  if (r.auth === 'bearer') return { url, auth: 'bearer', ...(r.token ? { token: r.token } : {}) };
  // Said outright, so that the service drops a token saved before (a URL alone would keep it).
  return { url, auth: 'none' };
}

/**
 * What is wrong with the registry fields, in words, or null. The URL is checked by the contract's
 * own rule; basic auth needs a username, and a password or token unless one is saved already.
 */
export function registryProblem(r: RegistryForm, saved?: { passwordSaved: boolean; tokenSaved: boolean }): string | null {
  const settings = registryOf(r);
  if (settings === undefined) return r.auth === 'none' ? null : 'Give the Schema Registry URL, or choose no authentication.';
  const parsed = registryInputSchema.shape.url.safeParse(settings.url);
  if (!parsed.success) return `Schema Registry URL: ${parsed.error.issues[0]?.message ?? 'invalid'} (for example http://registry:8081).`;
  if (r.auth === 'basic' && r.username.trim() === '') return 'Basic authentication needs the registry username.';
  if (r.auth === 'basic' && r.password === '' && !saved?.passwordSaved) return 'Basic authentication needs the registry password.';
  if (r.auth === 'bearer' && r.token === '' && !saved?.tokenSaved) return 'Bearer authentication needs the token.';
  return null;
}

/** The registry fields for an edit of a saved connection: its URL and username, no secret. */
export function registryFormOf(c: ConnectionView): RegistryForm {
  const r = c.external?.schemaRegistry;
  if (!r) return emptyRegistryForm();
  const auth = r.username !== undefined ? 'basic' : r.tokenSaved ? 'bearer' : 'none';
  return { url: r.url, auth, username: r.username ?? '', password: '', token: '' };
}

/** The contract's settings for a form (SASL only for the SASL protocols, TLS only for the SSL ones). */
export function settingsOf(form: ExternalForm): ExternalSettingsInput {
  const sasl = form.security === 'SASL_PLAINTEXT' || form.security === 'SASL_SSL';
  const tls = form.security === 'SSL' || form.security === 'SASL_SSL';
  return {
    bootstrapServers: form.bootstrap.split(',').map((s) => s.trim()).filter((s) => s !== ''),
    security: form.security,
    ...(sasl ? { sasl: { mechanism: form.mechanism, username: form.username, ...(form.password ? { password: form.password } : {}) } } : {}),
    ...(tls && form.caFile ? { tls: { caFile: form.caFile } } : {}),
    ...(registryOf(form.registry) ? { schemaRegistry: registryOf(form.registry)! } : {}),
  };
}

/**
 * A saved connection's settings with other registry fields: everything else as saved (its
 * secrets are left out, so the saved ones are kept).
 */
export function settingsWithRegistry(c: ConnectionView, registry: RegistryForm): ExternalSettingsInput {
  const e = c.external!;
  const schemaRegistry = registryOf(registry);
  return {
    bootstrapServers: [...e.bootstrapServers],
    security: e.security,
    ...(e.sasl ? { sasl: { mechanism: e.sasl.mechanism, username: e.sasl.username } } : {}),
    ...(e.tls ? { tls: { ...(e.tls.caFile ? { caFile: e.tls.caFile } : {}), ...(e.tls.certFile ? { certFile: e.tls.certFile } : {}), ...(e.tls.keyFile ? { keyFile: e.tls.keyFile } : {}), ...(e.tls.serverName ? { serverName: e.tls.serverName } : {}) } } : {}),
    ...(schemaRegistry ? { schemaRegistry } : {}),
  };
}

/** What the page shows for a connection's place: its bootstrap servers or its data directory. */
export function whereOf(c: ConnectionView): string {
  return c.kind === 'external' ? (c.external?.bootstrapServers.join(', ') ?? '') : (c.dataDir ?? '');
}

export const useConnectionsStore = defineStore('connections', () => {
  const list = useLiveQuery<ConnectionView[]>({
    name: 'connections',
    read: () => client().call('connections.list', {}),
    initial: [],
    pollMs: 10_000,
  });
  const active = ref(activeConnection());
  const tests = ref<Record<string, ConnectionTestView | 'running'>>({});
  const busy = ref(false);
  /** The connection the window looks at, as listed (the host's own when none is chosen). */
  const current = computed(() => list.data.value.find((c) => (active.value ? c.id === active.value.id : c.isDefault)) ?? null);

  let release: (() => void) | null = null;
  function start(): void {
    release ??= list.acquire();
  }
  function stop(): void {
    release?.();
    release = null;
  }

  async function guarded<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
    busy.value = true;
    try {
      return await fn();
    } catch (e) {
      if (e instanceof ClientError) notifyError(e, what);
      else throw e;
      return undefined;
    } finally {
      busy.value = false;
    }
  }

  async function test(id: string): Promise<ConnectionTestView | undefined> {
    tests.value = { ...tests.value, [id]: 'running' };
    const r = await guarded('Testing the connection', () => client().call('connections.test', { id }));
    const next = { ...tests.value };
    if (r) next[id] = r;
    else delete next[id];
    tests.value = next;
    return r;
  }

  async function addExternal(form: ExternalForm): Promise<ConnectionView | undefined> {
    const added = await guarded('Adding the connection', () => client().call('connections.addExternal', { name: form.name.trim(), settings: settingsOf(form) }));
    if (added) {
      notifySuccess(`Saved ${added.name}`);
      await list.refresh();
    }
    return added;
  }

  /** Give a saved external connection another Schema Registry (or none); its client reconnects. */
  async function updateRegistry(c: ConnectionView, registry: RegistryForm): Promise<ConnectionView | undefined> {
    const updated = await guarded(`Changing ${c.name}'s Schema Registry`, () => client().call('connections.updateExternal', { id: c.id, settings: settingsWithRegistry(c, registry) }));
    if (updated) {
      notifySuccess(updated.external?.schemaRegistry ? `${updated.name} uses the Schema Registry at ${updated.external.schemaRegistry.url}` : `${updated.name} has no Schema Registry`);
      await list.refresh();
    }
    return updated;
  }

  async function createLocal(name: string, profile: string): Promise<ConnectionView | undefined> {
    const created = await guarded('Creating the local cluster', () => client().call('connections.createLocal', { name: name.trim(), profile }));
    if (created) {
      notifySuccess(`Created ${created.name}`);
      await list.refresh();
    }
    return created;
  }

  async function remove(c: ConnectionView, confirm: string): Promise<boolean> {
    const deleted = await guarded(`Deleting ${c.name}`, () => client().call('connections.delete', { id: c.id, confirm }));
    if (!deleted) return false;
    notifySuccess(deleted.note ?? `Deleted ${deleted.name}`);
    if (active.value?.id === c.id) switchTo(null);
    else await list.refresh();
    return true;
  }

  /** Look at `c` (null or the default: the host's own cluster): the console reloads on the Overview. */
  function switchTo(c: ConnectionView | null): void {
    setActiveConnection(c === null || c.isDefault ? null : { id: c.id, name: c.name, kind: c.kind, ...(c.external ? { bootstrap: c.external.bootstrapServers.join(',') } : {}) });
    active.value = activeConnection();
    globalThis.location.hash = '#/';
    globalThis.location.reload();
  }

  return { list: list.data, loaded: list.loaded, error: list.error, active, current, tests, busy, start, stop, refresh: list.refresh, test, addExternal, updateRegistry, createLocal, remove, switchTo };
});
