import type { TextMessageRow } from '../db/schema.ts';
import type { SecretBox } from '../secrets/secret-box.ts';

/**
 * A text carrying a secret link (a visitor's pass, issue #48): the stored `body` shows the link
 * cut short, so the list of texts (`GET /messages`) and a copy of the database never hold it; the
 * link itself is sealed with the server's key (`link_sealed`) until the gateway takes the text,
 * then forgotten (worker.ts).
 */

/** The link as the stored body shows it: its address up to the token, then an ellipsis. */
export function hiddenLink(link: string): string {
  return `${link.slice(0, link.lastIndexOf('/') + 1)}…`;
}

/** The words and sealed link to store for a text carrying `link`, written with `words(link)`. */
export function withSecretLink(secretBox: SecretBox, link: string, words: (link: string) => string): Pick<TextMessageRow, 'body'> & { link_sealed: string } {
  return { body: words(hiddenLink(link)), link_sealed: secretBox.seal(link) };
}

/** The text as the phone receives it: the stored body, its hidden link opened again. */
export function bodyToSend(secretBox: SecretBox, row: Pick<TextMessageRow, 'body' | 'link_sealed'>): string {
  if (!row.link_sealed) return row.body;
  const link = secretBox.open(row.link_sealed);
  return row.body.replace(hiddenLink(link), link);
}
