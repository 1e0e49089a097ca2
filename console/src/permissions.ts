import type { Role } from '../../shared/schemas/console.ts';

interface Rule {
  roles: readonly Role[];
  /** Only for a person whose role reaches every site: the server answers 403 to one limited to sites (its routes' `everySite`). */
  everySite?: true;
}

/**
 * What the screens offer a person: the server's permission map decides (CONTRACT.md, "The
 * console"), this only hides what it would refuse, so a viewer never meets a button that answers
 * 403, nor an estate manager limited to their sites the organization's people or audit log.
 */
export const PERMISSIONS = {
  /** Create, roll and revoke keys; add, rotate, test, resend and remove webhook endpoints. */
  manageIntegrations: { roles: ['owner', 'admin', 'developer'] },
  /** Read keys, endpoints, deliveries and events (the `admin` scope's reads; never a secret). */
  readIntegrations: { roles: ['owner', 'admin', 'developer', 'viewer'] },
  /** Invite, change roles, remove, reissue links, the two-step policy. */
  managePeople: { roles: ['owner', 'admin'], everySite: true },
  readAuditLog: { roles: ['owner', 'admin'], everySite: true },
  /** Change a site's call list and gates (a person limited to sites: their own sites'). */
  manageSites: { roles: ['owner', 'admin'] },
  /** Add and archive sites, and choose the default one. */
  addSites: { roles: ['owner', 'admin'], everySite: true },
  /** Rename the organization and change what new codes begin with (`PATCH /organization`). */
  renameOrganization: { roles: ['owner'], everySite: true },
  /** Keep or revoke keys made beyond their maker's grant (`/api-keys/review`). */
  reviewKeys: { roles: ['owner'], everySite: true },
  /** Report, cancel, note and acknowledge incidents; access codes, roll calls and kiosks. */
  operateIncidents: { roles: ['owner', 'admin', 'operator'] },
} as const satisfies Record<string, Rule>;

export type Permission = keyof typeof PERMISSIONS;

/** Who asks: their role, and the sites it is limited to (null: every site). */
export interface Grantee {
  role: Role;
  site_ids: readonly string[] | null;
}

export function can(person: Grantee, permission: Permission): boolean {
  const rule: Rule = PERMISSIONS[permission];
  return rule.roles.includes(person.role) && (!rule.everySite || person.site_ids === null);
}

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

/**
 * An estate manager is exactly an admin whose role is limited to their estates (issue #48): what
 * the invitation form says they can and cannot do, in the server's own rules (docs/api.md, "Keys,
 * people and endpoints limited to sites").
 */
export const ESTATE_MANAGER = {
  summary: 'An admin limited to the sites you tick: runs those estates, and sees no other.',
  can: [
    "Visitors, access codes and guest lists, access logs and roll calls at their estates",
    'Incidents at their estates: report, cancel, note, acknowledge',
    'Their estates’ call lists and kiosks, and their gates: add, rename, remove',
    'API keys and webhook endpoints for their estates only (a gate’s key, for one)',
  ],
  cannot: [
    'See or act on any other estate',
    'Invite, change or remove people, or read the audit log',
    'Add or archive sites, or choose the default site',
    'Change visitor policies or who must use two-step sign-in',
    'Rename the organization or change its code prefix',
  ],
} as const;

