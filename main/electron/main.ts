/**
 * Electron main process: single-instance lock, app:// scheme with CSP, default-deny permissions,
 * the secure window, the native menu, and the IPC bridge (`rs:invoke` in, `rs:event` out).
 *
 * The engine runs off the UI thread, in an Electron utility process forked on the engine bundle
 * next to this one (dist/electron/engine.cjs, see utility-engine.ts); this process only relays
 * calls and events, so it never waits on SQLite. better-sqlite3 is a native module: it is loaded
 * by the utility process and must be built for Electron's ABI (electron-builder's
 * install-app-deps) before this runs.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BrowserWindow, Menu, app, dialog, ipcMain, protocol, safeStorage, screen, session, shell, utilityProcess, type IpcMainInvokeEvent, type MenuItemConstructorOptions } from 'electron';
import type { EngineEvent, Result } from '../../app/api/contract.js';
import type { ErrorView } from '../../app/api/errors.js';
import type { RemoteService } from '../engine/remote-service.js';
import { APP_ORIGIN, EVENT_CHANNEL, INVOKE_CHANNEL, handleInvoke } from './ipc-bridge.js';
import { EventBatcher } from '../events/event-batcher.js';
import { EventCoalescer } from '../events/event-coalescer.js';
import { APP_SCHEME_PRIVILEGES, installPermissionPolicy, isAllowedNavigation, registerAppProtocol } from './security.js';
import { startUtilityEngine } from './utility-engine.js';
import { startSchemaRegistry, type SchemaRegistryServer } from '../schema-registry/schema-registry-server.js';
import { safeStorageSealer } from './secret-sealer.js';
import { createHostConnections } from '../../app/service/connections/host-connections.js';
import type { ConnectionsService } from '../../app/service/connections/connections-service.js';
import { embeddedDriver } from '../../app/service/embedded-driver/embedded-driver.js';
import { loadBounds, saveBounds } from './window-state.js';
import { createSecureWindow } from './window.js';
import { useZstdCompressor } from '../../app/kafka-client/kafkajs-codecs.js';
import { loadZstdCompressor } from '../engine/zstd-compressor.js';

const isDev = !app.isPackaged || process.env.REPLICA_STUDIO_DEV === '1';
const rendererDir = process.env.REPLICA_STUDIO_RENDERER_DIR ?? join(app.getAppPath(), 'dist', 'renderer');
const preloadPath = join(__dirname, 'preload.cjs');
/** The engine bundle, built next to this one (vite.electron.config.ts, entry `engine`). */
const enginePath = join(__dirname, 'engine.cjs');
/** Built-in profiles: shipped as extra resources when packaged (electron-builder.yml), else the repo's. */
const profilesDir = app.isPackaged ? join(process.resourcesPath, 'profiles') : undefined;
/** How long quitting or switching clusters waits for the engine's orderly close before killing it. */
const ENGINE_CLOSE_MS = 15_000;

protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]);
// The Kafka driver's zstd batches (produce to an external cluster): the engine's WebAssembly
// compressor, as `npm run serve` gives it (main/cli/cli.ts), instantiated on the first one.
useZstdCompressor(() => loadZstdCompressor());

/**
 * The Kafka driver's codec table as this bundle holds it: exported so that the built bundle's
 * zstd can be checked in Node (scripts/electron-preload-bundle.test.ts), where Electron cannot run.
 */
export { kafkajsCodec } from '../../app/kafka-client/kafkajs-codecs.js';

/** The engine of the open cluster (undefined while none is open, e.g. during a switch). */
let engine: RemoteService | undefined;
let engineDataDir: string | undefined;
let unsubscribe: (() => void) | undefined;
/**
 * Events reach the window as arrays, those of one turn together (`main/events/event-batcher.ts`): one IPC
 * message per event made the page handle each as a task of its own, and a burst (33,000 events
 * for a controlled shutdown at 100,000 partitions) left it far behind the cluster.
 */
const toWindow = new EventBatcher({
  send: (events) => {
    if (win && !win.isDestroyed()) win.webContents.send(EVENT_CHANNEL, events);
  },
});
/** The open cluster's high-watermark updates, coalesced per partition per 100 ms as the HTTP host does (`main/events/event-coalescer.ts`). */
const openClusterEvents = new EventCoalescer({ send: (event) => toWindow.push(event) });
let win: BrowserWindow | undefined;
/**
 * The connection list (app.getPath('userData')): calls without `connection` go to the open
 * cluster above; other local clusters run in utility processes of their own, external ones
 * through the Kafka driver. Created once the app is ready (safeStorage needs it).
 */
let connections: ConnectionsService | undefined;

function defaultDataDir(): string {
  return join(app.getPath('userData'), 'clusters', 'default');
}

/** Close the open engine in order (controlled shutdown), if any. */
async function closeEngine(): Promise<void> {
  const closing = engine;
  unsubscribe?.();
  unsubscribe = undefined;
  openClusterEvents.flush();
  engine = undefined;
  engineDataDir = undefined;
  if (!closing) return;
  const code = await closing.close();
  if (code !== 0) console.error(`replica-studio: the engine process exited with ${code}`);
}

