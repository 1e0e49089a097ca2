import { describe, expect, it } from 'vitest';
import { readSetupText, setupLines, setupText } from '../../shared/kiosk/setup-text.ts';

/** The setup QR code the console shows for a new gate, and what the kiosk's first-run screen reads back from it (issue #48). */
describe('a kiosk setup QR text', () => {
  const values = { serverUrl: 'https://tsaro.lekkisecurity.ng/v1/external', apiKey: `svc_live_${'a1B2'.repeat(10)}`, entryPoint: 'North gate = A', latitude: 6.4474, longitude: 3.4703 };

  it('reads back exactly what the console wrote, line breaks of either kind', () => {
    expect(readSetupText(setupText(values))).toEqual(values);
    expect(readSetupText(setupText(values).replace(/\n/g, '\r\n'))).toEqual(values);
    // The lines the console shows beside the QR code, copied as environment lines.
    expect(readSetupText(setupLines(values).map(([name, value]) => `${name}=${value}`).join('\n'))).toEqual(values);
  });

  it('is not a setup when a name is missing, a location is not two numbers, or it is a visitor pass', () => {
    expect(readSetupText(setupText(values).replace(/^KIOSK_API_KEY=.*$/m, ''))).toBeNull();
    expect(readSetupText(setupText(values).replace(/^KIOSK_LOCATION=.*$/m, 'KIOSK_LOCATION=Lekki'))).toBeNull();
    expect(readSetupText('TS1.LKS-7K2P.01JD7ZK3Q0C7W5N2Y8S4V6X9AB.1764000000000.1764086400000.1.KID.SIG')).toBeNull();
    expect(readSetupText('')).toBeNull();
  });
});
