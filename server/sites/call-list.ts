import { parsePhoneNumberFromString } from 'libphonenumber-js/mobile';
import { EMERGENCY_NUMBERS, type CallListView } from '../../shared/schemas/sites.ts';
import type { z } from 'zod';

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

type Entry = { name: string; phone: string; language?: z.infer<typeof CallListView>['language'] };

/** A stored call list as the API answers it: each entry with whether texts reach it and why not. */
export function callListView(stored: string): Array<z.infer<typeof CallListView>> {
  return (JSON.parse(stored) as Entry[]).map((entry) => {
    const why = whyNotTexted(entry.phone);
    return { ...entry, texted: why === undefined, not_texted_reason: why ?? null };
  });
}
