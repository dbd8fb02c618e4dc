/**
 * Where the app keeps its configuration (the connection list, the secrets of external
 * connections, imported profiles), never inside a cluster's data directory:
 *
 *   `--config DIR`                   when given
 *   $REPLICA_STUDIO_CONFIG           when set
 *   Linux    $XDG_CONFIG_HOME/replica-studio (default ~/.config/replica-studio)
 *   macOS    ~/Library/Application Support/replica-studio
 *   Windows  %APPDATA%\replica-studio
 *
 * These are the folders Electron's `app.getPath('userData')` names for this app, so the desktop
 * app and the headless host share one list (secrets sealed by one are entered again in the other:
 * the desktop app seals with the OS keychain, the headless host keeps an owner-only file).
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const APP_FOLDER = 'replica-studio';

export function defaultConfigDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home: string = homedir()): string {
  if (env.REPLICA_STUDIO_CONFIG) return resolve(env.REPLICA_STUDIO_CONFIG);
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', APP_FOLDER);
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), APP_FOLDER);
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), APP_FOLDER);
}
