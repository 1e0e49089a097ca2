import { z } from 'zod';
import { PhoneNumber } from './sites.ts';
import { DateRangeQuery, EndInstantInput, EntryPointRef, PageQuery, SiteRef, StartInstantInput, Timestamp, TimestampInput, nullMeansAbsent, paginated, queryNumber, searchQuery } from './common.ts';

export const ACCESS_CODE_STATUSES = ['active', 'used', 'expired', 'revoked'] as const;
export const AccessCodeStatus = z.enum(ACCESS_CODE_STATUSES).meta({
  id: 'AccessCodeStatus',
  description: '`used`: use_count reached max_uses. `expired`: past valid_until. `revoked`: revoked by the partner. Only `active` codes admit.',
});
export type AccessCodeStatus = z.infer<typeof AccessCodeStatus>;

/** The alphabet of the 4 characters after the prefix: no 0/O, 1/I, so a guard can read them aloud. */
export const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A validation's choice when the holder of the code is already inside (the kiosk's "Already inside", issue #49). */
export const ALREADY_INSIDE_CHOICES = ['hold', 'admit'] as const;
export type AlreadyInsideChoice = (typeof ALREADY_INSIDE_CHOICES)[number];

export const VALIDATION_REASONS = [
  'Code not found',
  'Code has been revoked',
  'Maximum uses reached',
  'Code not yet active',
  'Code has expired',
  'Code is for another site',
  'Code is for another entry point',
] as const;
export type ValidationReason = (typeof VALIDATION_REASONS)[number];

const VisitorName = z.string().trim().min(1).max(200);
const VisitorPhone = z.string().trim().min(3).max(32);
const ShortText = z.string().trim().min(1).max(200);

const VisitorFields = {
  visitor_name: VisitorName,
  visitor_phone: VisitorPhone,
  visitor_email: z.email().max(254).optional(),
  purpose: z.string().trim().max(500).optional(),
  entry_point: ShortText.optional().meta({ description: 'Gate or entrance the visitor is expected at' }),
  host_user_id: ShortText.optional().meta({ description: 'The staff member or resident being visited' }),
  host_phone: PhoneNumber.optional().meta({
    description: "The host's phone, texted when the visitor checks in with this code (the server's SMS gateway permitting; live codes only). E.164 is answered; a number without a country is read as Nigerian",
  }),
};

const Validity = {
  valid_from: StartInstantInput.optional().meta({ description: 'Defaults to now; a date (YYYY-MM-DD) is the start of that day, UTC' }),
  valid_until: EndInstantInput.optional().meta({
    description: 'Defaults to valid_from + 24 h; must be after valid_from, and at most one year after it (the same instant a year later). A date (YYYY-MM-DD) is the end of that day, UTC',
  }),
};

/** Where a code admits (issue #34): its site, and optionally one gate of it. */
const CodePlace = {
  site_id: SiteRef.optional().meta({
    description: "The site whose gates admit it. Defaults to the key's site when the key is limited to one, else the organization's default site",
  }),
  entry_point_id: EntryPointRef.optional().meta({ description: "Only this entry point of the site admits it (a validation naming another is refused); it implies its site" }),
};

export const CreateAccessCodeRequest = nullMeansAbsent(z.strictObject({
    ...VisitorFields,
    ...CodePlace,
    ...Validity,
    max_uses: z.int().min(1).max(1000).default(1),
  }))
  .meta({ id: 'CreateAccessCodeRequest' });
export type CreateAccessCodeRequest = z.infer<typeof CreateAccessCodeRequest>;

export const BulkVisitor = nullMeansAbsent(z.strictObject({
  visitor_name: VisitorName,
  visitor_phone: VisitorPhone,
  visitor_email: VisitorFields.visitor_email,
  entry_point: VisitorFields.entry_point,
  host_user_id: VisitorFields.host_user_id,
  host_phone: VisitorFields.host_phone,
  entry_point_id: CodePlace.entry_point_id,
  max_uses: z.int().min(1).max(1000).optional(),
}));

