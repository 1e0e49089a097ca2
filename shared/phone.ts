import { parsePhoneNumberFromString } from 'libphonenumber-js/min';

/**
 * A phone number as people read it and as a phone dials it (issue #48): stored in E.164
 * (+2348031112222), shown as a Nigerian writes it (0803 111 2222), a foreign one with its
 * country code (+44 20 7946 0000), and dialled in E.164 so a tap calls from any phone, in or out
 * of Nigeria. A number without a country code is read as Nigerian, as the API reads it
 * (shared/schemas/sites.ts). Short codes (112) and text that is not a number stay as written.
 */

const HOME = 'NG';

function parse(phone: string) {
  const parsed = parsePhoneNumberFromString(phone.trim(), HOME);
  return parsed && parsed.isPossible() ? parsed : null;
}

/** As a person reads it: 0803 111 2222 for a Nigerian number, +44 20 7946 0000 for another. */
export function phoneForReading(phone: string): string {
  const parsed = parse(phone);
  if (!parsed) return phone.trim();
  return parsed.country === HOME || parsed.countryCallingCode === '234' ? parsed.formatNational() : parsed.formatInternational();
}

/** As a phone dials it: E.164 (+2348031112222); a short code or other text, its digits. */
export function phoneForDialling(phone: string): string {
  return parse(phone)?.number ?? phone.replace(/[^+0-9]/g, '');
}

/** The `tel:` link that calls the number (RFC 3966: the global number, E.164). */
export function telHref(phone: string): string {
  return `tel:${phoneForDialling(phone)}`;
}
