/**
 * The connections service as a host sets it up: the list, secrets and imported profiles in the
 * app's configuration directory (app/config-dir/config-files.ts), external clusters through the
 * Kafka driver, and local clusters through the engine the host knows how to start (`openLocal`:
 * a child process for the headless host, a utility process for the desktop app).
 */
import { join } from 'node:path';
import type { EngineService, ErrorLogger } from '../../api/service.js';
import { testKafkaConnection } from '../../kafka-client/test-connection.js';
import { ConfigDirectory, PLAIN_FILE_SEALER, removeClusterDirectory, type SecretSealer } from '../../config-dir/config-files.js';
import type { ClusterDriver } from '../cluster-driver.js';
import { createKafkaDriver } from '../kafka-driver/kafka-driver.js';
import { createConnectionsService, type ConnectionsService } from './connections-service.js';
import type { NewLocalCluster } from './connections-options.js';

export interface HostConnectionsOptions {
  /** The app's configuration directory. */
  configDir: string;
  /** How secrets are sealed (default: kept as they are in a 0600 file, for headless mode). */
  sealer?: SecretSealer;
  /** The cluster the host serves now. */
  host: () => { dataDir: string; driver: EngineService } | undefined;
  openLocal(dataDir: string, how: NewLocalCluster): Promise<ClusterDriver>;
  profilesDir?: string;
  logger?: ErrorLogger;
  /** Bound of one connections.test (default 10 000 ms). */
  testTimeoutMs?: number;
}

export function createHostConnections(options: HostConnectionsOptions): ConnectionsService {
  const dir = new ConfigDirectory(options.configDir);
  return createConnectionsService({
    store: dir,
    secrets: dir.secrets(options.sealer ?? PLAIN_FILE_SEALER),
    host: options.host,
    clustersDir: join(options.configDir, 'clusters'),
    ...(options.profilesDir ? { profilesDir: options.profilesDir } : {}),
    openLocal: options.openLocal,
    connectExternal: (config, id, schemaRegistry) =>
      createKafkaDriver(config, {
        connection: id,
        ...(schemaRegistry ? { schemaRegistry } : {}),
        ...(options.logger ? { logger: options.logger } : {}),
        ...(options.profilesDir ? { profilesDir: options.profilesDir } : {}),
        importedProfiles: { load: () => dir.loadProfiles(), save: (name, json) => dir.saveProfile(name, json) },
      }),
    testExternal: (config) => testKafkaConnection(config, options.testTimeoutMs ?? 10_000),
    removeLocalData: removeClusterDirectory,
    ...(options.logger ? { logger: options.logger } : {}),
  });
}
