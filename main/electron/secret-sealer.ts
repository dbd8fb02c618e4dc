/**
 * Secrets of external connections sealed with Electron's safeStorage: encrypted with a key the
 * OS keychain holds (Keychain on macOS, DPAPI on Windows, the Secret Service or KWallet on
 * Linux), stored as base64 in the 0600 secrets file. Where the OS offers no keychain (a Linux
 * desktop without one: safeStorage would fall back to a fixed key), secrets stay in the 0600 file
 * as they are, as in headless mode, and the app says so once on stderr.
 */
import type { SafeStorage } from 'electron';
import { PLAIN_FILE_SEALER, type SecretSealer } from '../../app/config-dir/config-files.js';

export function safeStorageSealer(safeStorage: Pick<SafeStorage, 'isEncryptionAvailable' | 'encryptString' | 'decryptString'> & { getSelectedStorageBackend?: () => string }, warn: (message: string) => void = (m) => console.warn(m)): SecretSealer {
  const backend = process.platform === 'linux' ? safeStorage.getSelectedStorageBackend?.() : undefined;
  if (!safeStorage.isEncryptionAvailable() || backend === 'basic_text') {
    warn('replica-studio: no OS keychain is available; secrets of external connections are kept in an owner-only (0600) file instead.');
    return PLAIN_FILE_SEALER;
  }
  return {
    kind: 'safeStorage',
    seal: (plain) => safeStorage.encryptString(plain).toString('base64'),
    unseal: (sealed) => safeStorage.decryptString(Buffer.from(sealed, 'base64')),
  };
}
