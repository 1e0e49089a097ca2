import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assemblePass, base32Decode, base32Encode, parsePass, passSigningText } from '../../shared/pass.ts';
import { checkProperty } from '../support/property.ts';

const claims = {
  code: 'DEMO-7K2P',
  codeId: 'code_01M81B5H800TD81M0V5BVVM4GP',
  validFrom: 1_763_805_600_000,
  validUntil: 1_763_892_000_000,
  maxUses: 3,
};
const signature = Uint8Array.from({ length: 64 }, (_, i) => (i * 37 + 11) % 256);

describe('signed pass format', () => {
  it('base32 round-trips any bytes', () => {
    checkProperty(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        expect(base32Decode(base32Encode(bytes))).toEqual(bytes);
      }),
    );
  });

  it('reads back what it writes, in any case', () => {
    const pass = assemblePass(passSigningText('K7P2QX9M', claims), signature);
    expect(pass).toMatch(/^[0-9A-Z.-]+$/);
    const parsed = parsePass(pass)!;
    expect(parsed).toMatchObject({ kid: 'K7P2QX9M', claims, signedText: passSigningText('K7P2QX9M', claims) });
    expect(parsed.signature).toEqual(signature);
    expect(parsePass(pass.toLowerCase())?.claims).toEqual(claims);
  });

  it('refuses a signature whose spare bits differ: one pass, one spelling', () => {
    const pass = assemblePass(passSigningText('K7P2QX9M', claims), signature);
    const last = pass.at(-1)!;
    const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    const sameBytes = [...alphabet].filter((char) => char !== last && (alphabet.indexOf(char) >> 3) === (alphabet.indexOf(last) >> 3));
    expect(sameBytes.length).toBeGreaterThan(0);
    for (const char of sameBytes) expect(parsePass(pass.slice(0, -1) + char)).toBeUndefined();
  });

  it.each([
    ['', 'empty'],
    ['TS2.K7P2QX9M.DEMO-7K2P.01M81B5H800TD81M0V5BVVM4GP.1.2.1.' + 'A'.repeat(103), 'another version'],
    ['TS1.K7P2QX9M.DEMO-7K2P.01M81B5H800TD81M0V5BVVM4GP.1.2.1', 'no signature'],
    ['TS1.K7P2QX9M.DEMO7K2P.01M81B5H800TD81M0V5BVVM4GP.1.2.1.' + 'A'.repeat(103), 'a malformed code'],
    ['TS1.K7P2QX9M.DEMO-7K2P.01M81B5H800TD81M0V5BVVM4GU.1.2.1.' + 'A'.repeat(103), 'a ULID with U'],
    ['TS1.K7P2QX9M.DEMO-7K2P.01M81B5H800TD81M0V5BVVM4GP.x.2.1.' + 'A'.repeat(103), 'a time that is not a number'],
  ])('%j (%s) is not a pass', (text) => {
    expect(parsePass(text)).toBeUndefined();
  });
});
