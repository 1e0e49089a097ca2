import type { Executor } from '../db/schema.ts';
import { findStaffByEmail } from './store.ts';

/**
 * Whether an email is one of the service's staff: a partner's invitation to it is refused (an
 * email is a partner's member or staff, never both). Apart from service.ts so the people
 * feature can ask without importing the staff realm's sessions.
 */
export async function isStaffEmail(db: Executor, email: string): Promise<boolean> {
  return (await findStaffByEmail(db, email.toLowerCase())) !== undefined;
}

export const STAFF_EMAIL_REFUSED = (email: string) =>
  `${email} is a member of Tsaro's own staff: staff accounts are separate from partners' people, so it cannot also join an organization`;
