import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { proveKioskKey, rawPublicKeyOf } from '../../../shared/node/kiosk-certificate.ts';
import type { CoreContext } from '../context.ts';
import { insertKeyPair, readIdentity, saveCertificate, type IdentityRow } from './store.ts';

/**
 * The kiosk's identity (issue #49; docs/security.md, "Kiosk identities"): an Ed25519 key pair made
 * once, whose private key never leaves the kiosk, and a certificate from its site's kiosk
 * authority (`POST /kiosks/{kioskId}/certificate`, 24 hours), which the site's other kiosks check.
 * A kiosk set up by hand or from the environment enrols at its first heartbeat that gets through
 * (the server knows it only from then on), and renews once half the certificate's life is gone or
 * its site changed.
 */
export type IdentityDeps = Pick<CoreContext, 'db' | 'kioskId' | 'link' | 'timings' | 'nowIso' | 'logEvent'>;

/** Renewed once less than this is left of a certificate (its life is 24 hours). */
export const RENEW_WITHIN_MS = 12 * 3_600_000;

export function keysOf(ctx: Pick<CoreContext, 'db' | 'nowIso'>): IdentityRow {
  const existing = readIdentity(ctx.db);
  if (existing) return existing;
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  insertKeyPair(ctx.db, rawPublicKeyOf(publicKey), privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'), ctx.nowIso());
  return readIdentity(ctx.db)!;
}

/** Whether the certificate must be asked for: none yet, half its life gone, or made for another site. */
export function certificateDue(identity: IdentityRow, siteId: string | null, nowMs: number): boolean {
  if (!identity.certificate || !identity.expires_at) return true;
  if (siteId && identity.site_id !== siteId) return true;
  return Date.parse(identity.expires_at) - nowMs < RENEW_WITHIN_MS;
}

export type CertificateOutcome = 'current' | 'renewed' | 'refused' | 'unavailable' | 'not_set_up';

/**
 * Asks for a certificate when one is due (`certificateDue`). The server's refusal (a retired
 * kiosk: 409) is logged and kept to itself: the gate works as before, its peers stop trusting it
 * when its last certificate expires.
 */
export async function renewCertificate(ctx: IdentityDeps, siteId: string | null): Promise<CertificateOutcome> {
  const api = ctx.link.api;
  if (!api) return 'not_set_up';
  const identity = keysOf(ctx);
  if (!certificateDue(identity, siteId, Date.parse(ctx.nowIso()))) return 'current';
  const privateKey = createPrivateKey({ key: Buffer.from(identity.private_key, 'base64'), format: 'der', type: 'pkcs8' });
  const answer = await api.call('post', '/kiosks/{kioskId}/certificate', {
    params: { path: { kioskId: ctx.kioskId } },
    body: { public_key: identity.public_key, proof: proveKioskKey(privateKey, ctx.kioskId, identity.public_key) },
    timeoutMs: ctx.timings.requestTimeoutMs,
  });
  if (answer.kind === 'ok') {
    saveCertificate(
      ctx.db,
      {
        certificate: answer.body.certificate,
        expires_at: answer.body.claims.expires_at,
        site_id: answer.body.claims.site_id,
        authority_kid: answer.body.authority.kid,
        authority_public_key: answer.body.authority.public_key,
      },
      ctx.nowIso(),
    );
    return 'renewed';
  }
  if (answer.kind === 'unavailable') return 'unavailable';
  ctx.logEvent(`the server gave no kiosk certificate (${answer.status}: ${answer.message}); the site's other gates stop trusting this one when its last certificate expires`);
  return 'refused';
}
