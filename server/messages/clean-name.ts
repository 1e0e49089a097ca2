/**
 * How a caller's words may appear in a text Tsaro sends (issue #46): only as a short name. A
 * visitor's name, a gate typed at check-in, an incident's title and address, a site's name: each
 * was written by someone with a key, and a phone shows a link or a number in a text from TSARO as
 * something to tap. So a name keeps letters, digits and a little punctuation, on one line, with
 * no link and no phone number, and at most NAME_MAX characters.
 *
 * A template (templates.ts) takes a caller's words only as a `CleanName`, which only this file
 * makes: the type checker keeps raw text out of every text.
 */
export type CleanName = string & { readonly __cleanName: unique symbol };

/** The longest a caller's words run in a text: a name, never a message. */
export const NAME_MAX = 40;

/** Invisible characters (zero-width spaces and joiners, direction overrides, soft hyphens): dropped, so they cannot split a link from view. */
const FORMAT = /\p{Cf}/gu;
/** Everything a name does not need (`:` `/` `@` `+` `#` `?` `=` `%` `_`, line breaks, emoji...) becomes a space. */
const NOT_IN_A_NAME = /[^\p{L}\p{M}0-9 '’.,&()[\]-]/gu;
/** A domain (`evil.example`, `bit.ly`, `tsaro-pay.ng`): labels joined by dots, the last of two letters or more. */
const DOMAIN = /[\p{L}\p{M}0-9-]+(?:\.[\p{L}\p{M}0-9-]+)*\.\p{L}{2,}(?![\p{L}\p{M}0-9])/gu;
/** What is left of a link once its `://` is gone. */
const LINK_WORD = /(?<![\p{L}\p{M}0-9])(?:https?|www|ftp)(?![\p{L}\p{M}0-9])/giu;
/** Digits in a run, with the separators a phone number is written with. */
const DIGIT_RUN = /\d(?:[\s.()-]*\d)*/g;
/** A run of this many digits or more is a phone number (or could be read as one), never a house number. */
const PHONE_DIGITS = 5;
/** More digits than this in all, however they are split, and the name keeps none. */
const MOST_DIGITS = 6;

const digitsIn = (text: string) => text.replace(/\D/g, '').length;

/**
 * The caller's words as a text may show them, or undefined when nothing is left. NFKC first, so
 * full-width letters and digits (`ｈｔｔｐ`, `０８０３`) are read as the ones they look like.
 */
export function cleanName(words: string | null | undefined, max = NAME_MAX): CleanName | undefined {
  if (!words) return undefined;
  let text = words.normalize('NFKC').replace(FORMAT, '').replace(NOT_IN_A_NAME, ' ');
  text = text.replace(DOMAIN, ' ').replace(LINK_WORD, ' ');
  text = text.replace(DIGIT_RUN, (run) => (digitsIn(run) >= PHONE_DIGITS ? ' ' : run));
  if (digitsIn(text) > MOST_DIGITS) text = text.replace(/\d/g, ' ');
  text = tidy(text);
  if (text.length > max) {
    const cut = text.slice(0, max + 1);
    const lastSpace = cut.lastIndexOf(' ');
    // At a word's end where there is one, so no word arrives cut in half.
    text = tidy(lastSpace > max / 2 ? cut.slice(0, lastSpace) : text.slice(0, max));
  }
  return text ? (text as CleanName) : undefined;
}

/** One space between words, and no punctuation left hanging at either end. */
function tidy(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/\s+([.,)\]])/g, '$1')
    .replace(/^[\s.,&'’)\]-]+|[\s,&'’([-]+$/gu, '')
    .trim();
}
