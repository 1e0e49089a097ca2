/**
 * A gate kiosk's setup values as the console shows them once (as text and as a QR code) and the
 * kiosk's first-run screen reads them back (issue #48: scanned, so nobody types a 49-character
 * key): environment lines, `KIOSK_SERVER_URL=...`, one a line, the names of CONTRACT.md's
 * operator interface. Written once here for both ends.
 */

export const SETUP_NAMES = ['KIOSK_SERVER_URL', 'KIOSK_API_KEY', 'KIOSK_ENTRY_POINT', 'KIOSK_LOCATION'] as const;

export interface SetupValues {
  serverUrl: string;
  apiKey: string;
  entryPoint: string;
  latitude: number;
  longitude: number;
}

/** The values as environment lines, in the contract's order. */
export function setupLines(values: SetupValues): [string, string][] {
  return [
    ['KIOSK_SERVER_URL', values.serverUrl],
    ['KIOSK_API_KEY', values.apiKey],
    ['KIOSK_ENTRY_POINT', values.entryPoint],
    ['KIOSK_LOCATION', `${values.latitude},${values.longitude}`],
  ];
}

/** What the QR code holds: the lines, joined by line breaks. */
export const setupText = (values: SetupValues): string => setupLines(values).map(([name, value]) => `${name}=${value}`).join('\n');

/**
 * The values a scanned text holds, or null when it is not a kiosk's setup (a visitor's pass held
 * up by mistake, a stray QR). Every one of the four names must be there; lines may end in CR LF.
 */
export function readSetupText(text: string): SetupValues | null {
  const found = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf('=');
    if (at > 0) found.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
  }
  if (!SETUP_NAMES.every((name) => found.get(name))) return null;
  const [latitude, longitude] = found.get('KIOSK_LOCATION')!.split(',').map((part) => Number(part.trim()));
  if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) return null;
  return { serverUrl: found.get('KIOSK_SERVER_URL')!, apiKey: found.get('KIOSK_API_KEY')!, entryPoint: found.get('KIOSK_ENTRY_POINT')!, latitude: latitude!, longitude: longitude! };
}
