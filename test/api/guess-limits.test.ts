import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleBrowser, joinConsole, PASSWORD } from '../support/console.ts';
import { consolePost, ownAddress, tally, wrongTotp } from '../support/guesses.ts';
import { startTestServer, type TestOrganization, type TestServer } from '../support/server.ts';

/**
 * Issue #32, finding 1: every guess limit counts before it checks. A burst of 300 guesses sent at
 * once is evaluated at most `limit` times (the rest are 429 before any check); a right guess
 * gives its slot back. One host here (SQLite or PostgreSQL, limits in memory);
 * guess-limits-hosts.pg.test.ts does the same across two hosts sharing Redis.
 */
describe('guess limits count first', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer({ config: { TRUST_PROXY: 'loopback' } });
    org = await server.createOrganization();
  });
  afterAll(() => server.stop());

  it('300 passwords at once, the right one among them: at most 10 are checked, the rest 429', { timeout: 60_000 }, async () => {
    const person = await joinConsole(server, org.organizationId, 'viewer');
    const address = ownAddress();
    const guesses = Array.from({ length: 300 }, (_, i) => (i === 299 ? PASSWORD : `wrong-password-${i}`));
    const statuses = await Promise.all(guesses.map((password) => consolePost(server, '/console/sign-in', { email: person.email, password }, address)));
    const counts = tally(statuses);
    expect((counts[401] ?? 0) + (counts[200] ?? 0), JSON.stringify(counts)).toBeLessThanOrEqual(10);
    expect(counts[429], JSON.stringify(counts)).toBeGreaterThanOrEqual(290);
    // The slots went to wrong guesses (a right one checked in time gave its slot back, maybe to one more).
    expect(counts[401]).toBeGreaterThanOrEqual(9);
    // Ten wrong guesses hold the account for the window.
    expect(await consolePost(server, '/console/sign-in', { email: person.email, password: PASSWORD }, ownAddress())).toBe(counts[401] === 10 ? 429 : 200);
  });

  it('a right password gives its slot back: ten sign-ins of the real person never lock them out', { timeout: 60_000 }, async () => {
    const person = await joinConsole(server, org.organizationId, 'viewer');
    const address = ownAddress();
    // Nine wrong at once (each is slowed, so in turn they would take 9 s).
    const wrong = await Promise.all(Array.from({ length: 9 }, (_, i) => consolePost(server, '/console/sign-in', { email: person.email, password: `wrong-${i}-password` }, address)));
    expect(wrong).toEqual(Array(9).fill(401));
    for (let i = 0; i < 12; i++) expect(await consolePost(server, '/console/sign-in', { email: person.email, password: PASSWORD }, address)).toBe(200);
    expect(await consolePost(server, '/console/sign-in', { email: person.email, password: 'wrong-again-password' }, address)).toBe(401);
    expect(await consolePost(server, '/console/sign-in', { email: person.email, password: PASSWORD }, address)).toBe(429);
  });

  it('300 second-factor codes at once: at most 10 are checked', { timeout: 60_000 }, async () => {
    const owner = await joinConsole(server, org.organizationId, 'owner');
    const browser = new ConsoleBrowser(server.baseUrl, new URL(server.baseUrl).origin);
    const signedIn = await browser.post('/console/sign-in', { email: owner.email, password: PASSWORD });
    expect(signedIn.body.session.stage).toBe('totp');
    const address = ownAddress();
    const code = await wrongTotp(server, owner.totpSecret!);
    const statuses = await Promise.all(Array.from({ length: 300 }, () => consolePost(server, '/console/sign-in/totp', { code }, address, browser.cookie, browser.csrf)));
    const counts = tally(statuses);
    expect(counts[401] ?? 0, JSON.stringify(counts)).toBeLessThanOrEqual(10);
    expect(counts[429], JSON.stringify(counts)).toBeGreaterThanOrEqual(290);
  });

  it('a stolen session guessing the current password: 50 at once, at most 5 checked', { timeout: 60_000 }, async () => {
    const person = await joinConsole(server, org.organizationId, 'viewer');
    const statuses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        consolePost(server, '/console/password', { current_password: `guess-number-${i}`, new_password: 'a-brand-new-passphrase-9' }, ownAddress(), person.browser.cookie, person.browser.csrf),
      ),
    );
    const counts = tally(statuses);
    expect(counts[400] ?? 0, JSON.stringify(counts)).toBeLessThanOrEqual(5);
    expect(counts[429], JSON.stringify(counts)).toBeGreaterThanOrEqual(45);
    // The person, who knows it, is held too until the window passes: that is the price of the stolen session.
    const own = await person.browser.post('/console/password', { current_password: PASSWORD, new_password: 'a-brand-new-passphrase-9' });
    expect(own.status).toBe(429);
    expect(Number(own.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('300 typed codes at once from one key: at most 30 unknown ones are checked; valid codes give their slot back', { timeout: 60_000 }, async () => {
    const gate = await org.keyWith(['access_codes:validate', 'access_codes:write']);
    const issued = await org.live.post('/access-codes', { visitor_name: 'Musa Bello', visitor_phone: '+2348030000001', purpose: 'Plumbing', host_user_id: '14B', max_uses: 100 });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    const code = issued.body.access_code.code as string;
    // Forty valid typed codes: none counts against the key.
    for (let i = 0; i < 40; i++) expect((await gate.post('/access-codes/validate', { code })).body.valid).toBe(true);
    const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => gate.post('/access-codes/validate', { code: `ZZZZ-${String(i).padStart(4, '0')}` })));
    const counts = tally(answers.map((answer) => answer.status));
    const checked = answers.filter((answer) => answer.status === 200);
    expect(checked.length, JSON.stringify(counts)).toBeLessThanOrEqual(30);
    for (const answer of checked) expect(answer.body).toMatchObject({ valid: false, reason: 'Code not found' });
    expect(counts[429], JSON.stringify(counts)).toBeGreaterThanOrEqual(270);
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(refused.body.message).toContain('unknown code');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a rush of 80 valid typed codes at once from one key: none is refused (each gives its slot back as it is checked)', { timeout: 60_000 }, async () => {
    const gate = await org.keyWith(['access_codes:validate', 'access_codes:write']);
    const issued = await org.live.post('/access-codes', { visitor_name: 'Rush Hour', visitor_phone: '+2348030000002', purpose: 'Party', host_user_id: '9C', max_uses: 100 });
    const code = issued.body.access_code.code as string;
    const answers = await Promise.all(Array.from({ length: 80 }, () => gate.post('/access-codes/validate', { code })));
    expect(tally(answers.map((answer) => answer.status))).toEqual({ 200: 80 });
    expect(answers.every((answer) => answer.body.valid === true)).toBe(true);
  });
});

