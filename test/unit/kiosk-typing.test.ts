import { describe, expect, it } from 'vitest';
import { addCharacter, type WalkInField } from '../../renderer/src/kiosk/format.ts';

/** What the on-screen keyboard (capital keys only) puts in each walk-in field. */
const typed = (keys: string, field: WalkInField) => [...keys].reduce((text, key) => addCharacter(text, key, field), '');

describe('typing a walk-in on the screen keyboard', () => {
  it('names get a capital at each word, also after a hyphen or apostrophe', () => {
    expect(typed('NGOZI ADEBAYO-WILLIAMS', 'visitorName')).toBe('Ngozi Adebayo-Williams');
    expect(typed("O'BRIEN", 'visitorName')).toBe("O'Brien");
  });
  it('a house keeps the letter after its number: "12B", not "12b"', () => {
    expect(typed('HOUSE 12B', 'hostUserId')).toBe('House 12B');
    expect(typed('FLAT 7, BLOCK C', 'hostUserId')).toBe('Flat 7, Block C');
  });
  it('notes are a sentence, not Title Case', () => {
    expect(typed('CAME WITH A DRIVER. WAITING OUTSIDE', 'notes')).toBe('Came with a driver. Waiting outside');
  });
  it('a phone takes digits, + and spaces only', () => {
    expect(typed('+234 803A', 'visitorPhone')).toBe('+234 803');
  });
});
