/**
 * The connection this window looks at (issue 14). One console may look at two clusters in two
 * windows, so the choice is kept per window (sessionStorage), not per app; none (null) is the
 * host's own cluster, which every call reaches without a `connection`. The client adds the active
 * connection to every call that targets a cluster, and passes on only that cluster's events.
 */
import { targetsCluster, type EngineEvent, type MethodName } from '../../../app/api/contract.js';

export interface ActiveConnection {
  id: string;
  name: string;
  kind: 'local' | 'external';
  /** An external cluster's bootstrap servers ("host:port,…"), named when a change asks for confirmation. */
  bootstrap?: string;
}

const KEY = 'replica-studio.connection';

function storage(): Storage | undefined {
  try {
    return globalThis.sessionStorage;
  } catch {
    return undefined;
  }
}

export function activeConnection(): ActiveConnection | null {
  const raw = storage()?.getItem(KEY);
  if (!raw) return null;
  try {
    const v = JSON.parse(raw) as Partial<ActiveConnection>;
    if (typeof v.id !== 'string' || typeof v.name !== 'string' || (v.kind !== 'local' && v.kind !== 'external')) return null;
    return { id: v.id, name: v.name, kind: v.kind, ...(typeof v.bootstrap === 'string' ? { bootstrap: v.bootstrap } : {}) };
  } catch {
    return null;
  }
}

export function setActiveConnection(c: ActiveConnection | null): void {
  if (c === null) storage()?.removeItem(KEY);
  else storage()?.setItem(KEY, JSON.stringify(c));
}

/** `input` with the active connection, for a method that targets a cluster. */
export function withConnection(method: MethodName, input: unknown): unknown {
  const active = activeConnection();
  if (!active || !targetsCluster(method) || typeof input !== 'object' || input === null) return input;
  // A call that names its connection (an import or copy into another cluster) goes there.
  if (typeof (input as { connection?: unknown }).connection === 'string') return input;
  return { ...(input as Record<string, unknown>), connection: active.id };
}

/** Whether an event belongs to the cluster this window looks at (a twin's making belongs to the window that asked for it, on any cluster). */
export function isActiveClusterEvent(event: EngineEvent): boolean {
  if (event.type === 'twin.progress') return true;
  return (event.connection ?? null) === (activeConnection()?.id ?? null);
}
