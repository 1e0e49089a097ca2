import { z } from 'zod';
import { DateRangeQuery, PageQuery, SiteLimit, SiteRef, Timestamp, nullMeansAbsent, paginated } from './common.ts';

/** The console's roles (CONTRACT.md, "The console"): what a person may do through the same routes keys use. */
export const ROLES = ['owner', 'admin', 'developer', 'operator', 'viewer'] as const;
export const Role = z.enum(ROLES).meta({ id: 'Role' });
export type Role = z.infer<typeof Role>;

/** One sentence a role, for the console's choices. */
export const ROLE_SENTENCES: Record<Role, string> = {
  owner: 'Everything, including people, roles, visitor policies and the audit log.',
  admin: 'Everything except adding, changing or removing owners.',
  developer: 'API keys and webhook endpoints; reads everything else. Not policies or people.',
  operator: 'Incidents, access codes, access logs, roll calls and kiosks; reads threat intelligence.',
  viewer: 'Reads everything, keys and webhooks included, but never a secret, and changes nothing.',
};

/** Roles that must sign in with a second factor. */
/** Roles that always sign in with a second step. */
export const TOTP_REQUIRED: readonly Role[] = ['owner', 'admin'];
/** Roles an organization may require a second step of; operators by default (they cancel SOS incidents and see subjects' phones). */
export const TWO_STEP_OPTIONAL = ['developer', 'operator', 'viewer'] as const satisfies readonly Role[];
export const TWO_STEP_DEFAULT: readonly Role[] = ['operator'];

/** Whether a person of `role` must sign in with a second step, under the organization's setting (`null`: the default). */
export function twoStepRequired(role: Role, optionalRoles: readonly Role[] | null): boolean {
  return TOTP_REQUIRED.includes(role) || (optionalRoles ?? TWO_STEP_DEFAULT).includes(role);
}

export const TwoStepPolicy = z
  .object({
    required_for: z.array(Role).meta({ description: 'Every role that must use a second step: owner and admin always, then the organization\'s choice' }),
  })
  .meta({ id: 'TwoStepPolicy' });
export const ChangeTwoStepPolicyRequest = z
  .strictObject({
    roles: z.array(z.enum(TWO_STEP_OPTIONAL)).max(3).meta({ description: 'Of developer, operator and viewer, those that must use a second step (owner and admin always do). People not enrolled enrol at their next sign-in and keep the sessions they have.' }),
  })
  .meta({ id: 'ChangeTwoStepPolicyRequest' });

