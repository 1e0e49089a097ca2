import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleAppBuilt } from '../../console/build.ts';
import { ManualClock } from '../support/clock.ts';
import type { TestOrganization } from '../support/server.ts';
import { browserTmp } from '../support/temp.ts';
import { ensureRendererBuilt } from '../ui/support/build-renderer.ts';
import { launchChromium } from '../ui/support/browser.ts';
import { pictureFrame, replaceFrame, writeEmptyVideo } from '../ui/support/fake-camera.ts';
import { startKioskHost, type KioskHost } from '../ui/support/kiosk-stack.ts';
import { PORTRAIT, SMALL } from '../ui/support/page.ts';
import { axeViolations, inviteFromHost, joinInBrowser } from './support/journey.ts';
import { ARTIFACTS, SCREENS, startConsoleStack, type ConsoleStack, type WatchedPage } from './support/stack.ts';

/**
 * Issue #48, "its own name and places": an estate company that began as the demo makes Tsaro its
 * own. The owner renames the organization and its code prefix, and a new pass shows the name; a
 * gate's kiosk is set up by scanning the console's setup QR code with the kiosk's own camera (a
 * screenshot of the console's QR, shown to Chromium's fake camera); the owner renames the estate,
 * places it on the map, renames the gate (the kiosk, still sending the old name, lands at the
 * renamed gate), makes it the default site and archives the demo's; and invites an estate
 * manager, told in words what that is. Every changed screen is kept as a screenshot, at 1366x768
 * for the console and 1024x600 and 800x1280 for the kiosk, and checked by axe-core.
 */

/** The kiosk scans and beats on the machine's real time; the owner's one TOTP code is their first, so a real clock serves it too. */
class WallClock extends ManualClock {
  override now(): Date {
    return new Date();
  }
}

const DIR = join(ARTIFACTS, 'estate-names');
const ESTATE = { name: 'Lekki Phase 1', gates: ['Main gate', 'Service gate'], latitude: 6.4474, longitude: 3.4703 };

let stack: ConsoleStack;
let org: TestOrganization;
let owner: WatchedPage;
let page: Page;
let kioskHost: KioskHost;
let kioskBrowser: Browser;
let kiosk: Page;
let camera: string;
let estateId: string;
let demoSiteId: string;
let demoCode: string;
let restoreTemp: () => void = () => undefined;

const nav = (label: string) => page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label, exact: true }).click();
const shoot = async (target: Page, name: string) => {
  await target.mouse.move(0, 0);
  const size = target.viewportSize()!;
  await target.screenshot({ path: join(DIR, `${name}-${size.width}x${size.height}.png`) });
};
/** The console's screens are changed here: each is looked at by axe-core, serious and critical findings fail. */
const accessible = async (target: Page) => expect(await axeViolations(target)).toEqual([]);
const siteRow = (name: string) => page.getByTestId('site-row').filter({ hasText: name });

beforeAll(async () => {
  await Promise.all([ensureRendererBuilt(), ensureConsoleAppBuilt()]);
  stack = await startConsoleStack('estate-names', { clock: new WallClock() });
  // Made as the demo is: "Demo Estate", codes beginning DEMO-.
  org = await stack.server.createOrganization({ name: 'Demo Estate' });
  demoSiteId = (await org.live.get('/sites')).body.results[0].site_id;
  const made = await org.live.post('/sites', { name: ESTATE.name, entry_points: ESTATE.gates, call_list: [{ name: 'Estate control', phone: '0803 123 4567' }] });
  expect(made.status).toBe(201);
  estateId = made.body.site.site_id;
  demoCode = (await org.live.post('/access-codes', { visitor_name: 'Before the rename', visitor_phone: '+2348031112233', site_id: estateId })).body.access_code.code;
  expect(demoCode).toMatch(/^DEMO-/);

  owner = await stack.open(SCREENS.desktop);
  page = owner.page;
  await joinInBrowser(page, stack.server, await inviteFromHost(stack.server, org.organizationId, 'owner', 'ngozi@lekkisecurity.ng', 'Ngozi Eze'), {
    email: 'ngozi@lekkisecurity.ng',
    name: 'Ngozi Eze',
    role: 'owner',
  });

  // A fresh kiosk at the estate's main gate, not set up yet; its camera looks at an empty gate until the console's QR is held up.
  const temp = browserTmp('tsaro-names-');
  restoreTemp = temp.restore;
  kioskHost = await startKioskHost({ dir: DIR, tmp: temp.dir, env: { KIOSK_HEARTBEAT_S: '5' } });
  camera = join(temp.dir, 'kiosk-camera.y4m');
  writeEmptyVideo(camera);
  kioskBrowser = await launchChromium({ cameraVideo: camera });
  kiosk = await kioskBrowser.newPage({ viewport: SMALL });
}, 300_000);

