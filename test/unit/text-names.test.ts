import { describe, expect, it } from 'vitest';
import { cleanName, NAME_MAX } from '../../server/messages/clean-name.ts';

/**
 * A caller's words in a text Tsaro sends (issue #46): a short name on one line, with nothing a
 * phone would offer to tap. The HTTP test (test/api/text-ceilings.test.ts) sends the
 * reproduction through Kannel; these are the disguises it does not try.
 */
describe("a caller's words in a text", () => {
  it('keeps the names people and estates really have', () => {
    for (const name of ['Chioma Eze', 'Ọlá Adébáyọ̀', 'Ɗanjuma Court', "St. Mary's Estate", 'Mr A.B. Okafor', 'Block 4, Flat 12B', '[CRITICAL] SOS Emergency', '12 Admiralty Way, Lekki', 'Plot 1234'])
      expect(cleanName(name)).toBe(name);
  });

  it('drops links however they are written: a scheme, www, a bare domain, full-width letters, an invisible space inside', () => {
    expect(cleanName('Pay at http://tsaro-pay.example/ng now')).toBe('Pay at ng now');
    expect(cleanName('Visit bit.ly/abc')).toBe('Visit abc');
    expect(cleanName('www.tsaro-help.example')).toBeUndefined();
    expect(cleanName('ｈｔｔｐｓ：／／ｅｖｉｌ．ｃｏｍ')).toBeUndefined();
    expect(cleanName('Go to ev\u200Bil.com')).toBe('Go to');
    expect(cleanName('пример.рф')).toBeUndefined();
    expect(cleanName('xn--80ak6aa92e.com')).toBeUndefined();
    expect(cleanName('mail a@b.co')).toBe('mail a');
  });

  it('drops phone numbers however they are spaced or split, and keeps a house number', () => {
    for (const phone of ['+234 809 555 0101', '0803-123-4567', '(0803) 123 4567', '０８０３１２３４５６７', '192.168.0.1']) expect(cleanName(`call ${phone}`)).toBe('call');
    expect(cleanName('call 0803x123x4567')).toBe('call x x');
    expect(cleanName('Flat 12, Block 3')).toBe('Flat 12, Block 3');
  });

  it('is one line, at most NAME_MAX characters, cut at a word', () => {
    expect(cleanName('North gate\nURGENT:\r\nverify\u2028now\tplease')).toBe('North gate URGENT verify now please');
    const long = cleanName('Oluwaseun Adebayo-Williams the third of that name in Lagos')!;
    expect(long).toBe('Oluwaseun Adebayo-Williams the third of');
    expect(long.length).toBeLessThanOrEqual(NAME_MAX);
    expect(cleanName('x'.repeat(200))).toHaveLength(NAME_MAX);
  });

  it('is nothing when nothing is left', () => {
    for (const words of [null, undefined, '', '   ', 'http://', '+2348095550101', '\u200B\u200B']) expect(cleanName(words)).toBeUndefined();
  });
});
