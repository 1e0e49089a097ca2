import { createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { base32Encode } from '../../shared/pass.ts';
import { kioskKeyProofHolds, rawPublicKeyOf, signKioskCertificate } from '../../shared/node/kiosk-certificate.ts';
import type { KioskAuthority, KioskCertificateAnswer, KioskCertificateClaims, KioskCertificateRequest } from '../../shared/schemas/kiosks.ts';
import type { Environment } from '../../shared/schemas/common.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Executor, type KioskAuthorityRow, type Tenant } from '../db/schema.ts';
import { ApiError, conflict, notFound } from '../http/errors.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { findKiosk, findKioskAuthority, insertKioskAuthority, recordCertificate } from './store.ts';
import { HOUR_MS } from '../../shared/time.ts';

/**
 * Kiosks with identities (issue #49; docs/security.md, "Kiosk identities"). A kiosk makes its own
 * Ed25519 key pair and asks for a certificate with its API key; the site's kiosk authority signs
 * its public key for `KIOSK_CERTIFICATE_LIFETIME_MS`. Kiosks renew with their heartbeat, so a kiosk
 * that is retired (or moved to another site, or whose key is revoked) stops being trusted by its
 * peers within a day, with no revocation list to carry.
 */
export const KIOSK_CERTIFICATE_LIFETIME_MS = 24 * HOUR_MS;

export interface KioskIdentityDeps {
  clock: Clock;
  secretBox: SecretBox;
}

/** The site's authority, made on first use (its private key sealed, as pass keys' are). */
async function authorityOf(db: Executor, deps: KioskIdentityDeps, tenant: Tenant, siteId: string): Promise<KioskAuthorityRow> {
  const existing = await findKioskAuthority(db, tenant, siteId);
  if (existing) return existing;
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const row: KioskAuthorityRow = {
    kid: `ka_${base32Encode(randomBytes(5))}`,
    organization_id: tenant.organizationId,
    environment: tenant.environment,
    site_id: siteId,
    public_key: rawPublicKeyOf(publicKey),
    private_key: deps.secretBox.seal(privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64')),
    created_at: deps.clock.now().toISOString(),
  };
  return (await insertKioskAuthority(db, row)) ? row : (await findKioskAuthority(db, tenant, siteId))!;
}

export const authorityView = (row: KioskAuthorityRow): KioskAuthority => ({ kid: row.kid, site_id: row.site_id, public_key: row.public_key });

/**
 * `POST /kiosks/{kioskId}/certificate`: the kiosk (known by its heartbeats, standing at a site the
 * caller reaches, not retired) proves it holds the private key and gets its public key signed by
 * its site's authority, with the authority's public key to check its peers by.
 */
export async function certifyKiosk(db: Executor, deps: KioskIdentityDeps, tenant: Tenant, kioskId: string, request: KioskCertificateRequest): Promise<KioskCertificateAnswer> {
  if (!kioskKeyProofHolds(kioskId, request.public_key, request.proof)) {
    const message = 'proof: not a signature over "tsaro-kiosk-certificate\\n<kioskId>\\n<public_key>" by the private key of public_key';
    throw new ApiError(400, message, {}, [{ field: 'proof', message }]);
  }
  return inTransaction(db, async (trx) => {
    const kiosk = await findKiosk(trx, tenant, kioskId);
    if (!kiosk) throw notFound('Kiosk');
    if (kiosk.retired_at) throw conflict('Kiosk is retired: a retired kiosk gets no certificate, and its peers stop trusting it when its last one expires');
    if (!kiosk.site_id) throw conflict('Kiosk stands at no site yet: its heartbeat places it (PUT /kiosks/{kioskId}/heartbeat), then it may ask for a certificate');
    const authority = await authorityOf(trx, deps, tenant, kiosk.site_id);
    const now = deps.clock.now();
    const claims: KioskCertificateClaims = {
      v: 1,
      kid: authority.kid,
      organization_id: tenant.organizationId,
      environment: tenant.environment as Environment,
      site_id: kiosk.site_id,
      kiosk_id: kioskId,
      public_key: request.public_key,
      issued_at: now.toISOString(),
      expires_at: new Date(now.getTime() + KIOSK_CERTIFICATE_LIFETIME_MS).toISOString(),
    };
    if (!(await recordCertificate(trx, tenant, kioskId, { public_key: claims.public_key, certified_at: claims.issued_at, certificate_expires_at: claims.expires_at }))) throw notFound('Kiosk');
    const key = createPrivateKey({ key: Buffer.from(deps.secretBox.open(authority.private_key), 'base64'), format: 'der', type: 'pkcs8' });
    return { certificate: signKioskCertificate(claims, key), claims, authority: authorityView(authority) };
  });
}
