/**
 * The `connections.*` methods over the saved list: what each connection is, how it is reached,
 * and its secrets (stored apart, never answered). The default connection is the cluster the host
 * serves: listed first, whether or not the list file names its data directory (it is saved only
 * once renamed, so merely serving a directory writes nothing to the app's folder).
 */
import { randomBytes } from 'node:crypto';
import { basename, resolve, sep } from 'node:path';
import type { ConnectionMethodName, EngineEvent, MethodParsedInput, MethodResult } from '../../api/contract.js';
import { capabilityViews } from '../../api/capabilities.js';
import type { ConnectionView, ExternalSettingsInput, ExternalSettingsView } from '../../api/connections.js';
import { KafkaError } from '../../api/errors.js';
import type { KafkaConnectionConfig } from '../../kafka-client/config.js';
import type { StoredConnection, StoredExternalSettings, StoredSecrets } from '../../config-dir/config-files.js';
import type { ClusterDriver } from '../cluster-driver.js';
import { kafkaMissing } from '../kafka-driver/kafka-driver.js';
import type { ExternalRegistryConfig } from '../kafka-driver/registry-client.js';
import { builtInProfiles } from '../built-in-profiles.js';
import type { ConnectionsServiceOptions } from './connections-options.js';
import { journalReport, readJournal } from './twin-journal.js';
import { createTwin, refreshTwin, type TwinDeps } from './twin-methods.js';
import { rehearsePlan, rehearseStop } from './twin-rehearse.js';
import type { TwinCall } from './twin-topology.js';

/** The id of the default connection while the list file does not name its data directory. */
export const DEFAULT_CONNECTION_ID = 'default';

interface ListDeps extends ConnectionsServiceOptions {
  isOpen(id: string): boolean;
  /** Contract calls on a connection (a twin's source and the twin). */
  callOn(id: string): TwinCall;
  /** An event to the host's listeners (those of every connection's events). */
  emit(event: EngineEvent): void;
  closeDriver(id: string): Promise<void>;
  adopt(id: string, driver: ClusterDriver): ClusterDriver;
}

type Methods = { [M in ConnectionMethodName]: (input: MethodParsedInput<M>) => Promise<MethodResult<M>> | MethodResult<M> };

const samePath = (a: string, b: string): boolean => resolve(a) === resolve(b);

function securityOf(settings: ExternalSettingsInput): StoredExternalSettings['security'] {
  return settings.security ?? (settings.sasl ? (settings.tls ? 'SASL_SSL' : 'SASL_PLAINTEXT') : settings.tls ? 'SSL' : 'PLAINTEXT');
}

export class ConnectionList {
  private readonly methods: Methods;

