import { z } from 'zod';
import { Environment, PageQuery, SiteRef, Timestamp, TimestampInput, paginated } from './common.ts';
import { CallListView } from './sites.ts';

/**
 * `kiosk_` and a ULID, made by the kiosk at its first start and kept in its own settings
 * (electron/core/core.ts). The format is checked so a typo cannot create a second kiosk.
 */
export const KIOSK_ID_PATTERN = /^kiosk_[0-9A-HJKMNP-TV-Z]{26}$/;

export const KioskId = z
  .string()
  .regex(KIOSK_ID_PATTERN, 'must be kiosk_ followed by a ULID (26 characters), as the kiosk makes it at its first start')
  .meta({ example: 'kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' });

/**
 * In paths the id is any string: an id in another format is simply no kiosk (404), and the
 * heartbeat checks the format after its body (a 400 naming `kioskId`), so a missing body is still
 * named first, as on every route.
 */
export const KioskIdParams = z.object({
  kioskId: z.string().max(100).meta({ description: '`kiosk_` and a ULID, made by the kiosk at its first start', example: 'kiosk_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
});

const Count = z.int().min(0).max(1_000_000_000);

/**
 * What a kiosk reports every KIOSK_HEARTBEAT_S (default 30 s) while it can reach the server:
 * the gate's own view of its queue. `null` in `oldest_queued_at` and `last_sync_at` means none
 * (nothing queued, never synced), not "absent": the fields are required.
 */
export const KioskHeartbeatRequest = z
  .strictObject({
    entry_point: z.string().trim().min(1).max(200).meta({ description: 'The gate this kiosk stands at' }),
    app_version: z.string().trim().min(1).max(50).meta({ example: '0.1.0' }),
    queued_operations: Count.meta({ description: 'Scans, walk-ins, checkouts and SOS presses waiting on the kiosk to reach the server' }),
    oldest_queued_at: TimestampInput.nullable().meta({ description: 'When the oldest of them happened; null when nothing waits' }),
    last_sync_at: TimestampInput.nullable().meta({ description: 'When the kiosk last finished a sync; null: never' }),
    needs_attention: Count.meta({ description: 'Items on the kiosk\'s needs-attention list (operations the server refused for good)' }),
    clock: TimestampInput.meta({ description: "The kiosk's own clock, uncorrected, when it made the heartbeat: the server compares it with its own" }),
    site_id: SiteRef.optional().meta({
      description: "The site the kiosk was set up for. Without it the kiosk keeps the site it has; a new kiosk's is the site with an entry point of its `entry_point`'s name when exactly one has one, else the default site",
    }),
  })
  .meta({ id: 'KioskHeartbeatRequest' });
export type KioskHeartbeatRequest = z.infer<typeof KioskHeartbeatRequest>;

export const KIOSK_STATUSES = ['online', 'offline', 'retired'] as const;
export const KioskStatus = z.enum(KIOSK_STATUSES).meta({
  id: 'KioskStatus',
  description: '`online`: heard from within KIOSK_OFFLINE_AFTER_S (default 120 s); `offline`: not since; `retired`: taken out of service (never alerts)',
});

export const Kiosk = z
  .object({
    kiosk_id: KioskId,
    name: z.string().nullable().meta({ description: 'Given with PATCH; null until then' }),
    status: KioskStatus,
    entry_point: z.string(),
    app_version: z.string(),
    queued_operations: z.int(),
    oldest_queued_at: Timestamp.nullable(),
    last_sync_at: Timestamp.nullable(),
    needs_attention: z.int(),
    clock: Timestamp.meta({ description: "The kiosk's own clock in its last heartbeat" }),
    clock_skew_seconds: z.number().nullable().meta({
      description:
        "The kiosk's clock minus the server's when the heartbeat arrived (positive: the kiosk is ahead), to a tenth of a second. Null when the last heartbeat waited in the kiosk's queue (replayed through `POST /kiosk/replay`): its clock was read before it was sent",
    }),
    last_seen_at: Timestamp.meta({ description: "When the server received the kiosk's last heartbeat (the server's clock)" }),
    offline_since: Timestamp.nullable().meta({ description: 'When `kiosk.offline` was raised for the outage under way; null otherwise' }),
    first_seen_at: Timestamp,
    retired_at: Timestamp.nullable(),
    site_id: z.string().nullable().meta({ description: 'The site whose gate it stands at' }),
    certificate_expires_at: Timestamp.nullable().meta({
      description: "When the kiosk's current certificate (`POST /kiosks/{kioskId}/certificate`) stops vouching for it to the site's other kiosks; null: never certified",
    }),
  })
  .meta({ id: 'Kiosk' });
export type Kiosk = z.infer<typeof Kiosk>;

export const KioskEnvelope = z.object({ kiosk: Kiosk }).meta({ id: 'KioskResponse' });

/** What a heartbeat tells the kiosk back: itself as recorded, and its site's name and call list (the numbers its SOS screen shows). */
export const KioskHeartbeatAnswer = z
  .object({
    kiosk: Kiosk,
    site: z
      .object({ site_id: z.string(), name: z.string(), call_list: z.array(CallListView) })
      .nullable()
      .meta({ description: "The kiosk's site: its name and call list, in order (E.164). The kiosk shows these on its SOS screen, its own KIOSK_ALARM_PHONES only when the site has none" }),
  })
  .meta({ id: 'KioskHeartbeatAnswer' });
export const KioskPage = paginated(Kiosk, 'KioskPage');

export const ListKiosksQuery = PageQuery.extend({
  site_id: SiteRef.optional().meta({ description: 'Only the kiosks of this site' }),
  status: KioskStatus.optional(),
  entry_point: z.string().max(200).optional(),
});

export const RenameKioskRequest = z
  .strictObject({ name: z.string().trim().min(1).max(100) })
  .meta({ id: 'RenameKioskRequest' });

/** `kiosk.online`'s data: the kiosk, and when the outage it ends was reported. */
export const KioskOnlineEventData = Kiosk.extend({
  was_offline_since: Timestamp.meta({ description: 'When `kiosk.offline` was raised for the outage that ended' }),
}).meta({ id: 'KioskOnlineEventData' });

/** An Ed25519 public key, its raw 32 bytes in base64url (43 characters). */
const RawPublicKey = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be an Ed25519 public key: its 32 bytes in base64url (43 characters)');

/**
 * What a kiosk sends for a certificate: its own public key (the private key never leaves it) and
 * proof that it holds the private key, a signature over `kioskCertificateProofText`.
 */
export const KioskCertificateRequest = z
  .strictObject({
    public_key: RawPublicKey.meta({ description: "The kiosk's own Ed25519 public key, raw, base64url. The first certificate binds it to the kiosk; a later one with another key replaces it (a reinstalled kiosk), recorded in the audit log" }),
    proof: z
      .string()
      .regex(/^[A-Za-z0-9_-]{86}$/, 'must be an Ed25519 signature in base64url (86 characters)')
      .meta({ description: 'Ed25519 signature, base64url, by the private key of `public_key` over the UTF-8 text `tsaro-kiosk-certificate\\n<kioskId>\\n<public_key>`' }),
  })
  .meta({ id: 'KioskCertificateRequest' });
export type KioskCertificateRequest = z.infer<typeof KioskCertificateRequest>;

/** What a certificate says: signed by the site's kiosk authority; a peer checks every field. */
export const KioskCertificateClaims = z
  .object({
    v: z.literal(1),
    kid: z.string().meta({ description: "The kiosk authority's key id" }),
    organization_id: z.string(),
    environment: Environment,
    site_id: z.string(),
    kiosk_id: KioskId,
    public_key: RawPublicKey,
    issued_at: Timestamp,
    expires_at: Timestamp,
  })
  .meta({ id: 'KioskCertificateClaims' });
export type KioskCertificateClaims = z.infer<typeof KioskCertificateClaims>;

export const KioskAuthority = z
  .object({
    kid: z.string(),
    site_id: z.string(),
    public_key: RawPublicKey.meta({ description: "The site's kiosk authority's Ed25519 public key: it verifies the certificates of the site's kiosks" }),
  })
  .meta({ id: 'KioskAuthority' });
export type KioskAuthority = z.infer<typeof KioskAuthority>;

export const KioskCertificateAnswer = z
  .object({
    certificate: z.string().meta({ description: 'base64url(claims as JSON) "." base64url(Ed25519 signature by the authority over the first part). Shown to the site\'s other kiosks, which check it with the authority\'s public key' }),
    claims: KioskCertificateClaims,
    authority: KioskAuthority,
  })
  .meta({ id: 'KioskCertificateAnswer' });
export type KioskCertificateAnswer = z.infer<typeof KioskCertificateAnswer>;

/** The text a kiosk signs to prove it holds the private key of the public key it sends. */
export function kioskCertificateProofText(kioskId: string, publicKey: string): string {
  return `tsaro-kiosk-certificate\n${kioskId}\n${publicKey}`;
}
