/**
 * The app's configuration directory: the connection list, the secrets of external connections,
 * and profiles imported while looking at an external cluster. Never a cluster's data directory.
 *
 *   connections.json   the list (no secrets)                       mode 0600
 *   secrets.json       per connection id, each value sealed        mode 0600
 *   profiles.json      imported profiles by name (JSON text)       mode 0600
 *
 * Every file is written whole to a temporary file (0600 from its creation) and renamed over the
 * old one, so a crash leaves the old list or the new one, never half of either. Secrets are
 * sealed by a `SecretSealer`: the desktop app passes Electron's safeStorage (the OS keychain's
 * key), headless mode stores them as they are in the 0600 file (the same protection as the
 * host's token file) and says so in `sealer.kind`.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface StoredExternalSettings {
  bootstrapServers: string[];
  security: 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
  sasl?: { mechanism: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512'; username: string };
  tls?: { caFile?: string; certFile?: string; keyFile?: string; serverName?: string };
  schemaRegistry?: { url: string; username?: string };
}

/** One saved connection, as the list file holds it (never a secret). */
export interface StoredConnection {
  id: string;
  name: string;
  kind: 'local' | 'external';
  dataDir?: string;
  external?: StoredExternalSettings;
  createdAtMs: number;
  /** A twin: the connection and cluster it was made from, when made and last refreshed. */
  twinOf?: { sourceId: string; sourceName: string; sourceClusterId: string; createdAtMs: number; refreshedAtMs: number };
}

/** The secrets of one external connection. */
export interface StoredSecrets {
  saslPassword?: string;
  keyPassphrase?: string;
  registryPassword?: string;
  registryToken?: string;
}

/** Seals and unseals one secret string. */
export interface SecretSealer {
  /** `safeStorage`: encrypted with the OS keychain's key; `file-0600`: kept as is in an owner-only file. */
  readonly kind: 'safeStorage' | 'file-0600';
  seal(plain: string): string;
  unseal(sealed: string): string;
}

/** Headless mode: the 0600 file is the protection. */
export const PLAIN_FILE_SEALER: SecretSealer = { kind: 'file-0600', seal: (s) => s, unseal: (s) => s };

function readJson<T>(file: string, fallback: T): T {
  if (!existsSync(file)) return fallback;
  // A wider file (copied by hand, an older version) is narrowed before it is read.
  chmodSync(file, 0o600);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch (e) {
    throw new Error(`${file} is not valid JSON (${(e as Error).message}); fix or remove it.`);
  }
}

/** Write `value` as JSON to `file` atomically, owner-only. */
export function writeJsonAtomic(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    chmodSync(tmp, 0o600);
    renameSync(tmp, file);
  } catch (e) {
    if (existsSync(tmp)) unlinkSync(tmp);
    throw e;
  }
}

export class ConfigDirectory {
  /** Nothing is written until something is saved: a host that only serves a cluster leaves no trace here. */
  constructor(readonly dir: string) {}

  private file(name: string): string {
    return join(this.dir, name);
  }

  listConnections(): StoredConnection[] {
    const data = readJson<{ version: number; connections: StoredConnection[] }>(this.file('connections.json'), { version: 1, connections: [] });
    return Array.isArray(data.connections) ? data.connections : [];
  }

  saveConnections(connections: StoredConnection[]): void {
    writeJsonAtomic(this.file('connections.json'), { version: 1, connections });
  }

  /** The secrets store, sealed by `sealer`. */
  secrets(sealer: SecretSealer): SecretsFile {
    return new SecretsFile(this.file('secrets.json'), sealer);
  }

  /** Profiles imported for external clusters: name → profile JSON. */
  loadProfiles(): Record<string, string> {
    return readJson<Record<string, string>>(this.file('profiles.json'), {});
  }

  saveProfile(name: string, json: string): void {
    writeJsonAtomic(this.file('profiles.json'), { ...this.loadProfiles(), [name]: json });
  }
}

export class SecretsFile {
  constructor(
    readonly file: string,
    readonly sealer: SecretSealer,
  ) {}

  private all(): Record<string, { sealer: string; values: Record<string, string> }> {
    return readJson(this.file, {});
  }

  get(id: string): StoredSecrets | undefined {
    const entry = this.all()[id];
    if (!entry) return undefined;
    if (entry.sealer !== this.sealer.kind) throw new Error(`The secrets of connection ${id} were sealed by ${entry.sealer}, not ${this.sealer.kind}: enter them again.`);
    return Object.fromEntries(Object.entries(entry.values).map(([k, v]) => [k, this.sealer.unseal(v)])) as StoredSecrets;
  }

  set(id: string, secrets: StoredSecrets): void {
    const all = this.all();
    const values = Object.fromEntries(Object.entries(secrets).filter(([, v]) => typeof v === 'string' && v.length > 0).map(([k, v]) => [k, this.sealer.seal(v as string)]));
    if (Object.keys(values).length === 0) delete all[id];
    else all[id] = { sealer: this.sealer.kind, values };
    writeJsonAtomic(this.file, all);
  }

  delete(id: string): void {
    const all = this.all();
    if (!(id in all)) return;
    delete all[id];
    writeJsonAtomic(this.file, all);
  }
}

/**
 * Delete a local cluster's data directory when the app created it (`owned`: inside the app's
 * clusters folder). A directory the user chose is left in place (it may hold files we did not
 * write), with a note saying so.
 */
export function removeClusterDirectory(dataDir: string, owned: boolean): { deleted: boolean; note?: string } {
  if (!owned) return { deleted: false, note: `${dataDir} was chosen by you, not created by the app: it is left in place; delete it yourself if you no longer need it.` };
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 3 });
  return { deleted: true };
}
