import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { ensureResponderAppBuilt } from '../../../responder-app/build.ts';
import { addResponder } from '../../../server/responders/service.ts';
import { signInUrl } from '../../../server/responders/sign-in.ts';
import { ManualClock } from '../../support/clock.ts';
import { createMigratedDatabase } from '../../support/database.ts';
import { browserTmp } from '../../support/temp.ts';
import { startTestServer, type ApiClient, type TestOrganization, type TestServer } from '../../support/server.ts';
import { launchChromium } from '../../ui/support/browser.ts';
import { startCuttableLink, type CuttableLink } from '../../ui/support/link.ts';

export const ROOT = resolve(import.meta.dirname, '../../..');
export const ARTIFACTS = join(ROOT, 'test-artifacts', 'responder-ui');
/** A cheap Android phone's screen, as the issue asks. */
export const PHONE = { width: 412, height: 915 };
/** Where the test responders stand: Lekki Phase 1, Lagos; the incidents are a few hundred metres away. */
export const LEKKI = { latitude: 6.4478, longitude: 3.4723 };

/** Phone and server share this machine's real time: the offer's countdown and the long poll run on it. */
class WallClock extends ManualClock {
  override now(): Date {
    return new Date();
  }
}

export interface Phone {
  page: Page;
  context: BrowserContext;
  responderId: string;
  token: string;
  /** The phone's connection to the server, to cut and restore. */
  link: CuttableLink;
  /** The app's address through this phone's link. */
  appUrl: string;
}

export interface ResponderStack {
  server: TestServer;
  org: TestOrganization;
  /** The partner's live owner key (admin: it reads the event log webhooks carry). */
  partner: ApiClient;
  browser: Browser;
  dir: string;
  /** A responder added to the network, and a phone signed in with its link, at the responder's place. */
  addPhone(name: string, phone: string, at?: { latitude: number; longitude: number }): Promise<Phone>;
  stop(): Promise<void>;
}

/**
 * The real server (SQLite, the dispatch sweep running), a partner organization, the built
 * responder app served by that server, and Chromium. Each phone reaches the server through a
 * relay of its own (test/ui/support/link.ts), so a test can cut one phone off while the partner
 * and the other phones stay connected.
 */
export async function startResponderStack(name: string): Promise<ResponderStack> {
  const dir = join(ARTIFACTS, name);
  mkdirSync(dir, { recursive: true });
  // Chromium's profile socket path must stay under 108 characters: a short folder of the test's own.
  const temp = browserTmp('tsaro-rui-');
  await ensureResponderAppBuilt();
  const database = await createMigratedDatabase('sqlite');
  const server = await startTestServer({ database, clock: new WallClock(), runDispatch: true });
  const org = await server.createOrganization({ name: 'Lekki Shield' });
  const browser = await launchChromium();
  const serverPort = Number(new URL(server.baseUrl).port);
  const links: CuttableLink[] = [];
  // What the app's Content-Security-Policy refused on any phone: the app must need nothing it forbids.
  const policyViolations: string[] = [];
  return {
    server,
    org,
    partner: org.live,
    browser,
    dir,
    async addPhone(responderName, phoneNumber, at = LEKKI) {
      const { responder, token } = await addResponder(server.running.database.db, server.clock, {
        name: responderName,
        phone: phoneNumber,
        latitude: at.latitude,
        longitude: at.longitude,
        environment: 'live',
      });
      const link = await startCuttableLink(serverPort);
      links.push(link);
      const origin = `http://127.0.0.1:${link.port}`;
      const context = await browser.newContext({
        viewport: PHONE,
        deviceScaleFactor: 1,
        isMobile: true,
        hasTouch: true,
        geolocation: { ...at, accuracy: 12 },
        permissions: ['geolocation'],
      });
      const page = await context.newPage();
      page.on('console', (message) => {
        if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) policyViolations.push(message.text());
      });
      return { page, context, responderId: responder.responder_id, token, link, appUrl: signInUrl(origin, token) };
    },
    async stop() {
      await browser.close();
      for (const link of links) await link.close();
      await server.stop();
      await database.drop();
      temp.restore();
      expect(policyViolations, 'what the Content-Security-Policy refused').toEqual([]);
    },
  };
}

const DOCS_SCREENSHOTS = join(ROOT, 'docs', 'screenshots', 'responder');

/** Keeps a screenshot of the phone in the test's folder; with TSARO_UPDATE_SCREENSHOTS=1 also in docs/screenshots/responder. */
export async function keepScreenshot(page: Page, dir: string, name: string): Promise<void> {
  const image = await page.screenshot({ path: join(dir, `${name}.png`) });
  if (process.env.TSARO_UPDATE_SCREENSHOTS === '1') {
    mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
    writeFileSync(join(DOCS_SCREENSHOTS, `${name}.png`), image);
  }
}

/** A live incident from the partner, a few hundred metres from the responders. */
export async function reportIncident(partner: ApiClient, overrides: Record<string, unknown> = {}) {
  const created = await partner.post('/incidents', {
    category: 'medical',
    severity: 'high',
    subject: { name: 'Chiamaka Nwosu', phone: '+234 803 555 0142', reference: 'member-7781' },
    location: { coordinates: [3.4751, 6.4493], address: '14 Admiralty Way, Lekki Phase 1', landmark: 'Opposite the Mega Chicken' },
    description: 'Collapsed in the lobby, breathing',
    ...overrides,
  });
  expect(created.status).toBe(201);
  return created.body.incident as { incident_id: string; created_at: string };
}

/** The incident as the partner sees it: its status and its timeline's events. */
export async function partnerView(partner: ApiClient, incidentId: string) {
  const { body } = await partner.get(`/incidents/${incidentId}`);
  return { status: body.incident.status as string, events: (body.incident.timeline as { event: string }[]).map((entry) => entry.event) };
}

/** The webhook events the partner's endpoints are sent for this incident (the event log), oldest first: `type:status`. */
export async function partnerEvents(partner: ApiClient, incidentId: string): Promise<string[]> {
  const { body } = await partner.get(`/events?resource_id=${incidentId}&limit=100`);
  return (body.results as { id: string; type: string; data: { status: string } }[])
    .slice()
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((event) => `${event.type}:${event.data.status}`);
}
