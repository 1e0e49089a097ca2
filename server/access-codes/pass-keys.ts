import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { assemblePass, base32Encode, parsePass, passSigningText, type PassClaims } from '../../shared/pass.ts';
import { setNewest } from '../bounded-map.ts';
import type { Clock } from '../clock.ts';
import type { Executor, PassKeyRow, Tenant } from '../db/schema.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { findAcceptedPassKeys, findPassKey, insertPassKey, retirePassKeys } from './store.ts';
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

/** The tenant's signing key, made on first use (one per organization and environment). */
export async function passKeyOf(db: Executor, deps: PassKeyDeps, tenant: Tenant): Promise<PassKeyRow> {
  const existing = await findPassKey(db, tenant);
  if (existing) return existing;
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length);
  const row: PassKeyRow = {
    kid: base32Encode(randomBytes(5)),
    organization_id: tenant.organizationId,
    environment: tenant.environment,
    public_key: raw.toString('base64url'),
    private_key: deps.secretBox.seal(privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64')),
    created_at: deps.clock.now().toISOString(),
    retired_at: null,
    accept_until: null,
  };
  // Made by another request meanwhile: that one is the tenant's key.
  return (await insertPassKey(db, row)) ? row : (await findPassKey(db, tenant))!;
}

/** The keys passes are checked with: the signing key, and retired keys until their last pass expires. */
export async function publicPassKeys(db: Executor, tenant: Tenant, now: Date): Promise<PassKeyRow[]> {
  return findAcceptedPassKeys(db, tenant, now.toISOString());
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
