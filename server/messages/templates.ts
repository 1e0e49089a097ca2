import type { IncidentCategory } from '../../shared/schemas/incidents.ts';
import { EMERGENCY_NUMBERS, type TEXT_LANGUAGES } from '../../shared/schemas/sites.ts';
import { cleanName, type CleanName } from './clean-name.ts';

/**
 * Every word Tsaro texts, in one place (issues #46 and #48). A text is a template: its own words,
 * in the recipient's language throughout (titles included), a count or a time Tsaro computed, a
 * call-back number Tsaro checked, and a caller's words only as a `CleanName` (clean-name.ts: short,
 * one line, no link, no number).
 *
 * Each fits one SMS part where its alphabet allows: GSM-7, 160 characters, in English and Pidgin
 * with names of GSM letters; Hausa's ɓ, ɗ and ƙ need UCS-2, so a Hausa text takes at most two parts
 * (134 characters). The names are cut to TEXT_NAME_LIMITS so that the longest still fit, and no text
 * carries a console link: the call list acts on the phone, not in the console
 * (test/unit/text-templates.test.ts measures every template with the longest names).
 */

export type TextLanguage = (typeof TEXT_LANGUAGES)[number];

/** What raised an alarm text: the incident escalated or turned unresponsive, or the guard called for help. */
export type AlarmReason = 'escalated' | 'unresponsive' | 'called_for_help';
/** What ended the alarm: the guard's false alarm, a cancellation or a resolution. */
export type AllClearCause = 'false_alarm' | 'cancelled' | 'resolved';

/** The longest each name runs in a text, cut at a word's end where there is one. */
export const TEXT_NAME_LIMITS = { site: 18, gate: 14, guard: 14 } as const;

/** A number a text offers to call back, as dialled from a Nigerian phone; made only by `callBackNumber`. */
export type CallBack = string & { readonly __callBack: unique symbol };

/**
 * The number as a text carries it: a Nigerian number as dialled at home without spaces
 * (`08031112222`, three characters shorter than E.164 and what a phone there dials as written),
 * another country's in E.164, an emergency short code as it is; undefined for anything else.
 */
export function callBackNumber(phone: string | null | undefined): CallBack | undefined {
  if (!phone) return undefined;
  if (EMERGENCY_NUMBERS.includes(phone)) return phone as CallBack;
  if (!/^\+[1-9]\d{6,14}$/.test(phone)) return undefined;
  return (phone.startsWith('+234') ? `0${phone.slice(4)}` : phone) as CallBack;
}

/** Where an alarm is and who stands there, as the texts name them. */
export interface AlarmWords {
  category: IncidentCategory;
  site: CleanName | undefined;
  /** The gate, or for an incident away from a gate its landmark or address. */
  gate: CleanName | undefined;
  /** The guard on duty at the gate, when the SOS or the report named one. */
  guard: CleanName | undefined;
  callBack: CallBack | undefined;
}

/** The names of an alarm text, each cut to its limit. */
export function alarmNames(names: { site?: string | null; gate?: string | null; guard?: string | null }) {
  return {
    site: cleanName(names.site, TEXT_NAME_LIMITS.site),
    gate: cleanName(names.gate, TEXT_NAME_LIMITS.gate),
    guard: cleanName(names.guard, TEXT_NAME_LIMITS.guard),
  };
}

interface Language {
  /** The alarm's title, by the incident's category. */
  title: Record<IncidentCategory, string>;
  allClear: string;
  /** "at" between the title and the place. */
  at: string;
  somewhere: string;
  alarm: Record<AlarmReason, (guard: string | undefined) => string>;
  cleared: Record<AllClearCause, (guard: string | undefined) => string>;
  noMore: string;
  guard: (name: string) => string;
  callBack: (phone: string) => string;
  merged: (count: number, site: string, since: string) => string;
}

/**
 * The words of each language. Hausa and Pidgin as a Kano and a Lagos control room would write
 * them; the reasons that name the guard in their sentence (called for help, false alarm) do not
 * name them again after it.
 */
