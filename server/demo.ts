import type { Clock } from './clock.ts';
import type { Db } from './db/schema.ts';
import { countOrganizations, createOrganization, type CreatedOrganization } from './organizations/service.ts';
import { invitePerson } from './people/service.ts';

/** The demo organization's owner, who joins the console by the link printed at first start. */
export const DEMO_OWNER_EMAIL = 'owner@demo-estate.example';

export interface DemoOrganization extends CreatedOrganization {
  ownerInviteUrl: string;
}

/** On an empty database, a demo organization to try the API and the console with; its keys and link are shown once. */
export async function ensureDemoOrganization(db: Db, clock: Clock, publicUrl: string): Promise<DemoOrganization | undefined> {
  if ((await countOrganizations(db)) > 0) return undefined;
  const created = await createOrganization(db, clock, { name: 'Demo Estate', plan: 'growth', codePrefix: 'DEMO' });
  const invited = await invitePerson(
    { db, clock, publicUrl },
    { organizationId: created.organization.organization_id, email: DEMO_OWNER_EMAIL, role: 'owner', name: 'Demo owner', inviter: { type: 'operator' } },
  );
  return { ...created, ownerInviteUrl: invited.invite_url };
}

export function demoBanner(created: DemoOrganization, baseUrl: string): string {
  const sandbox = created.keys.sandbox.secret;
  return [
    '',
    '  Demo organization created: ' + `${created.organization.name} (${created.organization.organization_id})`,
    '  These keys are shown once. Only their hashes are stored.',
    '',
    `    sandbox owner key: ${sandbox}`,
    `    live owner key:    ${created.keys.live.secret}`,
    '',
    `  Console: open this link once to set the demo owner's password (${DEMO_OWNER_EMAIL}), valid 7 days:`,
    `    ${created.ownerInviteUrl}`,
    '',
    '  Try it:',
    `    curl -s -X POST ${baseUrl}/incidents \\`,
    `      -H "Authorization: Bearer ${sandbox}" -H "Content-Type: application/json" \\`,
    `      -d '{"category":"sos","severity":"critical","subject":{"name":"Ada Obi"},"location":{"coordinates":[3.3792,6.5244]}}'`,
    '',
  ].join('\n');
}

/** Printed at every start: where the console and the reference are, in one plain paragraph. */
export function addressesParagraph(baseUrl: string, publicUrl: string, database: string): string {
  return [
    '',
    `  Tsaro is running on ${database}.`,
    `    Console:   ${publicUrl.replace(/\/$/, '')}/console/`,
    `    Reference: ${baseUrl}/docs`,
    `    API:       ${baseUrl}`,
    '',
  ].join('\n') + '\n';
}
