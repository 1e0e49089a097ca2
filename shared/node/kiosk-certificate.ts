import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { KioskCertificateClaims, kioskCertificateProofText, type KioskAuthority } from '../schemas/kiosks.ts';

/**
 * Kiosk certificates (issue #49; docs/security.md, "Kiosk identities"): the server's kiosk
 * authority of a site signs a kiosk's public key for a short while; the site's other kiosks check
 * it with the authority's public key, without the server. The server (issuing) and the kiosk core
 * (checking its peers) share this file.
 */

/** Raw 32-byte Ed25519 public keys are the DER SPKI minus this fixed 12-byte prefix. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export function ed25519PublicKey(rawBase64url: string): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, Buffer.from(rawBase64url, 'base64url')]), format: 'der', type: 'spki' });
}

export function rawPublicKeyOf(key: KeyObject): string {
  return key.export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length).toString('base64url');
}

/** The proof a kiosk sends beside its public key: its signature over `kioskCertificateProofText`. */
export function proveKioskKey(privateKey: KeyObject, kioskId: string, publicKey: string): string {
  return sign(null, Buffer.from(kioskCertificateProofText(kioskId, publicKey)), privateKey).toString('base64url');
}

export function kioskKeyProofHolds(kioskId: string, publicKey: string, proof: string): boolean {
  try {
    return verify(null, Buffer.from(kioskCertificateProofText(kioskId, publicKey)), ed25519PublicKey(publicKey), Buffer.from(proof, 'base64url'));
  } catch {
    return false;
  }
}

/** The certificate's text: the claims as JSON in base64url, a dot, the authority's signature over the first part. */
export function signKioskCertificate(claims: KioskCertificateClaims, authorityKey: KeyObject): string {
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${body}.${sign(null, Buffer.from(body), authorityKey).toString('base64url')}`;
}

export type CertificateCheck =
  | { ok: true; claims: KioskCertificateClaims }
  | { ok: false; reason: 'malformed' | 'unknown_authority' | 'bad_signature' | 'other_site' | 'expired' | 'not_yet_valid' };

/**
 * Whether a peer's certificate holds: well formed, signed by one of `authorities` (the keys of
 * this kiosk's own site), naming that site and this organization and environment, and current at
 * `nowMs` (with `skewMs` of leeway for the two kiosks' clocks).
 */
export function checkKioskCertificate(
  certificate: string,
  expected: { authorities: readonly KioskAuthority[]; organizationId: string; environment: string; siteId: string },
  nowMs: number,
  skewMs = 60_000,
): CertificateCheck {
  const [body, signature, extra] = certificate.split('.');
  if (!body || !signature || extra !== undefined) return { ok: false, reason: 'malformed' };
  let claims: KioskCertificateClaims;
  try {
    const parsed = KioskCertificateClaims.safeParse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
    if (!parsed.success) return { ok: false, reason: 'malformed' };
    claims = parsed.data;
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const authority = expected.authorities.find((candidate) => candidate.kid === claims.kid);
  if (!authority) return { ok: false, reason: 'unknown_authority' };
  let signed = false;
  try {
    signed = verify(null, Buffer.from(body), ed25519PublicKey(authority.public_key), Buffer.from(signature, 'base64url'));
  } catch {
    signed = false;
  }
  if (!signed) return { ok: false, reason: 'bad_signature' };
  if (claims.site_id !== expected.siteId || authority.site_id !== expected.siteId || claims.organization_id !== expected.organizationId || claims.environment !== expected.environment) {
    return { ok: false, reason: 'other_site' };
  }
  if (Date.parse(claims.expires_at) <= nowMs - skewMs) return { ok: false, reason: 'expired' };
  if (Date.parse(claims.issued_at) > nowMs + skewMs) return { ok: false, reason: 'not_yet_valid' };
  return { ok: true, claims };
}
