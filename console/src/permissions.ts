import type { Role } from '../../shared/schemas/console.ts';

/**
 * What the screens offer a role: the server's permission map decides (CONTRACT.md, "The console"),
 * this only hides what it would refuse, so a viewer never meets a button that answers 403.
 */
export const PERMISSIONS = {
  /** Create, roll and revoke keys; add, rotate, test, resend and remove webhook endpoints. */
  manageIntegrations: ['owner', 'admin', 'developer'],
  /** Read keys, endpoints, deliveries and events (the `admin` scope's reads; never a secret). */
  readIntegrations: ['owner', 'admin', 'developer', 'viewer'],
  /** Invite, change roles, remove, reissue links; read the audit log. */
  managePeople: ['owner', 'admin'],
  readAuditLog: ['owner', 'admin'],
  /** Add sites, change their call lists and gates, archive them (the server's roles on `/sites` writes). */
  manageSites: ['owner', 'admin'],
  /** Keep or revoke keys made beyond their maker's grant (`/api-keys/review`). */
  reviewKeys: ['owner'],
  /** Report, cancel, note and acknowledge incidents; access codes, roll calls and kiosks. */
  operateIncidents: ['owner', 'admin', 'operator'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export const can = (role: Role, permission: Permission): boolean => (PERMISSIONS[permission] as readonly Role[]).includes(role);

/** An admin may do everything except add, change or remove owners. */
export const rolesGrantableBy = (role: Role): Role[] =>
  role === 'owner' ? ['owner', 'admin', 'developer', 'operator', 'viewer'] : role === 'admin' ? ['admin', 'developer', 'operator', 'viewer'] : [];

export const ROLE_SENTENCES: Record<Role, string> = {
  owner: 'Everything, including people, roles, visitor policies and the audit log.',
  admin: 'Everything except adding, changing or removing owners.',
  developer: 'Keys and webhook endpoints; reads everything else.',
  operator: 'Incidents, access codes, access logs, roll calls and kiosks; reads threat data.',
  viewer: 'Reads everything, changes nothing, never sees a secret.',
};
