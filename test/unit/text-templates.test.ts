import { describe, expect, it } from 'vitest';
import { INCIDENT_CATEGORIES } from '../../shared/schemas/incidents.ts';
import { TEXT_LANGUAGES } from '../../shared/schemas/sites.ts';
import { smsParts } from '../../shared/sms-parts.ts';
import { cleanName } from '../../server/messages/clean-name.ts';
import {
  alarmNames,
  alarmText,
  allClearText,
  callBackNumber,
  mergedAlarmsText,
  visitorArrivedText,
  visitorPassText,
  type AlarmReason,
  type AllClearCause,
  type TextLanguage,
} from '../../server/messages/templates.ts';

/**
 * Each text fits its part budget with the longest names people really give (issue #48): one
 * GSM-7 part (160) in English and Pidgin, at most two UCS-2 parts (134) in Hausa, whose ɓ, ɗ and ƙ
 * the GSM alphabet lacks. Names are given longer than any limit, so every template is measured
 * with each name cut at its longest.
 */
const LONG = {
  site: 'Admiralty Garden Estate Phase Two Extension',
  gate: 'North Pedestrian Gate by the Lekki Expressway',
  guard: 'Abdulrahman Oluwaseun Mohammed-Bello',
};
/** The same with letters beyond the GSM alphabet: in any language the text goes as UCS-2. */
const HAUSA_NAMES = { site: 'Ɗanjuma Ƙofar Gabas Estate Phase Two', gate: 'Ƙofar Arewa ta Babban Hanya', guard: 'Ɓello Ɗanladi Abdulƙadir' };
const PHONE = callBackNumber('+2348031112222');

const REASONS: AlarmReason[] = ['escalated', 'unresponsive', 'called_for_help'];
const CAUSES: AllClearCause[] = ['false_alarm', 'cancelled', 'resolved'];

function everyAlarmText(language: TextLanguage, names: typeof LONG): string[] {
  const texts: string[] = [];
  for (const category of INCIDENT_CATEGORIES) {
    for (const guard of [names.guard, undefined]) {
      const words = { category, ...alarmNames({ ...names, guard }), callBack: PHONE };
      for (const reason of REASONS) texts.push(alarmText(reason, words, language));
      for (const cause of CAUSES) texts.push(allClearText(cause, words, language));
    }
  }
  texts.push(mergedAlarmsText(999, alarmNames(names).site, '23:59', language));
  return texts;
}

describe('every text fits its part budget', () => {
  it('English and Pidgin: one GSM-7 part with the longest names', () => {
    for (const language of ['en', 'pcm'] as const) {
      for (const text of everyAlarmText(language, LONG)) {
        expect(smsParts(text), text).toMatchObject({ encoding: 'GSM-7', parts: 1 });
      }
    }
  });

  it('Hausa, and any language with names beyond the GSM alphabet: at most two UCS-2 parts (134 characters)', () => {
    for (const language of TEXT_LANGUAGES) {
      for (const text of everyAlarmText(language, HAUSA_NAMES)) {
        expect(smsParts(text).parts, `${text} (${text.length})`).toBeLessThanOrEqual(2);
        expect(text.length, text).toBeLessThanOrEqual(134);
      }
    }
    for (const text of everyAlarmText('ha', LONG)) expect(smsParts(text).parts, text).toBeLessThanOrEqual(2);
  });

  it('a host\'s text and a visitor\'s pass: one GSM-7 part, the pass with a long public address', () => {
    const where = [cleanName(LONG.site)!, cleanName(LONG.gate)!];
    expect(smsParts(visitorArrivedText(cleanName(LONG.guard), where, '23:59'))).toMatchObject({ encoding: 'GSM-7', parts: 1 });
    const names = alarmNames(LONG);
    const pass = visitorPassText({ site: names.site, gate: names.gate, from: '29 Nov 23:59', link: `https://tsaro.shieldsecurity.com.ng/p/${'A'.repeat(22)}`, code: 'SHIELDSEC-ABCD' });
    expect(smsParts(pass), pass).toMatchObject({ encoding: 'GSM-7', parts: 1 });
  });
});

describe('each text is wholly in its language and names the gate, the guard and a number to call back', () => {
  const words = { category: 'sos' as const, ...alarmNames({ site: 'Admiralty Estate', gate: 'North gate', guard: 'Musa Bello' }), callBack: PHONE };

  it('no English title in the Hausa or Pidgin texts', () => {
    for (const language of ['ha', 'pcm'] as const) {
      for (const text of [...REASONS.map((reason) => alarmText(reason, words, language)), ...CAUSES.map((cause) => allClearText(cause, words, language))]) {
        expect(text).not.toMatch(/CRITICAL|Emergency|ALL CLEAR|Guard|responder/);
      }
    }
    expect(alarmText('escalated', words, 'ha')).toBe('TSARO GAGGAWA a North gate, Admiralty Estate: Babu mai agaji. A kira taimako yanzu. Mai gadi: Musa Bello. A kira: 08031112222');
  });

  it('names the gate, the site, the guard once and the call-back number', () => {
    expect(alarmText('escalated', words)).toBe('TSARO SOS at North gate, Admiralty Estate: No responder yet. Call for help now. Guard: Musa Bello. Call back: 08031112222');
    expect(allClearText('false_alarm', words)).toBe('TSARO ALL CLEAR at North gate, Admiralty Estate: Musa Bello reports a false alarm. No more alarm texts. Call back: 08031112222');
    expect(allClearText('cancelled', { ...words, guard: undefined, callBack: callBackNumber('112') })).toBe(
      'TSARO ALL CLEAR at North gate, Admiralty Estate: Alarm cancelled. No more alarm texts. Call back: 112',
    );
  });

  it('a call-back number is a full number (Nigerian ones as dialled at home) or an emergency short code, nothing else', () => {
    expect(callBackNumber('+2348031112222')).toBe('08031112222');
    expect(callBackNumber('+447700900123')).toBe('+447700900123');
    expect(callBackNumber('112')).toBe('112');
    for (const bad of ['0803 111 2222', 'call me', '12345', '', null]) expect(callBackNumber(bad)).toBeUndefined();
  });
});

describe('SMS parts', () => {
  it('counts the GSM-7 extension table as two septets, and anything else as UCS-2', () => {
    expect(smsParts('a'.repeat(160))).toEqual({ encoding: 'GSM-7', units: 160, parts: 1 });
    expect(smsParts('a'.repeat(161))).toEqual({ encoding: 'GSM-7', units: 161, parts: 2 });
    expect(smsParts(`${'a'.repeat(159)}€`)).toEqual({ encoding: 'GSM-7', units: 161, parts: 2 });
    expect(smsParts('a'.repeat(306))).toEqual({ encoding: 'GSM-7', units: 306, parts: 2 });
    expect(smsParts('ƙ'.repeat(70))).toEqual({ encoding: 'UCS-2', units: 70, parts: 1 });
    expect(smsParts('ƙ'.repeat(71))).toEqual({ encoding: 'UCS-2', units: 71, parts: 2 });
    expect(smsParts('ƙ'.repeat(134)).parts).toBe(2);
    expect(smsParts('ƙ'.repeat(135)).parts).toBe(3);
    expect(smsParts('₦500').encoding).toBe('UCS-2');
  });
});