  constructor(private readonly deps: ListDeps) {
    this.methods = {
      'connections.list': () => this.views(),
      'connections.get': ({ id }) => this.view(id),
      'connections.addExternal': ({ name, settings }) => {
        const id = this.newId();
        this.checkName(name);
        this.saveSecrets(id, settings);
        this.save([...this.deps.store.listConnections(), { id, name, kind: 'external', external: this.storedSettings(settings), createdAtMs: Date.now() }]);
        return this.view(id);
      },
      'connections.updateExternal': async ({ id, name, settings }) => {
        const c = this.stored(id);
        if (c.kind !== 'external') throw new KafkaError('INVALID_REQUEST', `${c.name} is a local cluster: it has no Kafka connection settings.`);
        if (name !== undefined && name !== c.name) this.checkName(name);
        this.saveSecrets(id, settings);
        this.save(this.deps.store.listConnections().map((x) => (x.id === id ? { ...x, ...(name !== undefined ? { name } : {}), external: this.storedSettings(settings) } : x)));
        await this.deps.closeDriver(id); // the next call connects with the new settings
        return this.view(id);
      },
      'connections.createLocal': async ({ name, profile, brokers }) => {
        this.checkName(name);
        const profiles = [...builtInProfiles(this.deps.profilesDir).keys()];
        if (profile !== undefined && !profiles.includes(profile)) throw new KafkaError('INVALID_INPUT', `No built-in profile named ${JSON.stringify(profile)} (${profiles.join(', ')}).`);
        if (profile !== undefined && brokers !== undefined) throw new KafkaError('INVALID_INPUT', 'A new cluster starts from a profile or from a number of bare brokers: give one.');
        const id = this.newId();
        const dataDir = resolve(this.deps.clustersDir, id);
        const driver = await this.deps.openLocal(dataDir, { ...(profile !== undefined ? { profile } : {}), ...(brokers !== undefined ? { brokers } : {}) });
        this.deps.adopt(id, driver);
        this.save([...this.deps.store.listConnections(), { id, name, kind: 'local', dataDir, createdAtMs: Date.now() }]);
        return this.view(id);
      },
      'connections.openLocal': async ({ name, dataDir }) => {
        this.checkName(name);
        const dir = resolve(dataDir);
        const known = this.views().find((v) => v.dataDir !== undefined && samePath(v.dataDir, dir));
        if (known) throw new KafkaError('INVALID_REQUEST', `${dir} is already in the list as ${JSON.stringify(known.name)}.`);
        const id = this.newId();
        this.deps.adopt(id, await this.deps.openLocal(dir, {}));
        this.save([...this.deps.store.listConnections(), { id, name, kind: 'local', dataDir: dir, createdAtMs: Date.now() }]);
        return this.view(id);
      },
      'connections.rename': ({ id, name }) => {
        const current = this.view(id);
        if (name !== current.name) this.checkName(name);
        const stored = this.deps.store.listConnections();
        if (stored.some((c) => c.id === id)) this.save(stored.map((c) => (c.id === id ? { ...c, name } : c)));
        else this.save([...stored, { id: this.newId(), name, kind: 'local', dataDir: this.deps.host()!.dataDir, createdAtMs: Date.now() }]);
        return this.views().find((v) => v.name === name)!;
      },
      'connections.delete': async ({ id, confirm }) => {
        const v = this.view(id);
        if (confirm !== v.name) throw new KafkaError('INVALID_REQUEST', `Type the connection's name exactly (${JSON.stringify(v.name)}) to delete it.`);
        if (v.isDefault) throw new KafkaError('INVALID_STATE', `${v.name} is the cluster this host serves; start the host on another data directory to delete it.`);
        await this.deps.closeDriver(id);
        this.save(this.deps.store.listConnections().filter((c) => c.id !== id));
        this.deps.secrets.delete(id);
        if (v.kind === 'external') return { id, name: v.name, dataDeleted: false };
        const owned = resolve(v.dataDir!).startsWith(resolve(this.deps.clustersDir) + sep);
        const removed = this.deps.removeLocalData(v.dataDir!, owned);
        return { id, name: v.name, dataDeleted: removed.deleted, ...(removed.note ? { note: removed.note } : {}) };
      },
      'connections.createTwin': (input) => createTwin(this.twinDeps(), input),
      'connections.refreshTwin': (input) => refreshTwin(this.twinDeps(), input),
      'connections.rehearseStop': (input) => rehearseStop(this.twinDeps(), input),
      'connections.rehearsePlan': (input) => rehearsePlan(this.twinDeps(), input),
      'connections.twinReport': ({ id }) => {
        const v = this.view(id);
        if (v.kind !== 'local') throw new KafkaError('UNSUPPORTED_FOR_CONNECTION', `${v.name} is an external cluster: reports are of local clusters (a twin), where rehearsals run.`);
        return journalReport(v.name, v.twinOf, readJournal(v.dataDir!), Date.now());
      },
      'connections.test': async ({ id, settings }) => {
        if (settings === undefined) {
          const c = this.stored(id!);
          if (c.kind !== 'external') throw new KafkaError('INVALID_REQUEST', `${c.name} is a local cluster: there is nothing to connect to.`);
          return this.deps.testExternal(this.kafkaConfig(c));
        }
        const saved = id !== undefined ? this.deps.secrets.get(id) : undefined;
        return this.deps.testExternal(this.configFrom(this.storedSettings(settings), { ...saved, ...this.secretsIn(settings) }));
      },
    };
  }

