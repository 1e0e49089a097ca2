import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogue as english } from '../../renderer/src/i18n/en.ts';

const DIR = join(import.meta.dirname, '../../renderer/src/i18n');
const files = readdirSync(DIR).filter((name) => name.endsWith('.ts') && name !== 'en.ts');
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

describe('the kiosk\'s language catalogues', () => {
  it('include Nigerian Pidgin and Hausa beside English', () => {
    expect(files.sort()).toEqual(expect.arrayContaining(['ha.ts', 'pcm.ts']));
  });

  for (const file of files) {
    it(`${file}: every English key, no other, none empty, the same {placeholders}, and not much longer than the English`, async () => {
      const module = (await import(join(DIR, file))) as { catalogue: Record<string, string>; language: { code: string; name: string } };
      expect(module.language.code).toBe(file.replace(/\.ts$/, ''));
      expect(Object.keys(module.catalogue).sort()).toEqual(Object.keys(english).sort());
      for (const [key, text] of Object.entries(english)) {
        const translated = module.catalogue[key]!;
        expect(translated.trim(), key).not.toBe('');
        expect(placeholders(translated), key).toEqual(placeholders(text));
        // "As short as the English": the screens are laid out for it; a little slack for short labels.
        expect(translated.length, `${key}: "${translated}"`).toBeLessThanOrEqual(Math.max(text.length * 1.6, text.length + 12));
      }
    });
  }
});
