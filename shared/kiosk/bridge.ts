import type { KioskErrorBody } from './calls.ts';

/**
 * What Electron's preload exposes on `window.tsaroKiosk` (contextBridge): the handler map's one
 * entry point. Errors cross the bridge as data, since Error subclasses do not survive it.
 * Kept apart from the client so the preload bundles no more than these lines.
 */
export interface KioskBridge {
  call(name: string, input: unknown): Promise<{ result: unknown } | { error: KioskErrorBody }>;
}

export const KIOSK_BRIDGE_NAME = 'tsaroKiosk';
/** The browser host's calls: `POST /api/calls/<name>`. */
export const KIOSK_CALL_PATH = '/api/calls/';
