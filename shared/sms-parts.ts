/**
 * How many SMS parts a text takes (3GPP TS 23.038 and 23.040): what a phone bills and shows as
 * one message or several. A text wholly in the GSM 7-bit default alphabet goes as GSM-7, 160
 * septets in one part or 153 per part once split (the rest is the concatenation header); a
 * character of the alphabet's extension table (`^ { } \ [ ~ ] | €` and form feed) takes two
 * septets, an escape and itself. Any other character (Hausa's ɓ, ɗ, ƙ; Yoruba's ẹ, ọ; ₦; an emoji)
 * sends the whole text as UCS-2: 70 UTF-16 units in one part, 67 per part once split, a character
 * beyond the Basic Multilingual Plane counting two.
 */

/** GSM 03.38's default alphabet, as Unicode. */
const GSM_BASIC = new Set(
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà",
);
/** Its extension table: each costs two septets. */
const GSM_EXTENSION = new Set('^{}\\[~]|€\f');

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SmsParts {
  encoding: SmsEncoding;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2). */
  units: number;
  parts: number;
}

/** Whether every character of the text is in the GSM-7 alphabet (basic or extension). */
export function isGsm7(text: string): boolean {
  for (const char of text) if (!GSM_BASIC.has(char) && !GSM_EXTENSION.has(char)) return false;
  return true;
}

/** The text's encoding, length in that encoding and number of parts. */
export function smsParts(text: string): SmsParts {
  if (isGsm7(text)) {
    let units = 0;
    for (const char of text) units += GSM_EXTENSION.has(char) ? 2 : 1;
    return { encoding: 'GSM-7', units, parts: units <= 160 ? 1 : Math.ceil(units / 153) };
  }
  const units = text.length;
  return { encoding: 'UCS-2', units, parts: units <= 70 ? 1 : Math.ceil(units / 67) };
}
