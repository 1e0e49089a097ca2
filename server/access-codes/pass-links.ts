import { createHash, randomBytes } from 'node:crypto';
import { parsePhoneNumberFromString } from 'libphonenumber-js/mobile';
import type { PassSent } from '../../shared/schemas/access.ts';
import { HOUR_MS } from '../../shared/time.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type AccessCodeRow, type Executor, type Tenant } from '../db/schema.ts';
import { ApiError, conflict, notFound } from '../http/errors.ts';
import { currentOrganization } from '../organizations/service.ts';
import { getSite } from '../sites/service.ts';
import { passImage } from './pass-image.ts';
import { countPassLinks, findAccessCode, findPassLink, firstPassLinkSince, insertPassLink } from './store.ts';

/**
 * A visitor's pass sent to their phone (issue #48): a text with a short link to the pass's image,
 * which Tsaro serves at `/p/<token>`. The token is 128 random bits, shown once in the text and
 * kept only as its SHA-256 (`pass_links`); the link is dead once the code is revoked, used up or
 * past `valid_until`. Live codes only: a sandbox code texts nobody, as a sandbox SOS does not.
 */

/** Sends of one code's pass in any hour: a resend or two when the first text was lost, not a way to flood a phone. */
export const PASS_SENDS_PER_CODE_HOUR = 3;
/** Sends of an organization's passes in any hour (the hourly text ceilings apply as well). */
export const PASS_SENDS_PER_ORGANIZATION_HOUR = 200;

/** What the send needs of texting (server/messages/service.ts, `passTextsOf`): undefined while SMS is off. */
export type PassTexts =
  | {
      publicUrl: string;
      queue(trx: Executor, tenant: Tenant, pass: { codeId: string; code: string; siteId: string | null; entryPoint: string | null; visitorName: string | null; phone: string; validFrom: string; link: string }): Promise<string>;
    }
  | undefined;

export const passTokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/** The code's visitor phone as a mobile number a text can reach, in E.164; a 409 naming the field otherwise. */
function mobileOf(row: AccessCodeRow): string {
  const parsed = row.visitor_phone ? parsePhoneNumberFromString(row.visitor_phone, 'NG') : undefined;
  if (!parsed?.isValid()) throw conflict(`visitor_phone: ${row.visitor_phone ?? '(none)'} is not a mobile number a text can reach`);
  return parsed.number;
}

/** A code whose pass still opens the gate: active and not past `valid_until`. */
const isLive = (row: AccessCodeRow, now: Date) => row.status === 'active' && Date.parse(row.valid_until) > now.getTime();

/** 429 with Retry-After: when the oldest send of the hour leaves the window. */
async function refuseOverLimit(trx: Executor, scope: { codeId: string } | { tenant: Tenant }, since: string, now: Date, what: string): Promise<never> {
  const oldest = await firstPassLinkSince(trx, scope, since);
  const retryAfter = oldest ? Math.max(1, Math.ceil((Date.parse(oldest) + HOUR_MS - now.getTime()) / 1000)) : 3600;
  throw new ApiError(429, `${what}; try again in ${Math.ceil(retryAfter / 60)} min`, { 'Retry-After': String(retryAfter) });
}

/**
 * Texts the code's pass to its visitor's phone. Refused, in this order: an unknown code (404), a
 * sandbox code, SMS off, a code that no longer opens the gate, a visitor phone a text cannot
 * reach (409, each saying which), then the hourly limits per code and per organization (429).
 */
export async function sendPassByText(db: Executor, deps: { clock: Clock }, texts: PassTexts, tenant: Tenant, codeId: string): Promise<PassSent> {
  return inTransaction(db, async (trx) => {
    const row = await findAccessCode(trx, tenant, codeId);
    if (!row) throw notFound('Access code');
    if (tenant.environment !== 'live') throw conflict('A sandbox code is never texted: only a live code is sent to a phone');
    if (!texts) throw conflict('Text messages are off: this server has no SMS gateway (SMS_GATEWAY)');
    const now = deps.clock.now();
    if (!isLive(row, now)) throw conflict(`Access code is ${row.status === 'active' ? 'expired' : row.status}: its pass would not open the gate`);
    const phone = mobileOf(row);
    const since = new Date(now.getTime() - HOUR_MS).toISOString();
    if ((await countPassLinks(trx, { codeId }, since)) >= PASS_SENDS_PER_CODE_HOUR) {
      await refuseOverLimit(trx, { codeId }, since, now, `This pass was sent ${PASS_SENDS_PER_CODE_HOUR} times in the last hour, its limit`);
    }
    if ((await countPassLinks(trx, { tenant }, since)) >= PASS_SENDS_PER_ORGANIZATION_HOUR) {
      await refuseOverLimit(trx, { tenant }, since, now, `The organization sent ${PASS_SENDS_PER_ORGANIZATION_HOUR} passes in the last hour, its limit`);
    }
    const token = randomBytes(16).toString('base64url');
    await insertPassLink(trx, { token_hash: passTokenHash(token), code_id: codeId, organization_id: tenant.organizationId, environment: tenant.environment, phone, created_at: now.toISOString() });
    const messageId = await texts.queue(trx, tenant, {
      codeId,
      code: row.code,
      siteId: row.site_id ?? null,
      entryPoint: row.entry_point,
      visitorName: row.visitor_name,
      phone,
      validFrom: row.valid_from,
      link: `${texts.publicUrl}/p/${token}`,
    });
    return { message_id: messageId, phone, link_expires_at: row.valid_until };
  });
}

/** What `/p/<token>` answers: the pass as an SVG image while its code still opens the gate; 404 for a token never made, 410 once the code is over. */
export async function passImageOf(db: Executor, clock: Clock, token: string): Promise<{ svg: string } | { status: 404 | 410 }> {
  if (!/^[A-Za-z0-9_-]{22}$/.test(token)) return { status: 404 };
  const link = await findPassLink(db, passTokenHash(token));
  if (!link) return { status: 404 };
  const row = await findAccessCode(db, { organizationId: link.organization_id, environment: link.environment }, link.code_id);
  if (!row || !isLive(row, clock.now())) return { status: 410 };
  const organization = await currentOrganization(db, link.organization_id);
  const site = row.site_id ? await getSite(db, { organizationId: link.organization_id }, row.site_id).catch(() => undefined) : undefined;
  return { svg: await passImage(row, { organization: organization?.name ?? 'Tsaro', site: site?.name, timeZone: site?.time_zone ?? 'Africa/Lagos' }) };
}