  private twinDeps(): TwinDeps {
    return {
      callOn: (id) => this.deps.callOn(id),
      view: (id) => this.view(id),
      stored: (id) => this.stored(id),
      list: () => this.deps.store.listConnections(),
      save: (list) => this.save(list),
      checkName: (name) => this.checkName(name),
      newId: () => this.newId(),
      clustersDir: this.deps.clustersDir,
      openLocal: (dir, how) => this.deps.openLocal(dir, how),
      adopt: (id, driver) => this.deps.adopt(id, driver),
      progress: (event) => this.deps.emit({ type: 'twin.progress', atMs: Date.now(), ...event }),
    };
  }

  handle(method: ConnectionMethodName, input: unknown): unknown {
    return (this.methods[method] as (input: unknown) => unknown)(input);
  }

  isDefault(id: string): boolean {
    return this.views()[0]?.isDefault === true && this.views()[0]!.id === id;
  }

  /** A saved connection, or CONNECTION_NOT_FOUND. */
  stored(id: string): StoredConnection {
    const c = this.deps.store.listConnections().find((x) => x.id === id);
    if (!c) throw new KafkaError('CONNECTION_NOT_FOUND', `No connection has the id ${JSON.stringify(id)}.`);
    return c;
  }

  /** A saved external connection's Schema Registry, secrets included (undefined: none). */
  registryConfig(c: StoredConnection): ExternalRegistryConfig | undefined {
    const r = c.external?.schemaRegistry;
    if (!r) return undefined;
    const secrets = this.deps.secrets.get(c.id) ?? {};
    return { url: r.url, ...(r.username !== undefined ? { username: r.username, password: secrets.registryPassword ?? '' } : {}), ...(secrets.registryToken !== undefined ? { token: secrets.registryToken } : {}) };
  }

  /** How the client reaches a saved external connection, secrets included. */
  kafkaConfig(c: StoredConnection): KafkaConnectionConfig {
    return this.configFrom(c.external!, this.deps.secrets.get(c.id) ?? {});
  }

  private configFrom(s: StoredExternalSettings, secrets: StoredSecrets): KafkaConnectionConfig {
    return {
      bootstrapServers: [...s.bootstrapServers],
      security: s.security,
      ...(s.sasl ? { sasl: { ...s.sasl, password: secrets.saslPassword ?? '' } } : {}),
      ...(s.tls ? { tls: { ...s.tls, ...(secrets.keyPassphrase !== undefined ? { keyPassphrase: secrets.keyPassphrase } : {}) } } : {}),
    };
  }

  private storedSettings(settings: ExternalSettingsInput): StoredExternalSettings {
    const security = securityOf(settings);
    const sasl = security.startsWith('SASL') && settings.sasl ? { mechanism: settings.sasl.mechanism, username: settings.sasl.username } : undefined;
    const { keyPassphrase: _secret, ...tls } = settings.tls ?? {};
    const r = settings.schemaRegistry;
    const schemaRegistry = r ? { url: r.url, ...(r.username !== undefined ? { username: r.username } : {}) } : undefined;
    return { bootstrapServers: [...settings.bootstrapServers], security, ...(sasl ? { sasl } : {}), ...(security.endsWith('SSL') && settings.tls ? { tls } : {}), ...(schemaRegistry ? { schemaRegistry } : {}) };
  }

  private secretsIn(settings: ExternalSettingsInput): StoredSecrets {
    const r = settings.schemaRegistry;
    return {
      ...(settings.sasl?.password !== undefined ? { saslPassword: settings.sasl.password } : {}),
      ...(settings.tls?.keyPassphrase !== undefined ? { keyPassphrase: settings.tls.keyPassphrase } : {}),
      ...(r?.password !== undefined ? { registryPassword: r.password } : {}),
      ...(r?.token !== undefined ? { registryToken: r.token } : {}),
    };
  }