/** Issue #32: lockout without lock-out (OWASP's device cookie). */
describe('strangers cannot lock a person out of the browser they signed in from before', () => {
  let server: TestServer;
  let org: TestOrganization;
  beforeAll(async () => {
    server = await startTestServer({ config: { TRUST_PROXY: 'loopback' } });
    org = await server.createOrganization();
  });
  afterAll(() => server.stop());

  /** Signs in fully from a fresh browser and returns the device cookie it was given. */
  async function knownDevice(email: string): Promise<string> {
    const browser = new ConsoleBrowser(server.baseUrl, new URL(server.baseUrl).origin);
    expect((await browser.post('/console/sign-in', { email, password: PASSWORD })).status).toBe(200);
    const line = browser.setCookie.find((cookie) => cookie.startsWith('tsaro_device='));
    expect(line).toMatch(/HttpOnly; SameSite=Strict/);
    return line!.split(';')[0]!;
  }

  it('ten wrong passwords from ten addresses hold the account for strangers, not for the known device', { timeout: 60_000 }, async () => {
    const person = await joinConsole(server, org.organizationId, 'viewer');
    const device = await knownDevice(person.email);
    const wrong = await Promise.all(Array.from({ length: 10 }, (_, i) => consolePost(server, '/console/sign-in', { email: person.email, password: `stranger-guess-${i}` }, ownAddress())));
    expect(wrong).toEqual(Array(10).fill(401));
    // A new browser is held, even with the right password...
    expect(await consolePost(server, '/console/sign-in', { email: person.email, password: PASSWORD }, ownAddress())).toBe(429);
    // ...the person's own laptop is not.
    expect(await consolePost(server, '/console/sign-in', { email: person.email, password: PASSWORD }, ownAddress(), device)).toBe(200);
  });

  it("the known device's own wrong guesses are counted for it: ten, and it is held too", { timeout: 60_000 }, async () => {
    const person = await joinConsole(server, org.organizationId, 'viewer');
    const device = await knownDevice(person.email);
    const wrong = await Promise.all(Array.from({ length: 12 }, (_, i) => consolePost(server, '/console/sign-in', { email: person.email, password: `own-typo-${i}-password` }, ownAddress(), device)));
    expect(tally(wrong)).toEqual({ 401: 10, 429: 2 });
    expect(await consolePost(server, '/console/sign-in', { email: person.email, password: PASSWORD }, ownAddress(), device)).toBe(429);
  });

  it("a device cookie is good only for the email it was issued for, and a made-up one is nothing", { timeout: 60_000 }, async () => {
    const first = await joinConsole(server, org.organizationId, 'viewer');
    const second = await joinConsole(server, org.organizationId, 'viewer');
    const firstDevice = await knownDevice(first.email);
    await Promise.all(Array.from({ length: 10 }, (_, i) => consolePost(server, '/console/sign-in', { email: second.email, password: `stranger-guess-${i}` }, ownAddress())));
    expect(await consolePost(server, '/console/sign-in', { email: second.email, password: PASSWORD }, ownAddress(), firstDevice)).toBe(429);
    expect(await consolePost(server, '/console/sign-in', { email: second.email, password: PASSWORD }, ownAddress(), 'tsaro_device=v2.abc.def.ghi')).toBe(429);
  });
});
