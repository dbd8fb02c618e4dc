/**
 * The one window factory (docs/architecture.md#the-hosts-guards): every BrowserWindow of the app is
 * made here, sandboxed, context-isolated, without Node integration or <webview>, with
 * window.open denied (allow-listed https links go to the OS browser) and navigation off the
 * app:// origin blocked. The electron module is injected so this file carries no electron value
 * import of its own.
 */
import type { BrowserWindow, Shell } from 'electron';
import { APP_START_URL, isAllowedExternal, isAllowedNavigation } from './security.js';
import { DEFAULT_BOUNDS, MIN_SIZE, type WindowBounds } from './window-state.js';

export interface WindowDeps {
  BrowserWindow: typeof BrowserWindow;
  shell: Pick<Shell, 'openExternal'>;
}

export interface CreateWindowOptions {
  preloadPath: string;
  /** Open the dev tools (development only). */
  devTools?: boolean;
  /** Remembered size and position (window-state.ts); default 1400×900, centred. */
  bounds?: WindowBounds;
}

/** Create the main window and load the app. */
export function createSecureWindow(deps: WindowDeps, options: CreateWindowOptions): BrowserWindow {
  const { BrowserWindow } = deps;
  // The web preferences are written out literally inside `new BrowserWindow(…)` on purpose:
  // Electronegativity's window checks (scripts/electronegativity.test.ts) read only the literal
  // argument of a call spelled `new BrowserWindow`, so a spread helper or `new deps.BrowserWindow`
  // would hide them from the gate.
  const win = new BrowserWindow({
    width: options.bounds?.width ?? DEFAULT_BOUNDS.width,
    height: options.bounds?.height ?? DEFAULT_BOUNDS.height,
    ...(options.bounds?.x !== undefined && options.bounds.y !== undefined ? { x: options.bounds.x, y: options.bounds.y } : {}),
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    show: false,
    title: 'Replica Studio',
    webPreferences: {
      preload: options.preloadPath,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      // A middle click would otherwise try to open a link in a new window (denied anyway by the
      // window-open handler below); without the feature there is no such path at all.
      disableBlinkFeatures: 'Auxclick',
      devTools: options.devTools ?? false,
    },
  });
  const contents = win.webContents;
  contents.setWindowOpenHandler(({ url }) => {
    if (isAllowedExternal(url)) void deps.shell.openExternal(url);
    return { action: 'deny' };
  });
  const blockOffOrigin = (event: { preventDefault(): void }, url: string): void => {
    if (!isAllowedNavigation(url)) event.preventDefault();
  };
  contents.on('will-navigate', blockOffOrigin);
  contents.on('will-redirect', blockOffOrigin);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  win.once('ready-to-show', () => {
    if (options.bounds?.maximized) win.maximize();
    win.show();
  });
  void win.loadURL(APP_START_URL);
  return win;
}
