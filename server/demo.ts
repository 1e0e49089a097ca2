import type { Clock } from './clock.ts';
import type { Db } from './db/schema.ts';
import { countOrganizations, createOrganization, type CreatedOrganization } from './organizations/service.ts';

/** On an empty database, a demo organization to try the API with; its keys are shown once. */
export async function ensureDemoOrganization(db: Db, clock: Clock): Promise<CreatedOrganization | undefined> {
  if ((await countOrganizations(db)) > 0) return undefined;
  return createOrganization(db, clock, { name: 'Demo Estate', plan: 'growth', codePrefix: 'DEMO' });
}

export function demoBanner(created: CreatedOrganization, baseUrl: string): string {
  const sandbox = created.keys.sandbox.secret;
  return [
    '',
    '  Demo organization created: ' + `${created.organization.name} (${created.organization.organization_id})`,
    '  These keys are shown once. Only their hashes are stored.',
    '',
    `    sandbox admin key: ${sandbox}`,
    `    live admin key:    ${created.keys.live.secret}`,
    '',
    '  Try it:',
    `    curl -s -X POST ${baseUrl}/incidents \\`,
    `      -H "Authorization: Bearer ${sandbox}" -H "Content-Type: application/json" \\`,
    `      -d '{"category":"sos","severity":"critical","subject":{"name":"Ada Obi"},"location":{"coordinates":[3.3792,6.5244]}}'`,
    '',
    `  Reference: ${baseUrl}/docs`,
    '',
  ].join('\n');
}
