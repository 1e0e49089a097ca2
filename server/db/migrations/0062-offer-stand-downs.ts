import type { Kysely } from 'kysely';

/**
 * The phone's words when stood down (issue #47): on an offer's row, who at Tsaro stood the
 * responder down ("Tsaro control (Kemi)"), why and when, whether the offer was open (withdrawn)
 * or accepted (the incident taken back). The app asks what became of its offer
 * (`GET /v1/responder/offers/{offerId}`) and says so, instead of the offer silently vanishing.
 * Offers from before: none stood down (null), as far as anyone can now tell.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ['stood_down_by', 'stood_down_reason', 'stood_down_at'] as const) {
    await db.schema.alterTable('dispatch_offers').addColumn(column, 'text').execute();
  }
}
