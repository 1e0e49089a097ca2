import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { assemblePass, base32Encode, parsePass, passSigningText, type PassClaims } from '../../shared/pass.ts';
import { setNewest } from '../bounded-map.ts';
import type { Clock } from '../clock.ts';
import type { Executor, PassKeyRow, Tenant } from '../db/schema.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { badRequest } from '../http/errors.ts';
import { siteSummaryOf } from '../sites/service.ts';
import type { PassKeys } from '../../shared/schemas/access.ts';
import { findAcceptedPassKeys, findPassKey, insertPassKey, retirePassKeys, sitesWithoutPassKey } from './store.ts';
import { randomBytes } from 'node:crypto';

/**
 * What makes and uses a signing key. The private key is sealed with the sealing key
 * (server/secrets/) before it is stored, as webhook secrets are: a database dump alone cannot
 * sign a pass.
 */
export interface PassKeyDeps {
  clock: Clock;
  secretBox: SecretBox;
}

/** Raw 32-byte Ed25519 public keys are the DER SPKI minus this fixed 12-byte prefix. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export function publicKeyFromRaw(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

/**
 * The signing key of a site in the tenant's environment, made on first use; `siteId` null: the
 * organization's, which signs codes made before sites (a pass names its site through its key id).
 */
export async function passKeyOf(db: Executor, deps: PassKeyDeps, tenant: Tenant, siteId: string | null): Promise<PassKeyRow> {
  const existing = await findPassKey(db, tenant, siteId);
  if (existing) return existing;
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length);
  const row: PassKeyRow = {
    kid: base32Encode(randomBytes(5)),
    organization_id: tenant.organizationId,
    environment: tenant.environment,
    site_id: siteId,
    public_key: raw.toString('base64url'),
    private_key: deps.secretBox.seal(privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64')),
    created_at: deps.clock.now().toISOString(),
    retired_at: null,
    accept_until: null,
  };
  // Made by another request meanwhile: that one is the site's key.
  return (await insertPassKey(db, row)) ? row : (await findPassKey(db, tenant, siteId))!;
}

/**
 * The keys passes are checked with: signing keys, and retired keys until their last pass
 * expires; every site's, or with `siteId` that site's and the organization's (codes made before
 * sites are valid at every site).
 */
export async function publicPassKeys(db: Executor, tenant: Tenant, now: Date, siteId?: string): Promise<PassKeyRow[]> {
  return findAcceptedPassKeys(db, tenant, now.toISOString(), siteId);
}

/**
 * Makes the signing key of every active site that has none yet in the tenant's environment, so
 * a kiosk set up before a site's first code verifies that code's pass offline.
 */
export async function makeSitePassKeys(db: Executor, deps: PassKeyDeps, tenant: Tenant): Promise<void> {
  for (const siteId of await sitesWithoutPassKey(db, tenant)) await passKeyOf(db, deps, tenant, siteId);
}

/**
 * What `GET /access-codes/pass-keys` answers: the tenant's public pass keys, each naming its
 * site (null: the organization's, for codes made before sites); every site's, or with `siteId`
 * that site's and the organization's. Sites' signing keys are made here when no code has been
 * issued there yet, so a kiosk set up on a new site verifies its very first passes offline.
 * Public keys only verify, so a kiosk gets other sites' too: it can tell a genuine pass of
 * another site ("Code is for another site") from a forged one.
 */
export async function passKeysOf(db: Executor, deps: PassKeyDeps, tenant: Tenant, siteId?: string): Promise<PassKeys> {
  if (siteId === undefined) {
    await makeSitePassKeys(db, deps, tenant);
  } else {
    if (!(await siteSummaryOf(db, tenant.organizationId, siteId))) throw badRequest(`site_id: no site ${siteId} in this organization`);
    await passKeyOf(db, deps, tenant, siteId);
  }
  const keys = await publicPassKeys(db, tenant, deps.clock.now(), siteId);
  // The estate each key signs for, by name: a gate refusing another estate's pass says whose it is (issue #49).
  const names = new Map<string, string>();
  for (const site of new Set(keys.map((key) => key.site_id).filter((id): id is string => Boolean(id)))) {
    const summary = await siteSummaryOf(db, tenant.organizationId, site);
    if (summary) names.set(site, summary.name);
  }
  return {
    keys: keys.map((key) => ({
      kid: key.kid,
      algorithm: 'Ed25519',
      public_key: key.public_key,
      site_id: key.site_id ?? null,
      site_name: key.site_id ? (names.get(key.site_id) ?? null) : null,
      created_at: key.created_at,
    })),
  };
}

/** Every tenant's signing key retired at once (server/secrets/legacy-key.ts); the next pass makes a new one. */
export const retireSigningKeys = retirePassKeys;

export function signPass(secretBox: SecretBox, key: PassKeyRow, claims: PassClaims): string {
  const text = passSigningText(key.kid, claims);
  const der = Buffer.from(secretBox.open(key.private_key), 'base64');
  const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  return assemblePass(text, sign(null, Buffer.from(text), privateKey));
}

/** The claims of a pass signed with one of the tenant's accepted keys; undefined when forged, altered or foreign. */
export type PassVerifier = (text: string, keys: readonly PassKeyRow[]) => PassClaims | undefined;

/** A node:crypto key object of a 32-byte Ed25519 public key's text; undefined for any other text. */
function keyObjectOf(publicKey: string): KeyObject | undefined {
  const raw = Buffer.from(publicKey, 'base64url');
  return raw.length === 32 ? publicKeyFromRaw(raw) : undefined;
}

/**
 * The app's verifier (`createApp` makes one): it keeps public keys as node:crypto key objects, by
 * their text, since making one (DER parsing) cost more than the signature check itself, on
 * every pass validated. A tenant's key never changes once made. Text that is not a key is never kept.
 */
export function createPassVerifier(): PassVerifier {
  const keyObjects = new Map<string, KeyObject>();
  return (text, keys) =>
    verifyWith(text, keys, (publicKey) => {
      const known = keyObjects.get(publicKey);
      if (known) return known;
      const keyObject = keyObjectOf(publicKey);
      if (keyObject) setNewest(keyObjects, publicKey, keyObject, 1_000);
      return keyObject;
    });
}

/** Verifies without keeping anything (scripts and tests). */
export const verifyPass: PassVerifier = (text, keys) => verifyWith(text, keys, keyObjectOf);

function verifyWith(text: string, keys: readonly PassKeyRow[], keyObject: (publicKey: string) => KeyObject | undefined): PassClaims | undefined {
  const parsed = parsePass(text);
  const key = parsed && keys.find((k) => k.kid === parsed.kid);
  if (!parsed || !key) return undefined;
  const publicKey = keyObject(key.public_key);
  if (!publicKey) return undefined;
  const ok = verify(null, Buffer.from(parsed.signedText), publicKey, parsed.signature);
  return ok ? parsed.claims : undefined;
}
