import type { TextMessage } from '../../shared/schemas/messages.ts';
import type { TEXT_LANGUAGES } from '../../shared/schemas/sites.ts';
import type { CleanName } from './clean-name.ts';

/**
 * Every word Tsaro texts, in one place (issue #46). A text is a template: its own words, the
 * console's links (PUBLIC_URL and an id Tsaro made), a count or a time Tsaro computed, and a
 * caller's words only as a `CleanName` (clean-name.ts: short, one line, no link, no number).
 */

export type AlarmReason = Exclude<TextMessage['reason'], 'visitor_arrived'>;
export type TextLanguage = (typeof TEXT_LANGUAGES)[number];

/** Each alarm's words in each language a call-list entry may ask for: `w` is where (site, gate), `t` the incident's title. */
const ALARM_TEXTS: Record<TextLanguage, Record<AlarmReason, (t: string, w: string) => string>> = {
  en: {
    escalated: (t, w) => `NO RESPONDER has accepted ${t} at ${w}. Call for help now.`,
    unresponsive: (t, w) => `STILL NO RESPONDER for ${t} at ${w}. Call for help now.`,
    called_for_help: (t, w) => `The guard at ${w} has called for help for ${t}.`,
    false_alarm: (t, w) => `The guard at ${w} reports ${t} is a FALSE ALARM. It stays open until an operator closes it.`,
  },
  ha: {
    escalated: (t, w) => `BABU mai agaji da ya amsa ${t} a ${w}. A kira taimako yanzu.`,
    unresponsive: (t, w) => `HAR YANZU babu mai agaji don ${t} a ${w}. A kira taimako yanzu.`,
    called_for_help: (t, w) => `Mai gadi a ${w} ya kira taimako don ${t}.`,
    false_alarm: (t, w) => `Mai gadi a ${w} ya ce ${t} ƙararrawar ƙarya ce. Za a bar shi a buɗe har ɗakin kulawa ya rufe shi.`,
  },
  pcm: {
    escalated: (t, w) => `NOBODY don accept ${t} for ${w}. Call for help now now.`,
    unresponsive: (t, w) => `STILL NOBODY for ${t} for ${w}. Call for help now now.`,
    called_for_help: (t, w) => `Security for ${w} don call for help for ${t}.`,
    false_alarm: (t, w) => `Security for ${w} talk say ${t} na FALSE ALARM. E go dey open till control room close am.`,
  },
};

/** Several alarms to one number of a site's call list, over an hourly ceiling, as one text: `n` how many, `w` the site, `s` since when. */
const MERGED_ALARMS: Record<TextLanguage, (n: number, w: string, s: string) => string> = {
  en: (n, w, s) => `${n} alarms at ${w} since ${s}. See them all:`,
  ha: (n, w, s) => `ƙararrawa ${n} a ${w} tun ${s}. Duba su duka:`,
  pcm: (n, w, s) => `${n} alarm for ${w} since ${s}. Check all of dem:`,
};

/** Where an alarm is: the site, and the incident's landmark or address when it has one. */
const place = (site: CleanName | undefined, spot: CleanName | undefined) => [site, spot].filter(Boolean).join(', ') || 'the site';

/** The text a call list receives about one alarm, in the entry's language, with the incident's console link. */
export function alarmText(
  reason: AlarmReason,
  words: { title: CleanName; site: CleanName | undefined; spot: CleanName | undefined },
  link: string,
  language: TextLanguage = 'en',
): string {
  return `TSARO: ${ALARM_TEXTS[language][reason](words.title, place(words.site, words.spot))} ${link}`;
}

/** One text for `count` alarms to a number of the site's call list (over a ceiling), with the console's board link. */
export function mergedAlarmsText(count: number, site: CleanName | undefined, since: string, link: string, language: TextLanguage = 'en'): string {
  return `TSARO: ${MERGED_ALARMS[language](count, place(site, undefined), since)} ${link}`;
}

/** The text telling a host their visitor arrived: the visitor's name as the code has it, the site and gate, the time. */
export function visitorArrivedText(visitor: CleanName | undefined, where: CleanName[], time: string): string {
  return `TSARO: ${visitor ? `Your visitor ${visitor}` : 'Your visitor'} has arrived${where.length ? ` at ${where.join(', ')}` : ''} (${time}).`;
}

/** A time of day as a text says it, in the site's time zone (Lagos when it has none). */
export function clockTime(iso: string, timeZone: string | undefined): string {
  return new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: timeZone ?? 'Africa/Lagos' }).format(new Date(iso));
}
