import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.ts';
import { launchChromium } from './support/browser.ts';
import { ensureRendererBuilt } from './support/build-renderer.ts';
import { GATE, startKioskHost, startKioskStack, type KioskHost, type KioskStack } from './support/kiosk-stack.ts';
import { keepScreenshot, kioskCall, openKiosk } from './support/page.ts';

const WIDE = { width: 1366, height: 768 };

/**
 * Another gate's SOS on this gate's screen (issue #49): two kiosk hosts of one site, set up from
 * KIOSK_PEER_PORT and KIOSK_PEERS, certified while the server is up; the server stops; the SOS
 * pressed at the back gate reaches no server, and the main gate's status bar says so in red until
 * the server returns and a gate gets it through.
 */
describe('the gates of a site, on screen', () => {
  let stack: KioskStack;
  let back: KioskHost;
  let browser: Browser;
  beforeAll(async () => {
    await ensureRendererBuilt();
    const [mainPort, backPort] = [await freePort(), await freePort()];
    stack = await startKioskStack({ name: 'peer-sos', env: { KIOSK_PEER_PORT: String(mainPort), KIOSK_PEERS: `127.0.0.1:${backPort}`, KIOSK_HEARTBEAT_S: '5' } });
    back = await startKioskHost({
      dir: stack.dir,
      tmp: `${stack.dir}`,
      logName: 'back-gate.log',
      env: { KIOSK_PEER_PORT: String(backPort), KIOSK_PEERS: `127.0.0.1:${mainPort}`, KIOSK_HEARTBEAT_S: '5' },
      configured: { serverUrl: stack.serverUrl, apiKey: stack.gateKey, entryPoint: 'Back gate', latitude: GATE.latitude, longitude: GATE.longitude },
    });
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await back?.stop();
    await stack?.stop();
  });

  it("an SOS at the back gate that no gate got to the server is a red line on the main gate's screen, gone once it is through", async () => {
    const backGate = { kioskUrl: back.url };
    // Certified at their first heartbeat, they find each other.
    for (const gate of [stack, backGate]) {
      await expect.poll(async () => (await kioskCall(gate, 'kioskStatus', {})).peers.gates.filter((peer) => peer.ready).length, { timeout: 60_000 }).toBe(1);
    }
    await stack.stopServer();
    const pressed = await kioskCall(backGate, 'panicPress', { pressId: 'press-back-0001' });
    expect(pressed.delivery).not.toBe('sent');

    const page = await openKiosk(browser, stack.kioskUrl, WIDE, 'Sani Abubakar');
    const line = page.getByTestId('status-peer-sos');
    await line.waitFor({ timeout: 15_000 });
    expect(await line.innerText()).toMatch(/SOS at Back gate \(\d\d:\d\d\) not sent yet: call for help now/);
    await keepScreenshot(page, stack.dir, 'peer-sos');

    // The server returns: a gate gets it through (the back gate itself, or the main gate carrying it), and the line goes.
    await stack.startServer();
    await line.waitFor({ state: 'detached', timeout: 30_000 });
    expect((await kioskCall(backGate, 'panicStatus', { pressId: 'press-back-0001' }))?.delivery).toBe('sent');
    await page.close();
  }, 180_000);
});
