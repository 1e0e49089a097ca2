import type { Request } from 'express';
import { recordAudit } from '../audit/service.ts';
import type { Clock } from '../clock.ts';
import type { Executor, PersonRow } from '../db/schema.ts';
import { membershipsOf } from './store.ts';

/**
 * How the audit log (and an incident's timeline) names a person: by id, and by their name when
 * they gave one; the email only for a person who never did.
 */
export function personActor(person: Pick<PersonRow, 'person_id' | 'name' | 'email'>): { type: 'person'; id: string; label: string } {
  return { type: 'person', id: person.person_id, label: person.name ?? person.email };
}

/**
 * A person's own event in each of their organizations' audit logs (issue #34: one sign-in,
 * several organizations): sign-in, its failures, joining, a reset, the second step, signing
 * out. Changes a signed-in person makes through the console's routes are recorded by the audit
 * middleware; these happen before or outside such a session.
 */
export async function auditPersonEvent(
  deps: { db: Executor; clock: Clock },
  req: Request,
  person: Pick<PersonRow, 'person_id' | 'name' | 'email' | 'organization_id'>,
  action: string,
): Promise<void> {
  const organizations = (await membershipsOf(deps.db, person.person_id)).map((membership) => membership.organization_id);
  for (const organizationId of organizations.length ? organizations : [person.organization_id]) {
    await recordAudit(deps.db, deps.clock, {
      organizationId,
      environment: null,
      actor: personActor(person),
      action,
      resourceType: 'console',
      resourceId: person.person_id,
      ip: req.ip ?? null,
    });
  }
}
