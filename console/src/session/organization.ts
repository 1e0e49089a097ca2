import type { Schemas } from '../api.ts';

/**
 * Which of a person's organizations the console works in (a control room may serve several
 * estate companies): kept in the browser, so a reload, a new tab or the next sign-in opens the
 * one last chosen. The server is the judge of membership: a kept organization the person has
 * left answers 404, and the console falls back to the one they joined first.
 */
const KEPT = 'tsaro.console.organization';

export const keptOrganization = (): string | undefined => localStorage.getItem(KEPT) ?? undefined;
export const keepOrganization = (organizationId: string): void => localStorage.setItem(KEPT, organizationId);
export const forgetOrganization = (): void => localStorage.removeItem(KEPT);

/**
 * The organization to open instead of the one a session answered in: the kept one, once fully
 * signed in, when it is still among the person's. A sign-in names no organization (the kept one
 * may be another person's on a shared control-room screen), so it answers in the first joined.
 */
export function organizationToOpen(session: Schemas['ConsoleSession'], kept: string | undefined): string | null {
  if (session.stage !== 'active' || !kept || kept === session.organization.organization_id) return null;
  return session.organizations.some((membership) => membership.organization_id === kept) ? kept : null;
}
