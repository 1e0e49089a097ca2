import type { DecisionReason } from '../../../shared/kiosk/calls.ts';
import { looksLikePass, normalizeCode, type PassClaims } from '../../../shared/pass.ts';
import type { ValidationReason } from '../../../shared/schemas/access.ts';
import { cachedCodeById, cachedCodeByText, type CachedCode } from '../caches/codes.ts';
import type { KioskDb } from '../database.ts';
import type { PassVerifier } from '../caches/pass-verifier.ts';

export type CodeView = Omit<CachedCode, 'entry_point' | 'from_feed' | 'updated_at'>;

export interface OfflineVerdict {
  admitted: boolean;
  reason: DecisionReason;
  /** The code as cached, or as its pass claims when never seen; null when unknown. */
  code: CodeView | null;
  /** Set when the pass was verified but the kiosk had never seen its code. */
  unseenPass: PassClaims | null;
  /** The kiosk holds no pass key at all (never synced): a pass cannot be judged, rather than forged. */
  noPassKeys?: boolean;
}

/**
 * Decides a scan with no network, in the server's order (not found, revoked, used up, not yet
 * active, expired, another site), from the cached codes and the uses granted here offline. A
 * pass the cache does not hold is decided from its own signed claims; an altered or foreign
 * pass is refused. A kiosk that knows its site (`kioskSite`) admits only its site's codes and
 * those made before sites: a pass names its site through its signing key, a cached code by its
 * feed row. One that does not (null) admits every site's, as before sites.
 */
export function decideOffline(db: KioskDb, verifier: PassVerifier, text: string, nowMs: number, kioskSite: string | null): OfflineVerdict {
  let code: CodeView;
  let unseenPass: PassClaims | null = null;
  if (looksLikePass(text)) {
    const check = verifier.check(text);
    if (!check.ok) return { admitted: false, reason: 'invalid_pass', code: null, unseenPass: null, noPassKeys: verifier.size === 0 };
    const cached = cachedCodeById(db, check.claims.codeId);
    if (cached && cached.code !== check.claims.code) return { admitted: false, reason: 'invalid_pass', code: null, unseenPass: null };
    if (cached) {
      code = cached;
    } else {
      unseenPass = check.claims;
      code = {
        code_id: check.claims.codeId,
        code: check.claims.code,
        status: 'active',
        max_uses: check.claims.maxUses,
        use_count: 0,
        local_uses: 0,
        valid_from_ms: check.claims.validFrom,
        valid_until_ms: check.claims.validUntil,
        visitor_name: null,
        visitor_phone: null,
        purpose: null,
        host_user_id: null,
        site_id: check.site,
      };
    }
    // The key says the pass's site even where the cache (filled before codes carried their site) does not.
    const reason = refusalOf(code, nowMs) ?? placeRefusalOf(kioskSite, [check.site, code.site_id]);
    return { admitted: !reason, reason: reason ?? 'admitted', code, unseenPass };
  }
  const cached = cachedCodeByText(db, normalizeCode(text));
  if (!cached) return { admitted: false, reason: 'not_found', code: null, unseenPass: null };
  const reason = refusalOf(cached, nowMs) ?? placeRefusalOf(kioskSite, [cached.site_id]);
  return { admitted: !reason, reason: reason ?? 'admitted', code: cached, unseenPass: null };
}

/** A code of another site than the kiosk's, as the server refuses it (`Code is for another site`); null sites are codes made before sites. */
function placeRefusalOf(kioskSite: string | null, codeSites: ReadonlyArray<string | null>): DecisionReason | undefined {
  if (kioskSite === null) return undefined;
  return codeSites.some((site) => site !== null && site !== kioskSite) ? 'other_site' : undefined;
}

function refusalOf(code: CodeView, nowMs: number): DecisionReason | undefined {
  if (code.status === 'revoked') return 'revoked';
  if (code.status === 'used' || code.use_count + code.local_uses >= code.max_uses) return 'used_up';
  if (nowMs < code.valid_from_ms) return 'not_yet_active';
  if (nowMs >= code.valid_until_ms || code.status === 'expired') return 'expired';
  return undefined;
}

const SERVER_REASONS: Record<ValidationReason, DecisionReason> = {
  'Code not found': 'not_found',
  'Code has been revoked': 'revoked',
  'Maximum uses reached': 'used_up',
  'Code not yet active': 'not_yet_active',
  'Code has expired': 'expired',
  'Code is for another site': 'other_site',
  'Code is for another entry point': 'other_entry_point',
};

export function reasonFromServer(reason: ValidationReason): DecisionReason {
  return SERVER_REASONS[reason];
}

export const NO_PASS_KEYS_MESSAGE =
  'This kiosk has not received the organization\'s pass keys yet, so it cannot check passes offline. Type the code, or call the host.';

/** 24-hour "10:42", in the kiosk's own time zone: the gate's clock on the wall. */
export function clockOf(iso: string): string {
  return new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso));
}

/** "Already inside since 10:42 (Main gate)": the holder's open visit, as the guard reads it. */
export function alreadyInsideMessage(visitorName: string | null, inside: { since: string; entryPoint: string | null }): string {
  const where = inside.entryPoint ? ` (${inside.entryPoint})` : '';
  const who = visitorName ? `${visitorName}: ` : '';
  return `${who}Already inside since ${clockOf(inside.since)}${where}. Let in again only if you are sure.`;
}

/** The sentence the guard reads. A refusal names the visitor when the kiosk knows them. */
export function decisionMessage(
  reason: DecisionReason,
  visitorName: string | null,
  decidedBy: 'server' | 'offline',
  code: string | null = null,
  /** Another estate's pass: that estate's name, when the kiosk knows it. */
  estate: string | null = null,
): string {
  if (reason === 'admitted') {
    // A pass carries no name (a photo of it leaks nothing personal): one never synced here shows its code.
    const who = visitorName ?? (code ? `the holder of ${code} (name not on this kiosk yet)` : 'the visitor');
    return decidedBy === 'server' ? `Admit ${who}.` : `Admit ${who}. Decided offline: the server will confirm when the link returns.`;
  }
  const refusal = refusalSentence(reason, decidedBy, estate);
  return visitorName ? `${visitorName}: ${refusal}` : refusal;
}

function refusalSentence(reason: Exclude<DecisionReason, 'admitted'>, decidedBy: 'server' | 'offline', estate: string | null): string {
  switch (reason) {
    case 'not_found':
      return decidedBy === 'server'
        ? 'This code is not known. Check it with the visitor or call the host.'
        : 'This code is not in this kiosk\'s list and the server cannot be reached. Ask for the QR pass or call the host.';
    case 'revoked':
      return 'This code has been cancelled. Do not admit; call the host.';
    case 'used_up':
      return 'This code has already been used as many times as allowed.';
    case 'not_yet_active':
      return 'This code is not valid yet.';
    case 'expired':
      return 'This code has expired.';
    case 'invalid_pass':
      return 'This pass is not genuine or has been altered. Do not admit.';
    case 'too_many_attempts':
      return 'Too many unknown codes from this gate. Wait a minute before trying again.';
    case 'other_site':
      return `This code is for another estate${estate ? ` (${estate})` : ''}. Do not admit; send the visitor to the right estate or call the host.`;
    case 'other_entry_point':
      return 'This code is for another gate of this estate. Send the visitor to that gate or call the host.';
    case 'already_inside':
      return 'Already inside. Let in again only if you are sure.';
  }
}
