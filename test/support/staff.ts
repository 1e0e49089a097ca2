import type { StaffRole } from '../../shared/schemas/staff.ts';
import { inviteStaff } from '../../server/staff/service.ts';
import { ConsoleBrowser, PASSWORD, totpCode } from './console.ts';
import type { TestServer } from './server.ts';

export interface JoinedStaff {
  browser: ConsoleBrowser;
  email: string;
  totpSecret: string;
  staffId: string;
}

/** The staff API's address on `server`. */
export const staffBase = (server: Pick<TestServer, 'baseUrl'>) => server.baseUrl.replace('/v1/external', '/v1/staff');

/** Invited from the host (as `tsaro staff invite` does), joined through the API with a password and an authenticator: signed in. */
export async function joinStaff(server: TestServer, role: StaffRole, name = 'Kemi Adeyemi', email = `${role}-${Math.random().toString(36).slice(2, 8)}@tsaro.example`): Promise<JoinedStaff> {
  const { invite_url } = await inviteStaff({ db: server.running.database.db, clock: server.clock, publicUrl: new URL(server.baseUrl).origin }, { email, role });
  const token = invite_url.split('/').pop()!;
  const browser = new ConsoleBrowser(staffBase(server), new URL(server.baseUrl).origin);
  const accepted = await browser.post(`/invitations/${token}/accept`, { password: PASSWORD, name });
  if (accepted.status !== 201) throw new Error(`accept: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  const enrolment = await browser.post('/totp/enrolment');
  const totpSecret = enrolment.body.secret as string;
  const confirmed = await browser.post('/totp/enrolment/confirm', { code: await totpCode(server, totpSecret) });
  if (confirmed.status !== 200 || confirmed.body.session.stage !== 'active') throw new Error(`confirm: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
  return { browser, email, totpSecret, staffId: confirmed.body.session.staff.staff_id };
}
