/**
 * The dispatch writes' signal to this process's offer bells (server/responders/offer-bell.ts):
 * offers were made pending for these responders. SQLite's bells listen (one host); PostgreSQL's
 * hear it by NOTIFY from any host instead (migration 0051). No imports: the store rings it.
 */
export interface OfferListener {
  ring(responderIds: readonly string[]): void;
}

const listeners = new Set<OfferListener>();

export function ringOfferBells(responderIds: readonly string[]): void {
  if (!responderIds.length) return;
  for (const listener of listeners) listener.ring(responderIds);
}

/** Adds a bell; the answer removes it. */
export function listenForOffers(listener: OfferListener): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}
