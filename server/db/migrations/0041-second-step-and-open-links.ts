import { sql, type Kysely } from 'kysely';

/**
 * The seams between organizations (issue #46).
 *
 * The second step is a property of a session: `second_step_at` is when this session gave a code
 * (or a recovery code, or confirmed a new authenticator), null while it never has. Each
 * organization a request works in asks for it by the person's role there, so a session that
 * signed in where the second step may be skipped cannot act as an admin of another organization
 * the person joined since. Sessions from before this migration left no record of it: they all
 * start at null, and each is asked for a code once where its role requires one (the console shows
 * the code screen). A guess would have kept exactly the sessions issue #46 is about.
 *
 * A link is checked again after every membership change of the person it is for or who made it:
 * the open ones are found by person, maker and email, which these partial indexes serve.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('console_sessions').addColumn('second_step_at', 'text').execute();
  for (const column of ['person_id', 'invited_by', 'email']) {
    await db.schema
      .createIndex(`open_invitations_by_${column}`)
      .on('invitations')
      .column(column)
      .where(sql.ref('used_at'), 'is', null)
      .where(sql.ref('revoked_at'), 'is', null)
      .execute();
  }
}
