import { readJsonSetting, writeJsonSetting } from '../settings-store.ts';
import type { KioskDb } from '../database.ts';

/**
 * How the API key is kept at rest. The Electron shell passes one backed by `safeStorage` (the
 * OS keyring / DPAPI); the browser host keeps it in the kiosk's own database file, which only
 * the kiosk's OS user can read (said so in the README).
 */
export interface SecretStore {
  readonly kind: string;
  seal(plain: string): string;
  open(sealed: string): string;
}

export const plainSecretStore: SecretStore = {
  kind: 'plain',
  seal: (plain) => plain,
  open: (sealed) => sealed,
};

/** Where the kiosk is and what it talks to. */
export interface KioskSettings {
  serverUrl: string;
  apiKey: string;
  entryPoint: string;
  latitude: number;
  longitude: number;
  /** Who a guard calls when an SOS cannot be sent. */
  alarmPhones?: string;
}

interface StoredSetup {
  serverUrl: string;
  entryPoint: string;
  latitude: number;
  longitude: number;
  apiKeySealed: string;
  sealedWith: string;
  alarmPhones?: string;
}

export function readStoredSetup(db: KioskDb, secrets: SecretStore): KioskSettings | undefined {
  const stored = readJsonSetting<StoredSetup>(db, 'setup');
  if (!stored) return undefined;
  if (stored.sealedWith !== secrets.kind) {
    throw new Error(`The kiosk's API key was sealed with "${stored.sealedWith}" and this host opens "${secrets.kind}"; run the setup again`);
  }
  return {
    serverUrl: stored.serverUrl,
    apiKey: secrets.open(stored.apiKeySealed),
    entryPoint: stored.entryPoint,
    latitude: stored.latitude,
    longitude: stored.longitude,
    ...(stored.alarmPhones ? { alarmPhones: stored.alarmPhones } : {}),
  };
}

export function writeStoredSetup(db: KioskDb, secrets: SecretStore, settings: KioskSettings): void {
  const stored: StoredSetup = {
    serverUrl: settings.serverUrl,
    entryPoint: settings.entryPoint,
    latitude: settings.latitude,
    longitude: settings.longitude,
    apiKeySealed: secrets.seal(settings.apiKey),
    sealedWith: secrets.kind,
    ...(settings.alarmPhones ? { alarmPhones: settings.alarmPhones } : {}),
  };
  writeJsonSetting(db, 'setup', stored);
}

/** `svc_live_…WXYZ`. */
export function apiKeyHint(apiKey: string): string {
  const prefix = apiKey.startsWith('svc_live_') ? 'svc_live_' : apiKey.startsWith('svc_test_') ? 'svc_test_' : '';
  return `${prefix}…${apiKey.slice(-4)}`;
}

export function environmentOfKey(apiKey: string): 'live' | 'sandbox' | null {
  return apiKey.startsWith('svc_live_') ? 'live' : apiKey.startsWith('svc_test_') ? 'sandbox' : null;
}

/** `KIOSK_*` variables, when the operator set them all; a partial set is an error naming what is missing. */
export function settingsFromEnvironment(env: Record<string, string | undefined>): KioskSettings | undefined {
  const names = ['KIOSK_SERVER_URL', 'KIOSK_API_KEY', 'KIOSK_ENTRY_POINT', 'KIOSK_LOCATION'] as const;
  const present = names.filter((name) => env[name]?.trim());
  if (present.length === 0) return undefined;
  const missing = names.filter((name) => !env[name]?.trim());
  if (missing.length) throw new Error(`Set ${missing.join(', ')} too, or none of the KIOSK_* settings to use the first-run setup`);
  const location = parseLocation(env.KIOSK_LOCATION!);
  if (!location) throw new Error('KIOSK_LOCATION must be "lat,lng", e.g. 6.4281,3.4219');
  return {
    serverUrl: env.KIOSK_SERVER_URL!.trim(),
    apiKey: env.KIOSK_API_KEY!.trim(),
    entryPoint: env.KIOSK_ENTRY_POINT!.trim(),
    ...location,
    // Optional, beside the four: who a guard calls when an SOS cannot be sent.
    ...(env.KIOSK_ALARM_PHONES?.trim() ? { alarmPhones: env.KIOSK_ALARM_PHONES.trim().slice(0, 200) } : {}),
  };
}

export function parseLocation(text: string): { latitude: number; longitude: number } | undefined {
  const parts = text.split(',').map((part) => Number(part.trim()));
  if (parts.length !== 2 || parts.some((n) => !Number.isFinite(n))) return undefined;
  const [latitude, longitude] = parts as [number, number];
  if (latitude < -90 || latitude > 90 || longitude < -180 || longitude > 180) return undefined;
  return { latitude, longitude };
}
