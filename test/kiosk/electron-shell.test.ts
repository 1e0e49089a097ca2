import { describe, expect, it } from 'vitest';
import { RENDERER_INDEX_URL } from '../../electron/renderer-protocol.ts';
import { mayUseCamera, PageRecovery, startupFailureText } from '../../electron/shell-policy.ts';

const PAGE = RENDERER_INDEX_URL;

describe('the Electron shell', () => {
  it('grants the camera to our page in our window only, for requests and for checks', () => {
    const ours = { permission: 'media', fromOurWindow: true, pageUrl: PAGE };
    expect(mayUseCamera(ours, PAGE)).toBe(true);
    expect(mayUseCamera({ ...ours, requestingUrl: PAGE }, PAGE)).toBe(true);
    // The check handler used to look at the window alone: any page shown in it would pass.
    expect(mayUseCamera({ ...ours, pageUrl: 'https://attacker.example/' }, PAGE)).toBe(false);
    expect(mayUseCamera({ ...ours, pageUrl: 'file:///tmp/other.html' }, PAGE)).toBe(false);
    expect(mayUseCamera({ ...ours, pageUrl: 'tsaro-kiosk://app/other.html' }, PAGE)).toBe(false);
    expect(mayUseCamera({ ...ours, requestingUrl: 'https://attacker.example/frame' }, PAGE)).toBe(false);
    expect(mayUseCamera({ ...ours, fromOurWindow: false }, PAGE)).toBe(false);
    expect(mayUseCamera({ ...ours, pageUrl: null }, PAGE)).toBe(false);
    // The camera, never the microphone: a request for audio, or audio and video, is refused.
    expect(mayUseCamera({ ...ours, mediaTypes: ['video'] }, PAGE)).toBe(true);
    expect(mayUseCamera({ ...ours, mediaTypes: ['audio'] }, PAGE)).toBe(false);
    expect(mayUseCamera({ ...ours, mediaTypes: ['video', 'audio'] }, PAGE)).toBe(false);
    for (const permission of ['geolocation', 'notifications', 'clipboard-read', 'midi', 'openExternal']) {
      expect(mayUseCamera({ ...ours, permission }, PAGE)).toBe(false);
    }
  });

  it('reloads a crashed page at once, then after a growing pause while it keeps crashing, and at once again after a quiet minute', () => {
    const recovery = new PageRecovery();
    const t = 1_000_000;
    expect([0, 100, 200, 300, 400, 500, 600, 700].map((ms) => recovery.reloadDelayMs(t + ms))).toEqual([0, 500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
    expect(recovery.reloadDelayMs(t + 700 + 60_000)).toBe(0);
  });

  it('tells the operator, in words, that the kiosk is not running and why', () => {
    const text = startupFailureText(new Error('Another kiosk process is using /var/lib/tsaro'));
    expect(text.title).toMatch(/could not start/);
    expect(text.message).toMatch(/NOT running/);
    expect(text.message).toContain('Another kiosk process is using /var/lib/tsaro');
    expect(startupFailureText('Electron safeStorage is not available').message).toContain('safeStorage is not available');
  });
});