const LANGUAGES: Record<TextLanguage, Language> = {
  en: {
    title: { sos: 'SOS', medical: 'MEDICAL SOS', vehicle: 'CAR ALARM', location_threat: 'THREAT' },
    allClear: 'ALL CLEAR',
    at: 'at',
    somewhere: 'the site',
    alarm: {
      escalated: () => 'No responder yet. Call for help now.',
      unresponsive: () => 'STILL no responder. Get help now.',
      called_for_help: (guard) => `${guard ?? 'The guard'} has called for help.`,
    },
    cleared: {
      false_alarm: (guard) => `${guard ?? 'The guard'} reports a false alarm.`,
      cancelled: () => 'Alarm cancelled.',
      resolved: () => 'Alarm resolved.',
    },
    noMore: 'No more alarm texts.',
    guard: (name) => `Guard: ${name}.`,
    callBack: (phone) => `Call back: ${phone}`,
    merged: (count, site, since) => `TSARO: ${count} alarms at ${site} since ${since}. See them on the Tsaro board.`,
  },
  ha: {
    title: { sos: 'GAGGAWA', medical: 'LAFIYA', vehicle: 'MOTA', location_threat: 'BARAZANA' },
    allClear: 'KOMAI LAFIYA',
    at: 'a',
    somewhere: 'wurin',
    alarm: {
      escalated: () => 'Babu mai agaji. A kira taimako yanzu.',
      unresponsive: () => 'Har yanzu babu agaji. A kira taimako.',
      called_for_help: (guard) => `${guard ?? 'Mai gadi'} ya kira taimako.`,
    },
    cleared: {
      false_alarm: (guard) => `${guard ?? 'Mai gadi'} ya ce ƙararrawar ƙarya ce.`,
      cancelled: () => 'An soke ƙararrawar.',
      resolved: () => 'An kammala lamarin.',
    },
    noMore: 'Ba sauran saƙo.',
    guard: (name) => `Mai gadi: ${name}.`,
    callBack: (phone) => `A kira: ${phone}`,
    merged: (count, site, since) => `TSARO: ƙararrawa ${count} a ${site} tun ${since}. Duba su a allon Tsaro.`,
  },
  pcm: {
    title: { sos: 'SOS', medical: 'SICK PERSON', vehicle: 'MOTOR', location_threat: 'DANGER' },
    allClear: 'E DON CLEAR',
    at: 'for',
    somewhere: 'the estate',
    alarm: {
      escalated: () => 'Nobody don come. Call for help now.',
      unresponsive: () => 'Still nobody. Call for help now.',
      called_for_help: (guard) => `${guard ?? 'Security'} don call for help.`,
    },
    cleared: {
      false_alarm: (guard) => `${guard ?? 'Security'} talk say na false alarm.`,
      cancelled: () => 'Alarm don cancel.',
      resolved: () => 'E don settle.',
    },
    noMore: 'No more alarm text.',
    guard: (name) => `Security: ${name}.`,
    callBack: (phone) => `Call: ${phone}`,
    merged: (count, site, since) => `TSARO: ${count} alarm for ${site} since ${since}. Check dem for Tsaro board.`,
  },
};

/** The reasons whose sentence already names the guard. */
const NAMES_THE_GUARD = new Set<AlarmReason | AllClearCause>(['called_for_help', 'false_alarm']);

function compose(words: Language, title: string, alarm: AlarmWords, sentence: string, namesGuard: boolean): string {
  const where = [alarm.gate, alarm.site].filter(Boolean).join(', ') || words.somewhere;
  const guard = alarm.guard && !namesGuard ? ` ${words.guard(alarm.guard)}` : '';
  const callBack = alarm.callBack ? ` ${words.callBack(alarm.callBack)}` : '';
  return `TSARO ${title} ${words.at} ${where}: ${sentence}${guard}${callBack}`;
}

/** The text a call list receives about an alarm, in the entry's language. */
export function alarmText(reason: AlarmReason, alarm: AlarmWords, language: TextLanguage = 'en'): string {
  const words = LANGUAGES[language];
  return compose(words, words.title[alarm.category], alarm, words.alarm[reason](alarm.guard), NAMES_THE_GUARD.has(reason));
}

/** The all-clear: the alarm is over (a false alarm, cancelled or resolved) and no more alarm texts follow. */
export function allClearText(cause: AllClearCause, alarm: AlarmWords, language: TextLanguage = 'en'): string {
  const words = LANGUAGES[language];
  return compose(words, words.allClear, alarm, `${words.cleared[cause](alarm.guard)} ${words.noMore}`, NAMES_THE_GUARD.has(cause));
}

/** One text for `count` alarms to a number of the site's call list (over a ceiling). */
export function mergedAlarmsText(count: number, site: CleanName | undefined, since: string, language: TextLanguage = 'en'): string {
  const words = LANGUAGES[language];
  return words.merged(count, site ?? words.somewhere, since);
}

/** The text telling a host their visitor arrived: the visitor's name as the code has it, the site and gate, the time. */
export function visitorArrivedText(visitor: CleanName | undefined, where: CleanName[], time: string): string {
  return `TSARO: ${visitor ? `Your visitor ${visitor}` : 'Your visitor'} has arrived${where.length ? ` at ${where.join(', ')}` : ''} (${time}).`;
}

/**
 * The visitor's pass as a text: where, from when, the link to the pass's image and the code to
 * type. `link` is Tsaro's own (PUBLIC_URL and a token it made); `code` a code it issued.
 */
export function visitorPassText(pass: { site: CleanName | undefined; gate: CleanName | undefined; from: string; link: string; code: string }): string {
  const where = [pass.gate, pass.site].filter(Boolean).join(', ');
  return `TSARO pass${where ? ` for ${where}` : ''} from ${pass.from}: ${pass.link} Code ${pass.code}`;
}

/** A time of day as a text says it, in the site's time zone (Lagos when it has none). */
export function clockTime(iso: string, timeZone: string | undefined): string {
  return new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: timeZone ?? 'Africa/Lagos' }).format(new Date(iso));
}

/** A day and time as a text says it ("29 Nov 14:05"), in the site's time zone. */
export function dayAndTime(iso: string, timeZone: string | undefined): string {
  const parts = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: timeZone ?? 'Africa/Lagos' }).formatToParts(new Date(iso));
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('day')} ${part('month')} ${part('hour')}:${part('minute')}`;
}