afterAll(async () => {
  await kioskBrowser?.close();
  await kioskHost?.stop();
  await stack?.stop();
  restoreTemp();
});

describe('an estate company runs on its own names (issue #48; real server, Chromium, a real kiosk with a fake camera)', () => {
  it('the owner renames the organization and its code prefix; a new pass shows the new name, and codes issued before keep theirs', async () => {
    await nav('Organization');
    const form = page.getByTestId('organization-form');
    await form.getByLabel('Name').fill('Lekki Security Ltd');
    await form.getByLabel('Code prefix').fill('lks');
    expect(await page.getByTestId('pass-preview').textContent()).toContain('Lekki Security Ltd · visitor pass');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByRole('status').waitFor();
    await expect.poll(() => page.getByTestId('organization').textContent(), { timeout: 5_000 }).toBe('Lekki Security Ltd');
    await shoot(page, 'organization');
    await accessible(page);
    expect((await org.live.get('/organization')).body.organization).toMatchObject({ name: 'Lekki Security Ltd', code_prefix: 'LKS' });

    // A code for the estate: nothing preselects the site, so the form waits for one to be chosen.
    await page.goto('/console/visitors/codes');
    await page.getByTestId('issue-one').click();
    const issue = page.getByTestId('issue-one-form');
    const choice = issue.getByTestId('new-site-choice');
    expect(await choice.inputValue()).toBe('');
    await issue.getByLabel("Visitor's name").fill('Amaka Nwosu');
    await issue.getByLabel('Phone').fill('0803 555 6677');
    await issue.getByRole('button', { name: 'Issue the code' }).click();
    expect(await choice.evaluate((select) => (select as unknown as { validity: { valueMissing: boolean } }).validity.valueMissing)).toBe(true);
    expect((await org.live.get(`/access-codes?search=${encodeURIComponent('Amaka Nwosu')}`)).body.totalResults).toBe(0);
    await choice.selectOption({ label: ESTATE.name });
    await issue.getByRole('button', { name: 'Issue the code' }).click();
    const pass = page.getByTestId('pass');
    await pass.waitFor();
    expect(await pass.locator('.eyebrow').textContent()).toBe('Lekki Security Ltd · visitor pass');
    expect(await pass.getByTestId('pass-code').textContent()).toMatch(/^LKS-[0-9A-Z]{4}$/);
    await shoot(page, 'pass');
    await accessible(page);
    await page.getByRole('button', { name: 'Close', exact: true }).click();
    // The code issued as the demo keeps its prefix.
    await page.getByTestId('code-row').filter({ hasText: demoCode }).waitFor({ timeout: 5_000 });
  });

  it("a gate's kiosk is set up by scanning the console's setup QR code with its own camera; typing stays the fallback", async () => {
    await nav('Gates');
    await page.getByTestId('new-gate-button').click();
    const form = page.getByTestId('new-gate');
    expect(await form.getByTestId('new-site-choice').inputValue()).toBe('');
    await form.getByTestId('new-site-choice').selectOption({ label: ESTATE.name });
    await form.getByLabel('Gate name').fill('Lekki Phase 1 main gate');
    await form.getByLabel('Entry point').fill('Main gate');
    await form.getByLabel('Location (latitude, longitude)').fill(`${ESTATE.latitude}, ${ESTATE.longitude}`);
    await form.getByRole('button', { name: 'Create gate key' }).click();
    const setup = page.getByTestId('gate-setup');
    const qr = setup.getByTestId('qr');
    await qr.waitFor();
    await shoot(page, 'gate-setup');
    await accessible(page);
    const key = await page.getByTestId('setup-KIOSK_API_KEY').textContent();

    // The kiosk's first-run screen: the scan button first, the fields still there to type into.
    await kiosk.goto(kioskHost.url);
    await kiosk.getByTestId('setup-scan').waitFor({ timeout: 15_000 });
    await shoot(kiosk, 'kiosk-setup');
    await accessible(kiosk);
    // The camera at each size a kiosk has (opened at that size: the picture is sized when the camera starts), and back to typing.
    for (const size of [PORTRAIT, SMALL]) {
      await kiosk.setViewportSize(size);
      await kiosk.getByTestId('setup-scan').click();
      await kiosk.locator('.setup-scan .camera[data-camera-state=running]').waitFor({ timeout: 15_000 });
      await shoot(kiosk, 'kiosk-setup-camera');
      await accessible(kiosk);
      if (size === PORTRAIT) {
        await kiosk.getByTestId('setup-type-instead').click();
        await kiosk.locator('input[name=serverUrl]').waitFor();
      }
    }

    // The owner holds the console's screen up to the kiosk's camera: its QR, as the screen draws it.
    replaceFrame(camera, pictureFrame(await qr.screenshot(), 330));
    await kiosk.getByTestId('setup-scanned').waitFor({ timeout: 20_000 });
    expect(await kiosk.inputValue('input[name=serverUrl]')).toBe(`${stack.origin}/v1/external`);
    expect(await kiosk.inputValue('input[name=apiKey]')).toBe(key);
    expect(await kiosk.inputValue('input[name=entryPoint]')).toBe('Main gate');
    expect([Number(await kiosk.inputValue('input[name=latitude]')), Number(await kiosk.inputValue('input[name=longitude]'))]).toEqual([ESTATE.latitude, ESTATE.longitude]);
    for (const size of [SMALL, PORTRAIT]) {
      await kiosk.setViewportSize(size);
      await shoot(kiosk, 'kiosk-setup-scanned');
    }
    await accessible(kiosk);
    await kiosk.setViewportSize(SMALL);
    await kiosk.getByTestId('setup-save').click();
    await kiosk.getByTestId('shift-start').waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Done' }).click();

    // Its heartbeat puts it at the estate's main gate.
    await nav('Kiosks');
    await expect.poll(async () => (await page.getByTestId('kiosk-row').allTextContents()).join('|'), { timeout: 30_000 }).toContain('Main gate');
  });

  it('the owner renames the estate, places it on the map and renames its gate; the kiosk still sending the old name lands at the renamed gate', async () => {
    await nav('Sites');
    await siteRow(ESTATE.name).getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByTestId('edit-site');
    const details = edit.getByTestId('site-details');
    await details.getByLabel('Name').fill('Lekki Phase 1 Estate');
    await details.getByLabel('Address').fill('Admiralty Way, Lekki Phase 1, Lagos');
    await details.getByLabel('Latitude').fill(String(ESTATE.latitude));
    await details.getByLabel('Longitude').fill(String(ESTATE.longitude));
    await details.getByRole('button', { name: 'Pick on the map' }).click();
    const map = edit.getByTestId('site-location-map');
    await map.locator('.leaflet-container').waitFor();
    // A click a little north-east of the typed place: the marker and the fields follow the click.
    const box = (await map.locator('.leaflet-container').boundingBox())!;
    await page.mouse.click(box.x + box.width / 2 + 60, box.y + box.height / 2 - 40);
    await expect.poll(async () => Number(await details.getByLabel('Latitude').inputValue()), { timeout: 5_000 }).toBeGreaterThan(ESTATE.latitude);
    const picked = { latitude: Number(await details.getByLabel('Latitude').inputValue()), longitude: Number(await details.getByLabel('Longitude').inputValue()) };
    expect(picked.latitude - ESTATE.latitude).toBeLessThan(0.05);
    expect(picked.longitude).toBeGreaterThan(ESTATE.longitude);
    expect(picked.longitude - ESTATE.longitude).toBeLessThan(0.05);
    await details.getByRole('button', { name: 'Save name, address and location' }).click();
    await details.getByRole('status').waitFor();
    await edit.evaluate((panel) => panel.scrollIntoView({ block: 'start' }));
    await shoot(page, 'site-edit');
    await accessible(page);
    const saved = (await org.live.get(`/sites/${estateId}`)).body.site;
    expect(saved).toMatchObject({ name: 'Lekki Phase 1 Estate', address: 'Admiralty Way, Lekki Phase 1, Lagos', location: picked });

    // The gate the kiosk was set up for, renamed.
    const gate = edit.getByTestId('gate-item').filter({ hasText: 'Main gate' });
    await gate.getByRole('button', { name: 'Rename' }).click();
    await gate.getByLabel('New name for Main gate').fill('North gate');
    await gate.getByRole('button', { name: 'Save name' }).click();
    await edit.getByTestId('gate-item').filter({ hasText: 'North gate' }).getByTestId('former-names').waitFor();
    expect(await edit.getByTestId('gate-item').filter({ hasText: 'North gate' }).getByTestId('former-names').textContent()).toContain('“Main gate”');
    await edit.getByTestId('site-gates').evaluate((gates) => gates.scrollIntoView({ block: 'start' }));
    await shoot(page, 'site-gates');
    await accessible(page);

    // The kiosk still says "Main gate"; its next heartbeat lands at North gate, and registers no new "Main gate".
    await nav('Kiosks');
    await expect.poll(async () => (await page.getByTestId('kiosk-row').allTextContents()).join('|'), { timeout: 30_000 }).toContain('North gate');
    expect((await page.getByTestId('kiosk-row').allTextContents()).join('|')).not.toContain('Main gate');
    await shoot(page, 'kiosks');
    const gates = (await org.live.get(`/sites/${estateId}/entry-points`)).body.results;
    expect(gates.map((entry: { name: string }) => entry.name)).toEqual(['North gate', 'Service gate']);
  });

  it("the estate becomes the default site and the demo's is archived", async () => {
    await nav('Sites');
    await siteRow('Lekki Phase 1 Estate').getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByTestId('edit-site');
    await edit.getByRole('button', { name: 'Make this the default site' }).click();
    await edit.getByRole('button', { name: 'Make Lekki Phase 1 Estate the default' }).click();
    await edit.getByTestId('default-site-note').waitFor();
    await edit.getByRole('button', { name: 'Done' }).click();

    // The demo's site, once the default, is archived like any other now.
    await siteRow('Demo Estate').getByRole('button', { name: 'Edit' }).click();
    await page.getByTestId('edit-site').getByRole('button', { name: 'Archive site' }).click();
    await page.getByTestId('edit-site').getByRole('button', { name: 'Archive site' }).click();
    await expect.poll(async () => page.getByTestId('site-row').count(), { timeout: 5_000 }).toBe(1);
    expect(await siteRow('Lekki Phase 1 Estate').textContent()).toContain('default');
    await shoot(page, 'sites');
    await accessible(page);
    const sites = (await org.live.get('/sites')).body.results;
    expect(sites.map((site: { site_id: string; is_default: boolean; archived_at: string | null }) => [site.site_id, site.is_default, site.archived_at !== null])).toEqual([
      [estateId, true, false],
      [demoSiteId, false, true],
    ]);
    // What names no site is the estate's now.
    expect((await org.live.post('/access-codes', { visitor_name: 'No site named', visitor_phone: '+2348031112244' })).body.access_code.site_id).toBe(estateId);
  });

  it('inviting an estate manager says it is an admin limited to sites, and what they can and cannot do', async () => {
    // A second estate, so "only these sites" means something.
    expect((await org.live.post('/sites', { name: 'Banana Island Estate' })).status).toBe(201);
    await nav('People');
    await page.getByRole('button', { name: 'Invite someone' }).click();
    const form = page.getByTestId('invite-form');
    await form.getByLabel('Email').fill('tunde@lekkisecurity.ng');
    await form.getByRole('radio', { name: /^estate manager/ }).check();
    const words = form.getByTestId('estate-manager-words');
    expect(await words.textContent()).toContain('Invite, change or remove people');
    expect(await words.textContent()).toContain('their gates: add, rename, remove');
    await form.getByRole('checkbox', { name: 'Lekki Phase 1 Estate' }).check();
    await form.getByRole('group', { name: 'Role' }).evaluate((roles) => roles.scrollIntoView({ block: 'start' }));
    await shoot(page, 'invite-estate-manager');
    await accessible(page);
    await form.getByRole('button', { name: 'Make invitation link' }).click();
    await page.getByTestId('invite-url').waitFor();
    const row = page.getByTestId('invitation-row').filter({ hasText: 'tunde@lekkisecurity.ng' });
    expect(await row.textContent()).toContain('admin');
    expect(await row.textContent()).toContain('Lekki Phase 1 Estate');
    // Nothing went wrong in the owner's page (the 401 is the session asked for before joining).
    expect(owner.problems.filter((problem) => !/status of 401/.test(problem))).toEqual([]);
  });
});
