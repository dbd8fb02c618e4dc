/**
 * What the connections service is built from: where the list and the secrets are kept, the
 * cluster the host serves, and how a local or an external cluster's driver is made. A file of its
 * own, read by both connections-service.ts and connection-list.ts.
 */
import type { ExternalRegistryConfig } from '../kafka-driver/registry-client.js';
import type { ConnectionTestView } from '../../api/connections.js';
import type { EngineService, ErrorLogger } from '../../api/service.js';
import type { KafkaConnectionConfig } from '../../kafka-client/config.js';
import type { StoredConnection, StoredSecrets } from '../../config-dir/config-files.js';
import type { ClusterDriver } from '../cluster-driver.js';

export interface ConnectionStore {
  listConnections(): StoredConnection[];
  saveConnections(connections: StoredConnection[]): void;
}

export interface SecretStore {
  get(id: string): StoredSecrets | undefined;
  set(id: string, secrets: StoredSecrets): void;
  delete(id: string): void;
}

/**
 * How a new local cluster starts: from a built-in `profile`, or bare `brokers` (a count, or the
 * exact ids and racks of a twin's source), with `staticConfigs` as its server.properties.
 */
export interface NewLocalCluster {
  profile?: string;
  brokers?: number | { id: number; rack: string | null }[];
  staticConfigs?: Record<string, string>;
}

export interface ConnectionsServiceOptions {
  store: ConnectionStore;
  secrets: SecretStore;
  /** The cluster this host serves (calls without `connection` go there), if it serves one now. */
  host: () => { dataDir: string; driver: EngineService } | undefined;
  /** Where new local clusters get their data directories. */
  clustersDir: string;
  /** Folder of the built-in profiles a new local cluster may start from (default resources/profiles). */
  profilesDir?: string;
  /** Start the engine of a local cluster (creating it as `how` says when the directory holds none). */
  openLocal(dataDir: string, how: NewLocalCluster): Promise<ClusterDriver>;
  /** A driver for an external cluster (not connected yet). */
  connectExternal(config: KafkaConnectionConfig, id: string, schemaRegistry?: ExternalRegistryConfig): ClusterDriver;
  /** One connection attempt, reported (connections.test). */
  testExternal(config: KafkaConnectionConfig): Promise<ConnectionTestView>;
  /** Delete a local cluster's data directory; `owned`: the app created it in `clustersDir`. */
  removeLocalData(dataDir: string, owned: boolean): { deleted: boolean; note?: string };
  logger?: ErrorLogger;
}