export const BulkCreateAccessCodesRequest = nullMeansAbsent(z.strictObject({
    visitors: z.array(BulkVisitor).min(1).max(50),
    purpose: VisitorFields.purpose,
    site_id: CodePlace.site_id,
    ...Validity,
  }))
  .meta({ id: 'BulkCreateAccessCodesRequest', description: 'All-or-nothing: one bad visitor is a 400 naming visitors[i].field' });
export type BulkCreateAccessCodesRequest = z.infer<typeof BulkCreateAccessCodesRequest>;

export const AccessCode = z
  .object({
    code_id: z.string().meta({ example: 'code_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
    code: z.string().meta({ example: 'DEMO-7K2P' }),
    visitor_name: z.string().nullable().meta({ description: 'null once erased by the retention policy' }),
    visitor_phone: z.string().nullable(),
    visitor_email: z.string().nullable(),
    purpose: z.string().nullable(),
    entry_point: z.string().nullable(),
    host_user_id: z.string().nullable(),
    status: AccessCodeStatus,
    valid_from: Timestamp,
    valid_until: Timestamp,
    max_uses: z.int(),
    use_count: z.int(),
    uses_remaining: z.int(),
    qr_payload: z
      .string()
      .meta({ description: 'The signed pass: what the QR image encodes. A kiosk with the public pass keys decides it offline.' }),
    created_at: Timestamp,
    updated_at: Timestamp,
    revoked_at: Timestamp.nullable(),
    revoke_reason: z.string().nullable(),
    site_id: z.string().nullable().meta({ description: 'The site whose gates admit it; null for a code made before sites, which every site of the organization admits' }),
    entry_point_id: z.string().nullable().meta({ description: 'The one entry point that admits it, when it names one' }),
    host_phone: z.string().nullable().meta({ description: "The host's phone (E.164), texted when the visitor arrives; null: nobody is texted" }),
  })
  .meta({ id: 'AccessCode' });
export type AccessCode = z.infer<typeof AccessCode>;

export const AccessCodeEnvelope = z.object({ access_code: AccessCode }).meta({ id: 'AccessCodeResponse' });
export const BulkAccessCodes = z
  .object({ access_codes: z.array(AccessCode), count: z.int() })
  .meta({ id: 'BulkAccessCodesResponse' });
export const AccessCodePage = paginated(AccessCode, 'AccessCodePage');

export const ListAccessCodesQuery = PageQuery.extend({
  site_id: SiteRef.optional().meta({ description: 'Only the codes this site admits: its own, and those made before sites (every site admits them)' }),
  status: AccessCodeStatus.optional(),
  visitor_phone: z.string().max(32).optional().meta({ description: 'Exact phone number' }),
  search: searchQuery('Part of the code, the visitor name or phone, or the purpose, any case (a text index: three characters or more are looked up; the count stops at 10,000)'),
}).extend(DateRangeQuery.shape);

export const CodeIdParams = z.object({ codeId: z.string() });
export const RevokeAccessCodeRequest = nullMeansAbsent(z.strictObject({ reason: z.string().trim().min(1).max(500).optional() }));
export const BulkRevokeAccessCodesRequest = nullMeansAbsent(z.strictObject({
    code_ids: z.array(z.string().min(1).max(64)).min(1).max(100).meta({ description: 'Up to 100 code ids (code_...); one named twice is revoked once' }),
    reason: z.string().trim().min(1).max(500).optional(),
  }))
  .meta({ id: 'BulkRevokeAccessCodesRequest', description: 'All or nothing: a code that is not active is a 409 naming it, and none is revoked' });
export const QrQuery = z.object({ format: z.enum(['svg', 'png']).default('svg') });

export const PassSent = z
  .object({
    message_id: z.string().meta({ description: 'The text (`GET /messages`, reason `visitor_pass`, with `logs:read`)', example: 'sms_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
    phone: z.string().meta({ description: "The visitor's mobile number it goes to, in E.164", example: '+2348031112222' }),
    link_expires_at: Timestamp.meta({ description: "The code's `valid_until`: the link is dead after it, and at once on revoke" }),
  })
  .meta({ id: 'PassSent' });
export type PassSent = z.infer<typeof PassSent>;

export const ValidateAccessCodeRequest = nullMeansAbsent(z.strictObject({
    code: z.string().trim().min(1).max(2000).meta({ description: 'The code as typed (any case, spaces ignored) or the whole signed pass' }),
    validated_by: ShortText.optional().meta({ description: 'Name or id of the guard' }),
    entry_point: ShortText.optional().meta({ description: 'Where the visitor is entering; recorded in the access log' }),
    site_id: SiteRef.optional().meta({ description: "The site of the gate: a code of another site is refused (`Code is for another site`); a code made before sites is not" }),
    entry_point_id: EntryPointRef.optional().meta({ description: 'The gate, as registered: a code limited to another entry point is refused. Implies its site' }),
    scanned_at: TimestampInput.optional().meta({
      description: 'When an offline kiosk scanned it: validity is judged at that time. At most 7 days old and not in the future.',
    }),
    already_inside: z.enum(ALREADY_INSIDE_CHOICES).optional().meta({
      description:
        'What to do when the holder of the code already has an open visit at the site (checked in with this code, not yet out, at the time of the scan). ' +
        '`hold`: nothing is consumed and nobody is checked in; the answer is 409 naming that visit in `open_visit` (the guard decides). ' +
        '`admit`: the guard saw that and lets them in anyway; the new access log records it (`already_inside_override: true`). ' +
        'Absent: the code is consumed whoever is inside, and nothing is recorded.',
    }),
  }))
  .meta({ id: 'ValidateAccessCodeRequest' });

/** The visit that holds a validation asking `already_inside: hold` (409). */
export const OpenVisit = z
  .object({
    log_id: z.string(),
    checked_in_at: Timestamp,
    entry_point: z.string().nullable().meta({ description: 'Where the holder came in' }),
    visitor_name: z.string().nullable(),
  })
  .meta({ id: 'OpenVisit' });
export type OpenVisit = z.infer<typeof OpenVisit>;
export const AlreadyInsideError = z
  .object({
    code: z.literal(409),
    message: z.string().meta({ example: 'The holder of this code is already inside since 2026-11-22T10:42:00.000Z (Main gate); nothing was consumed' }),
    open_visit: OpenVisit,
  })
  .meta({ id: 'AlreadyInsideError', description: 'A validation with `already_inside: hold` whose holder is inside: nothing consumed, nobody checked in' });

export const ValidationResult = z
  .union([
    z.object({
      valid: z.literal(true),
      code_id: z.string(),
      visitor: z.object({ name: z.string().nullable(), phone: z.string().nullable() }),
      purpose: z.string().nullable(),
      host_user_id: z.string().nullable(),
      uses_remaining: z.int(),
      valid_until: Timestamp,
      log_id: z.string().meta({ description: 'The access log of this check-in' }),
    }),
    z.object({ valid: z.literal(false), reason: z.enum(VALIDATION_REASONS) }),
  ])
  .meta({ id: 'ValidationResult', description: 'An invalid code is not an error: 200 with valid false and the reason' });
export type ValidationResult = z.infer<typeof ValidationResult>;

export const AccessCodeStats = z
  .object({
    total_generated: z.int(),
    total_used: z.int().meta({ description: 'Codes used at least once' }),
    total_expired: z.int(),
    total_revoked: z.int(),
    total_active: z.int(),
  })
  .meta({ id: 'AccessCodeStats', description: 'Counts of codes created in the window' });
export const StatsQuery = DateRangeQuery.extend({ site_id: SiteRef.optional().meta({ description: 'Only this site (codes: its own, and those made before sites)' }) });

export const CodeFeedQuery = z.object({
  cursor: queryNumber(z.int().min(0)).default(0).meta({ description: '`next_cursor` of the previous page; 0 for everything' }),
  limit: queryNumber(z.int().min(1).max(5000)).default(1000),
});
export const CodeFeed = z
  .object({
    codes: z.array(AccessCode).meta({ description: 'Codes changed after the cursor, in their current state, in change order' }),
    next_cursor: z.int(),
    has_more: z.boolean(),
  })
  .meta({ id: 'AccessCodeFeed' });

export const PassKey = z
  .object({
    kid: z.string(),
    algorithm: z.literal('Ed25519'),
    public_key: z.string().meta({ description: 'Raw 32-byte Ed25519 public key, base64url' }),
    site_id: z.string().nullable().meta({
      description:
        "The site whose codes it signs: a kiosk of another site refuses its passes (`Code is for another site`). Null: the organization's key, which signed the codes made before sites (valid at every site)",
    }),
    site_name: z.string().nullable().meta({ description: "That site's name (the estate), so a gate refusing its pass can say whose it is; null for the organization's key" }),
    created_at: Timestamp,
  })
  .meta({ id: 'PassKey' });
export const PassKeys = z.object({ keys: z.array(PassKey) }).meta({ id: 'PassKeys' });
export type PassKeys = z.infer<typeof PassKeys>;
export const PassKeysQuery = z.object({
  site_id: SiteRef.optional().meta({ description: "Only this site's keys and the organization's (a kiosk of that site); its signing key is made if it has none yet" }),
});

// Access logs

export const ACCESS_LOG_STATUSES = ['checked_in', 'checked_out'] as const;
export const AccessLogStatus = z.enum(ACCESS_LOG_STATUSES).meta({ id: 'AccessLogStatus' });

/** What a gate did when it let a visitor in offline with a code the server then refused: an excess use (issue #49). */
export const AdmittedOffline = z
  .strictObject({
    code: z.string().trim().min(1).max(64).meta({ description: 'The code the gate admitted, as it was scanned or typed' }),
    scanned_at: TimestampInput.meta({ description: 'When the gate admitted it, offline' }),
    server_said: z.string().trim().min(1).max(500).meta({ description: "The server's refusal when the gate replayed the scan (e.g. Maximum uses reached)" }),
  })
  .meta({ id: 'AdmittedOffline' });
export type AdmittedOffline = z.infer<typeof AdmittedOffline>;

export const AccessLog = z
  .object({
    log_id: z.string().meta({ example: 'log_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
    code_id: z.string().nullable().meta({ description: 'null for walk-ins' }),
    method: z.enum(['code', 'walk_in']),
    visitor_name: z.string().nullable().meta({ description: 'null once erased by the retention policy' }),
    visitor_phone: z.string().nullable(),
    entry_point: z.string().nullable(),
    host_user_id: z.string().nullable(),
    notes: z.string().nullable(),
    status: AccessLogStatus,
    checked_in_at: Timestamp,
    checked_out_at: Timestamp.nullable(),
    checkout_notes: z.string().nullable(),
    recorded_by: z.string().nullable(),
    auto_checked_out: z.boolean().meta({ description: 'Checked out by the auto-checkout policy' }),
    already_inside_override: z.boolean().meta({
      description: 'The guard was shown that the holder of this code was already inside and let them in anyway (a validation with `already_inside: admit`)',
    }),
    site_id: z.string().nullable().meta({ description: 'The site the visit happened at' }),
    duration_minutes: z.int().meta({ description: 'Time on premises, to now while checked in' }),
    admitted_offline: AdmittedOffline.nullable().meta({
      description: 'An excess use: a gate let this visitor in offline with a code the server then refused (its last use taken at another gate, or revoked meanwhile), and recorded the visit as a walk-in. Raised as `visitor.excess_use`; null otherwise',
    }),
  })
  .meta({ id: 'AccessLog' });
export type AccessLog = z.infer<typeof AccessLog>;

export const CreateAccessLogRequest = nullMeansAbsent(z.strictObject({
    visitor_name: VisitorName,
    visitor_phone: VisitorPhone,
    entry_point: ShortText.optional(),
    site_id: SiteRef.optional().meta({ description: "The site of the gate. Defaults to the organization's default site" }),
    host_user_id: ShortText.optional(),
    notes: z.string().trim().max(2000).optional(),
    recorded_by: ShortText.optional().meta({ description: 'The guard who let the visitor in' }),
    checked_in_at: TimestampInput.optional().meta({ description: 'An offline kiosk replaying a walk-in: at most 7 days old, not in the future' }),
    admitted_offline: AdmittedOffline.optional().meta({
      description: "A kiosk recording a visitor it let in offline whose scan the server then refused: the visit is an excess use, raised as `visitor.excess_use` (an event only endpoints naming it receive) and flagged in the console",
    }),
  }))
  .meta({ id: 'CreateAccessLogRequest' });

export const CheckoutRequest = nullMeansAbsent(z.strictObject({
    checkout_notes: z.string().trim().max(2000).optional(),
    recorded_by: ShortText.optional(),
    checked_out_at: TimestampInput.optional().meta({ description: 'An offline kiosk replaying a checkout: not before check-in, not in the future' }),
  }))
  .meta({ id: 'CheckoutRequest' });

export const AccessLogEnvelope = z.object({ access_log: AccessLog }).meta({ id: 'AccessLogResponse' });
export const AccessLogPage = paginated(AccessLog, 'AccessLogPage');
export const LogIdParams = z.object({ logId: z.string() });

export const ListAccessLogsQuery = PageQuery.extend({
  site_id: SiteRef.optional().meta({ description: 'Only the visits at this site' }),
  status: AccessLogStatus.optional(),
  visitor_phone: z.string().max(32).optional(),
  entry_point: z.string().max(200).optional(),
  search: searchQuery('Part of the visitor name or phone, any case (a text index: three characters or more are looked up; the count stops at 10,000)'),
}).extend(DateRangeQuery.shape);

export const CurrentVisitor = z
  .object({
    log_id: z.string(),
    code_id: z.string().nullable(),
    visitor_name: z.string().nullable(),
    visitor_phone: z.string().nullable(),
    entry_point: z.string().nullable(),
    host_user_id: z.string().nullable(),
    checked_in_at: Timestamp,
    duration_minutes: z.int(),
    already_inside_override: z.boolean().meta({ description: 'Let in by a guard although the holder of the code was already inside (see AccessLog)' }),
    admitted_offline: AdmittedOffline.nullable().meta({ description: 'An excess use: let in offline with a code the server then refused (see AccessLog)' }),
  })
  .meta({ id: 'CurrentVisitor' });
export const CurrentVisitors = z
  .object({ visitors: z.array(CurrentVisitor), count: z.int() })
  .meta({ id: 'CurrentVisitors', description: 'Everyone checked in and not out, longest on premises first' });
export const CurrentVisitorsQuery = z.object({
  site_id: SiteRef.optional().meta({ description: 'Only who is at this site' }),
  entry_point: z.string().max(200).optional(),
  search: searchQuery('Part of the visitor name or phone, any case'),
});

export const AccessLogStats = z
  .object({
    total_check_ins: z.int(),
    total_check_outs: z.int(),
    currently_on_premises: z.int(),
    walk_ins: z.int(),
    code_entries: z.int(),
    average_duration_minutes: z.number().nullable().meta({ description: 'Of completed visits in the window; null when none' }),
    by_entry_point: z
      .array(
        z.object({
          entry_point: z.string().nullable().meta({ description: "The gate's name now; for visits that named no registered gate, the text they recorded" }),
          entry_point_id: z.string().nullable().meta({ description: "The registered gate; null for text no gate of the visit's site answers to" }),
          check_ins: z.int(),
        }),
      )
      .meta({ description: "Check-ins by gate, most first: visits recorded under a gate's former name (a kiosk set up before a rename) count as that gate" }),
  })
  .meta({ id: 'AccessLogStats', description: 'Visits checked in within the window' });

export const VisitorPolicies = z
  .object({
    auto_checkout_hours: z.int().min(1).max(720).nullable().meta({ description: 'Check out anyone still in after this many hours; null: never' }),
    retention_days: z
      .int()
      .min(1)
      .max(3650)
      .nullable()
      .meta({ description: 'Erase visitor names and phones of closed visits and final codes after this many days; null: keep' }),
  })
  .meta({ id: 'VisitorPolicies' });
export const UpdateVisitorPolicies = VisitorPolicies.partial().strict().meta({ id: 'UpdateVisitorPolicies' });
