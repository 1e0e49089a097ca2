import { generate } from 'otplib';
import type { Role } from '../../shared/schemas/console.ts';
import { inviteOrReset } from '../../server/people/service.ts';
import type { ApiResponse, TestServer } from './server.ts';

/** A TOTP code for the server's clock (its ManualClock), as an authenticator app computes it. */
export async function totpCode(server: TestServer, secret: string, offsetSteps = 0): Promise<string> {
  return generate({ secret, epoch: Math.floor(server.clock.now().getTime() / 1000) + offsetSteps * 30 });
}

/**
 * A browser with the console open: the session cookie, the console's own Origin and the CSRF
 * token on every change, as the console app sends them; or, with `forge`, what another site's page would send.
 */
export class ConsoleBrowser {
  cookie: string | undefined;
  csrf: string | undefined;
  setCookie: string[] = [];
  environment: 'live' | 'sandbox' = 'live';
  /** Headers sent with every request (`tsaro-organization` for a person in several organizations). */
  headers: Record<string, string> = {};
  constructor(
    readonly baseUrl: string,
    readonly origin: string,
  ) {}

  async request<T = any>(method: string, path: string, body?: unknown, options: { origin?: string | null; csrf?: string | null } = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { 'tsaro-environment': this.environment, ...this.headers };
    if (this.cookie) headers.cookie = this.cookie;
    const origin = options.origin === undefined ? this.origin : options.origin;
    if (origin !== null) headers.origin = origin;
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (csrf && method !== 'GET') headers['x-csrf-token'] = csrf;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(this.baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), redirect: 'manual' });
    this.setCookie = response.headers.getSetCookie();
    for (const line of this.setCookie) {
      const [pair] = line.split(';');
      if (pair!.startsWith('tsaro_console=')) this.cookie = pair!.endsWith('=') ? undefined : pair;
    }
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // left as text
    }
    const answer = parsed as { session?: { csrf_token?: string } } | undefined;
    if (answer?.session?.csrf_token) this.csrf = answer.session.csrf_token;
    return { status: response.status, headers: response.headers, body: parsed as T };
  }
  get<T = any>(path: string) {
    return this.request<T>('GET', path);
  }
  post<T = any>(path: string, body: unknown = {}, options?: { origin?: string | null; csrf?: string | null }) {
    return this.request<T>('POST', path, body, options);
  }
  patch<T = any>(path: string, body: unknown, options?: { origin?: string | null; csrf?: string | null }) {
    return this.request<T>('PATCH', path, body, options);
  }
  delete<T = any>(path: string, options?: { origin?: string | null; csrf?: string | null }) {
    return this.request<T>('DELETE', path, undefined, options);
  }
}

export const PASSWORD = 'lagoon-harmattan-gate-42';

export interface JoinedPerson {
  browser: ConsoleBrowser;
  email: string;
  totpSecret: string | undefined;
  recoveryCodes: string[];
  personId: string;
}

/** Invited from the host (as `tsaro console invite` does), joined through the API, second factor enrolled where the role needs it. */
export async function joinConsole(
  server: TestServer,
  organizationId: string,
  role: Role,
  email = `${role}-${Math.random().toString(36).slice(2, 8)}@estate.example`,
  options: { siteIds?: string[]; name?: string } = {},
): Promise<JoinedPerson> {
  const { invite_url } = await inviteOrReset(
    { db: server.running.database.db, clock: server.clock, publicUrl: new URL(server.baseUrl).origin },
    { organizationId, email, role, siteIds: options.siteIds },
  );
  const token = invite_url.split('/').pop()!;
  const browser = new ConsoleBrowser(server.baseUrl, new URL(server.baseUrl).origin);
  const accepted = await browser.post(`/console/invitations/${token}/accept`, { password: PASSWORD, ...(options.name ? { name: options.name } : {}) });
  if (accepted.status !== 201) throw new Error(`accept: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  let totpSecret: string | undefined;
  let recoveryCodes: string[] = [];
  if (accepted.body.session.stage === 'enrol_totp') {
    const enrolment = await browser.post('/console/totp/enrolment');
    totpSecret = enrolment.body.secret;
    const confirmed = await browser.post('/console/totp/enrolment/confirm', { code: await totpCode(server, totpSecret!) });
    if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
    recoveryCodes = confirmed.body.recovery_codes;
  }
  return { browser, email, totpSecret, recoveryCodes, personId: accepted.body.session.person.person_id };
}

/** The same person's browser, sent to another host by the balancer: their session cookie and CSRF token there. */
export function onHost(server: TestServer, person: JoinedPerson): ConsoleBrowser {
  const browser = new ConsoleBrowser(server.baseUrl, new URL(server.baseUrl).origin);
  browser.cookie = person.browser.cookie;
  browser.csrf = person.browser.csrf;
  return browser;
}