  /** Keep the saved secrets unless new ones are given; drop the ones the settings no longer use. */
  private saveSecrets(id: string, settings: ExternalSettingsInput): void {
    const security = securityOf(settings);
    const merged: StoredSecrets = { ...this.deps.secrets.get(id), ...this.secretsIn(settings) };
    if (!security.startsWith('SASL')) delete merged.saslPassword;
    if (!security.endsWith('SSL') || settings.tls?.keyFile === undefined) delete merged.keyPassphrase;
    if (settings.schemaRegistry?.username === undefined) delete merged.registryPassword;
    // No authentication chosen: a saved token goes too, not only the password.
    if (settings.schemaRegistry?.auth === 'none') delete merged.registryToken;
    // Basic auth replaces a saved bearer token (it would come back into use once the username goes).
    if (settings.schemaRegistry === undefined || settings.schemaRegistry.username !== undefined) delete merged.registryToken;
    this.deps.secrets.set(id, merged);
  }

  private save(list: StoredConnection[]): void {
    this.deps.store.saveConnections(list);
  }

  private newId(): string {
    return `c-${randomBytes(5).toString('hex')}`;
  }

  private checkName(name: string): void {
    if (this.views().some((v) => v.name === name)) throw new KafkaError('INVALID_REQUEST', `A connection named ${JSON.stringify(name)} exists already.`);
  }

  private externalView(s: StoredExternalSettings, secrets: StoredSecrets): ExternalSettingsView {
    return {
      bootstrapServers: [...s.bootstrapServers],
      security: s.security,
      ...(s.sasl ? { sasl: { ...s.sasl, passwordSaved: secrets.saslPassword !== undefined } } : {}),
      ...(s.tls ? { tls: { ...s.tls, keyPassphraseSaved: secrets.keyPassphrase !== undefined } } : {}),
      ...(s.schemaRegistry ? { schemaRegistry: { ...s.schemaRegistry, passwordSaved: secrets.registryPassword !== undefined, tokenSaved: secrets.registryToken !== undefined } } : {}),
    };
  }

  private viewOf(c: StoredConnection, isDefault: boolean): ConnectionView {
    const local = c.kind === 'local';
    return {
      id: c.id,
      name: c.name,
      kind: c.kind,
      ...(local ? { dataDir: c.dataDir! } : { external: this.externalView(c.external!, this.deps.secrets.get(c.id) ?? {}) }),
      isDefault,
      open: isDefault || this.deps.isOpen(c.id),
      capabilities: local ? capabilityViews() : capabilityViews(kafkaMissing(c.external?.schemaRegistry !== undefined)),
      ...(c.twinOf ? { twinOf: { ...c.twinOf } } : {}),
    };
  }

  /** The default connection first (when the host serves a cluster), then the saved ones in order. */
  views(): ConnectionView[] {
    const stored = this.deps.store.listConnections();
    const host = this.deps.host();
    const views: ConnectionView[] = [];
    const hostEntry = host ? stored.find((c) => c.kind === 'local' && c.dataDir !== undefined && samePath(c.dataDir, host.dataDir)) : undefined;
    if (host) views.push(this.viewOf(hostEntry ?? { id: DEFAULT_CONNECTION_ID, name: basename(host.dataDir) || 'default', kind: 'local', dataDir: resolve(host.dataDir), createdAtMs: 0 }, true));
    for (const c of stored) if (c !== hostEntry) views.push(this.viewOf(c, false));
    return views;
  }

  view(id: string): ConnectionView {
    const v = this.views().find((x) => x.id === id);
    if (!v) throw new KafkaError('CONNECTION_NOT_FOUND', `No connection has the id ${JSON.stringify(id)}.`);
    return v;
  }
}