/**
 * Close the open engine, then start one on `dataDir` (in a utility process) and relay its events.
 * A new cluster starts as every host starts one (main/engine/open-cluster.ts, NEW_CLUSTER_PROFILE).
 */
async function switchCluster(dataDir: string): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  await closeEngine();
  schemaRegistry?.reset();
  const started = await startUtilityEngine(utilityProcess, {
    enginePath,
    dataDir,
    // Kafka clients reach the desktop cluster at localhost:9092 (or free ports, said on stderr).
    kafkaPort: 'default',
    killAfterMs: ENGINE_CLOSE_MS,
    ...(profilesDir ? { profilesDir } : {}),
  });
  engine = started;
  engineDataDir = dataDir;
  unsubscribe = started.subscribe((event: EngineEvent) => openClusterEvents.push(event));
}

/**
 * The open cluster's Schema Registry (Confluent's REST API, main/schema-registry/) on
 * 127.0.0.1:8081, or a free port when 8081 is taken, said on one line; it follows the cluster
 * the window has open.
 */
let schemaRegistry: SchemaRegistryServer | undefined;
const SCHEMA_REGISTRY_PORT = 8081;

async function startRegistry(): Promise<void> {
  try {
    schemaRegistry = await startSchemaRegistry({ service: { call: (method: string, input: unknown) => (engine ? engine.call(method, input) : Promise.resolve(NO_CLUSTER)) } as Pick<RemoteService, 'call'>, port: SCHEMA_REGISTRY_PORT, fallbackToFreePort: true });
    console.log(`replica-studio: Schema Registry on ${schemaRegistry.url}`);
  } catch (e) {
    console.error(`replica-studio: the Schema Registry did not start: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** The answer while no engine runs (during a switch of clusters): retriable, the next one will. */
const NO_CLUSTER: { ok: false; error: ErrorView } = { ok: false, error: { code: 'INVALID_STATE', message: 'No cluster is open.', retriable: true } };

async function call(method: string, input: unknown): Promise<Result<unknown>> {
  if (!engine || !connections) return NO_CLUSTER;
  return connections.call(method, input);
}

function startConnections(): ConnectionsService {
  const service = createHostConnections({
    configDir: app.getPath('userData'),
    sealer: safeStorageSealer(safeStorage),
    host: () => (engine && engineDataDir ? { dataDir: engineDataDir, driver: engine } : undefined),
    async openLocal(dataDir, how) {
      mkdirSync(dataDir, { recursive: true });
      const started = await startUtilityEngine(utilityProcess, {
        enginePath,
        dataDir,
        killAfterMs: ENGINE_CLOSE_MS,
        ...(profilesDir ? { profilesDir } : {}),
        ...(how.brokers !== undefined ? { brokers: how.brokers } : how.profile !== undefined ? { initialProfile: how.profile } : {}),
        ...(how.staticConfigs ? { staticConfigs: how.staticConfigs } : {}),
      });
      await started.ready();
      return embeddedDriver(started, async () => void (await started.close()));
    },
    ...(profilesDir ? { profilesDir } : {}),
  });
  // Events of the other local clusters, tagged with their connection; the open cluster's are relayed by switchCluster.
  service.subscribeConnections((event: EngineEvent) => toWindow.push(event));
  return service;
}

function showError(title: string, message: string): void {
  dialog.showErrorBox(title, message);
}

async function newCluster(): Promise<void> {
  const picked = await dialog.showOpenDialog({ title: 'New cluster: choose an empty folder', properties: ['openDirectory', 'createDirectory'] });
  const dir = picked.filePaths[0];
  if (picked.canceled || !dir) return;
  const previous = engineDataDir;
  try {
    await switchCluster(dir);
  } catch (e) {
    showError('Cannot open the cluster', e instanceof Error ? e.message : String(e));
    // Go back to the cluster that was open, so the window is not left without one.
    if (previous) await switchCluster(previous).catch((again: unknown) => showError('Cannot reopen the previous cluster', again instanceof Error ? again.message : String(again)));
  }
  win?.webContents.reload();
}

async function importProfile(): Promise<void> {
  const picked = await dialog.showOpenDialog({ title: 'Import profile', properties: ['openFile'], filters: [{ name: 'Profile', extensions: ['json'] }] });
  const file = picked.filePaths[0];
  if (picked.canceled || !file) return;
  const result = await call('profiles.import', { json: readFileSync(file, 'utf8') });
  if (!result.ok) showError('Import failed', result.error?.message ?? 'Unknown error');
  else void dialog.showMessageBox({ type: 'info', message: `Imported profile ${(result.value as { name: string }).name}.` });
}

async function exportProfile(): Promise<void> {
  const list = await call('profiles.list', {});
  const names = list.ok ? (list.value as Array<{ name: string }>).map((p) => p.name) : [];
  if (names.length === 0) return showError('Export profile', list.ok ? 'There is no profile to export.' : (list.error?.message ?? 'Unknown error'));
  const shown = names.slice(0, 8);
  const choice = await dialog.showMessageBox({ type: 'question', message: 'Export which profile?', buttons: [...shown, 'Cancel'], cancelId: shown.length });
  const name = shown[choice.response];
  if (name === undefined) return;
  const target = await dialog.showOpenDialog({ title: 'Export profile to folder', properties: ['openDirectory', 'createDirectory'] });
  const dir = target.filePaths[0];
  if (target.canceled || !dir) return;
  const result = await call('profiles.export', { name });
  if (!result.ok) return showError('Export failed', result.error?.message ?? 'Unknown error');
  for (const f of result.value as Array<{ filename: string; contents: string }>) writeFileSync(join(dir, f.filename.replace(/[/\\]/g, '_')), f.contents);
}

/** About: version, the engine's versions, and where this cluster's data lives. */
async function showAbout(): Promise<void> {
  const dataDir = engineDataDir ?? defaultDataDir();
  const { response } = await dialog.showMessageBox({
    type: 'info',
    title: 'About Replica Studio',
    message: `Replica Studio ${app.getVersion()}`,
    detail: [`Data: ${dataDir}`, `Electron ${process.versions.electron} · Chromium ${process.versions.chrome} · Node ${process.versions.node}`].join('\n'),
    buttons: ['OK', 'Open Data Directory'],
    defaultId: 0,
    cancelId: 0,
  });
  if (response === 1) void shell.openPath(dataDir);
}

function buildMenu(): Menu {
  const template: MenuItemConstructorOptions[] = [
    {
      label: 'File',
      submenu: [
        { label: 'New Cluster…', click: () => void newCluster() },
        { label: 'Open Data Directory', click: () => void shell.openPath(engineDataDir ?? defaultDataDir()) },
        { type: 'separator' },
        { label: 'Import Profile…', click: () => void importProfile() },
        { label: 'Export Profile…', click: () => void exportProfile() },
        { type: 'separator' },
        { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [{ role: 'reload' }, ...(isDev ? ([{ role: 'toggleDevTools' }] as MenuItemConstructorOptions[]) : []), { type: 'separator' }, { role: 'togglefullscreen' }],
    },
    { label: 'Help', submenu: [{ label: 'About Replica Studio', click: () => void showAbout() }] },
  ];
  return Menu.buildFromTemplate(template);
}

function createWindow(): void {
  const stateFile = join(app.getPath('userData'), 'window-state.json');
  const displays = screen.getAllDisplays().map((d) => d.workArea);
  const created = createSecureWindow({ BrowserWindow, shell }, { preloadPath, devTools: isDev, bounds: loadBounds(stateFile, displays) });
  win = created;
  // Remember size and position when the window closes (the normal bounds, even when maximized).
  created.on('close', () => saveBounds(stateFile, { ...created.getNormalBounds(), maximized: created.isMaximized() }));
  created.on('closed', () => (win = undefined));
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!win) return;
    if (win.isMinimized()) win.restore();
    win.focus();
  });
  // Any webContents created anywhere gets the same rules, belt and braces with the factory.
  app.on('web-contents-created', (_event, contents) => {
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    contents.on('will-navigate', (event, url) => {
      if (!isAllowedNavigation(url)) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
  app
    .whenReady()
    .then(async () => {
      app.setAboutPanelOptions({ applicationName: 'Replica Studio', applicationVersion: app.getVersion(), credits: `Data: ${defaultDataDir()}` });
      installPermissionPolicy(session.defaultSession);
      registerAppProtocol(protocol, rendererDir);
      if (!existsSync(rendererDir)) console.warn(`replica-studio: no built renderer in ${rendererDir}; the window shows a placeholder`);
      await switchCluster(defaultDataDir());
      connections = startConnections();
      await startRegistry();
      ipcMain.handle(INVOKE_CHANNEL, (event: IpcMainInvokeEvent, method: unknown, payload: unknown) => {
        const frame = event.senderFrame;
        const service = engine && connections;
        if (!service) return NO_CLUSTER;
        return handleInvoke({ senderUrl: frame?.url, isMainFrame: frame !== null && frame === event.sender.mainFrame, method, payload }, service, APP_ORIGIN);
      });
      Menu.setApplicationMenu(buildMenu());
      createWindow();
    })
    .catch((e: unknown) => {
      dialog.showErrorBox('Replica Studio cannot start', e instanceof Error ? e.message : String(e));
      app.exit(1);
    });
  app.on('window-all-closed', () => app.quit());
  // Quitting waits for the engine's orderly close (controlled shutdown, storage closed); Electron
  // would otherwise end the utility process with the app. Every appended batch is already on disk,
  // so a kill loses nothing written; the orderly close keeps the brokers' shutdown clean.
  app.on('will-quit', (event) => {
    if (!engine && !connections) return; // nothing open, or already closed: quit now
    event.preventDefault();
    const closingConnections = connections;
    connections = undefined;
    const closingRegistry = schemaRegistry;
    schemaRegistry = undefined;
    void Promise.resolve(closingRegistry?.close())
      .then(() => closingConnections?.close())
      .then(() => closeEngine())
      .catch((e: unknown) => console.error('replica-studio: the engine did not close in order', e))
      .finally(() => app.quit());
  });
}