export const Email = z.email().max(254).transform((value) => value.toLowerCase());
export const MIN_PASSWORD_LENGTH = 12;
export const Password = z.string().min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`).max(256);
const TotpCode = z.string().regex(/^\d{6}$/, 'six digits');
const RecoveryCode = z.string().trim().min(8).max(40);

export const Person = z
  .object({
    person_id: z.string().meta({ example: 'per_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
    email: z.string(),
    name: z.string().nullable(),
    role: Role,
    site_ids: SiteLimit.meta({ description: 'The sites their role applies to: they see and change only those sites (never the people, policies or audit log). null: every site' }),
    totp_enabled: z.boolean(),
    created_at: Timestamp,
    last_active_at: Timestamp.nullable(),
  })
  .meta({ id: 'Person' });
export type Person = z.infer<typeof Person>;

export const SessionStage = z.enum(['totp', 'enrol_totp', 'active']).meta({
  description:
    'In the organization the request works in (`Tsaro-Organization`). `totp`: a code (or recovery code) is due: the password is right, or this organization asks the person\'s role here for the second step and this session has not passed it yet; `enrol_totp`: the same, for someone with no authenticator: enrol one first; `active`: signed in here',
});

export const ConsoleSession = z
  .object({
    stage: SessionStage,
    person: Person,
    organization: z.object({ organization_id: z.string(), name: z.string(), plan: z.string(), subscription_status: z.string() }).meta({
      description: 'The organization this request works in: the `Tsaro-Organization` header, else the one the person joined first',
    }),
    organizations: z
      .array(z.object({ organization_id: z.string(), name: z.string(), role: Role, site_ids: SiteLimit }))
      .meta({ description: 'Every organization the person belongs to, in the order they joined, with their role and sites in each: send `Tsaro-Organization` to work in another' }),
    csrf_token: z.string().meta({ description: 'Send as `X-CSRF-Token` on every request that changes something' }),
    expires_at: Timestamp.meta({ description: 'The session ends then, whatever happens (7 days after sign-in)' }),
    idle_expires_at: Timestamp.meta({ description: 'The session ends then unless used before (CONSOLE_IDLE_TIMEOUT_MIN)' }),
  })
  .meta({ id: 'ConsoleSession' });
export type ConsoleSession = z.infer<typeof ConsoleSession>;
export const SessionEnvelope = z.object({ session: ConsoleSession }).meta({ id: 'ConsoleSessionResponse' });

export const SignInRequest = z.strictObject({ email: Email, password: z.string().min(1).max(256) }).meta({ id: 'SignInRequest' });
export const SecondFactorRequest = z
  .strictObject({ code: TotpCode.optional(), recovery_code: RecoveryCode.optional() })
  .refine((body) => (body.code === undefined) !== (body.recovery_code === undefined), { message: 'send code or recovery_code', path: ['code'] })
  .meta({ id: 'SecondFactorRequest' });
export const TotpEnrolment = z
  .object({ secret: z.string().meta({ description: 'Base32, for typing into an authenticator app' }), otpauth_uri: z.string() })
  .meta({ id: 'TotpEnrolment' });
export const ConfirmTotpRequest = z.strictObject({ code: TotpCode }).meta({ id: 'ConfirmTotpRequest' });
export const StartTotpEnrolmentRequest = nullMeansAbsent(
  z.strictObject({
    replace: z.boolean().default(false).meta({ description: 'true: a new secret replaces the one not yet confirmed (the phone was lost mid-way); by default the pending one is given again, so a reload does not undo the scan' }),
  }),
).meta({ id: 'StartTotpEnrolmentRequest' });
export const ConfirmedTotp = z
  .object({ session: ConsoleSession, recovery_codes: z.array(z.string()).meta({ description: 'Ten single-use codes, shown once' }) })
  .meta({ id: 'ConfirmedTotp' });
export const ChangePasswordRequest = z.strictObject({ current_password: z.string().min(1).max(256), new_password: Password }).meta({ id: 'ChangePasswordRequest' });

export const Invitation = z
  .object({
    invitation_id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    role: Role,
    kind: z.enum(['join', 'reset']),
    site_ids: SiteLimit,
    organization_name: z.string(),
    created_at: Timestamp,
    expires_at: Timestamp,
  })
  .meta({ id: 'Invitation' });
export type Invitation = z.infer<typeof Invitation>;
export const CreatedInvitation = z
  .object({ invitation: Invitation, invite_url: z.string().meta({ description: 'Single use, for 7 days: give it to the person; it is not shown again' }) })
  .meta({ id: 'CreatedInvitation' });
/** A role limited to sites (an estate manager): each one of the organization's active sites; an owner is never limited. */
const PersonSites = z.array(SiteRef).min(1).max(100).meta({ description: 'Limits the role to these sites (an estate manager sees and changes only them). Left out or null: every site. Never for an owner' });
export const InviteRequest = nullMeansAbsent(
  z.strictObject({ email: Email, role: Role, name: z.string().trim().min(1).max(200).optional(), site_ids: PersonSites.optional() }),
).meta({ id: 'InviteRequest' });
export const AcceptInvitationRequest = nullMeansAbsent(z.strictObject({ password: Password, name: z.string().trim().min(1).max(200).optional() })).meta({ id: 'AcceptInvitationRequest' });
export const ChangeRoleRequest = z
  .strictObject({ role: Role, site_ids: PersonSites.nullable().optional().meta({ description: 'The sites the role applies to; null: every site; left out: as they are (an owner: every site, always)' }) })
  .meta({ id: 'ChangeRoleRequest' });

export const ConsoleSessionInfo = z
  .object({
    session_id: z.string(),
    user_agent: z.string().nullable(),
    ip: z.string().nullable(),
    created_at: Timestamp,
    last_active_at: Timestamp,
    current: z.boolean(),
  })
  .meta({ id: 'ConsoleSessionInfo' });

export const PersonPage = paginated(Person, 'PersonPage');
export const InvitationPage = paginated(Invitation, 'InvitationPage');
export const ConsoleSessionPage = paginated(ConsoleSessionInfo, 'ConsoleSessionPage');
export const ListQuery = PageQuery;
export const ListPeopleQuery = PageQuery.extend({
  role: Role.optional().meta({ description: 'Only people of this role' }),
});

export const AuditEntry = z
  .object({
    audit_id: z.string(),
    actor: z.object({ type: z.enum(['person', 'key', 'operator']), id: z.string(), label: z.string() }),
    action: z.string().meta({ description: 'The operation, as the OpenAPI document names it (`createApiKey`, `revokeApiKey`, `invitePerson`, ...)' }),
    resource_type: z.string().nullable(),
    resource_id: z.string().nullable(),
    environment: z.enum(['live', 'sandbox']).nullable(),
    ip: z.string().nullable().meta({ description: "The client's address (behind a balancer, as TRUST_PROXY allows)" }),
    created_at: Timestamp,
  })
  .meta({ id: 'AuditEntry' });
export const AuditPage = paginated(AuditEntry, 'AuditPage');
export const ListAuditQuery = PageQuery.extend(DateRangeQuery.shape).extend({
  actor_type: z.enum(['person', 'key', 'operator']).optional(),
  actor_id: z.string().max(100).optional(),
  action: z.string().max(100).optional(),
  resource_id: z.string().max(100).optional(),
});
