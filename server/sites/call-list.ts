import { parsePhoneNumberFromString } from 'libphonenumber-js/mobile';
import { EMERGENCY_NUMBERS } from '../../shared/schemas/sites.ts';

/**
 * Which numbers of a call list a text can reach (issue #48): a mobile number in E.164. An
 * emergency short code (112) is called, never texted; a landline cannot take a text. The API
 * answers each entry's `texted` and, when false, why in words, so the console and the kiosk say
 * so where they show the list. libphonenumber-js's mobile metadata knows which numbers are mobile.
 */
export function whyNotTexted(phone: string): string | undefined {
  if (EMERGENCY_NUMBERS.includes(phone)) return 'An emergency short code: called, never texted';
  if (!phone.startsWith('+')) return 'Not a full number: called, never texted';
  if (!parsePhoneNumberFromString(phone)?.isValid()) return 'Not a mobile number: a text cannot reach it';
  return undefined;
}
