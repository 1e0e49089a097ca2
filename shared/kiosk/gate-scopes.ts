/**
 * The scopes a gate kiosk needs, and what each is for: exactly these, never `admin`. The kiosk's
 * setup check (electron/core/setup/setup.ts) holds a key to them, and the console's "new gate" flow
 * creates a key with them.
 */
export const GATE_SCOPES = [
  ['access_codes:validate', "scan codes, read the code feed and send the kiosk's heartbeat"],
  ['access_codes:write', 'record walk-ins and checkouts'],
  ['logs:read', 'list who is on the premises'],
  ['incidents:write', 'send the panic SOS'],
  ['incidents:read', 'follow the SOS incident'],
] as const;
