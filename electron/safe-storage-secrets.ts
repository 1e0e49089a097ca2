import type { SafeStorage } from 'electron';
import type { SecretStore } from './core/setup/settings.ts';

/**
 * The kiosk's API key at rest, sealed with Electron's safeStorage: DPAPI on Windows, the
 * desktop keyring (libsecret/kwallet) on Linux. Where Linux has no keyring, Electron falls back
 * to a fixed key ("basic_text"), which hides the key from casual reading only; the kiosk says so
 * in its log.
 */
export function safeStorageSecrets(safeStorage: SafeStorage, warn: (message: string) => void): SecretStore {
  if (!safeStorage.isEncryptionAvailable()) throw new Error('Electron safeStorage is not available on this machine');
  if (process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text') {
    warn('No desktop keyring: the API key is sealed with Electron\'s fixed fallback key. Install gnome-keyring or kwallet on this kiosk.');
  }
  return {
    kind: 'electron-safeStorage',
    seal: (plain) => safeStorage.encryptString(plain).toString('base64'),
    open: (sealed) => safeStorage.decryptString(Buffer.from(sealed, 'base64')),
  };
}
