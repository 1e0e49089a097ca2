import { describe, expect, it } from 'vitest';
import { phoneForDialling, phoneForReading, telHref } from '../../shared/phone.ts';

describe('phone numbers as people read them and as phones dial them (issue #48)', () => {
  it('shows a Nigerian number in the national format, however it was stored or typed', () => {
    expect(phoneForReading('+2348031112222')).toBe('0803 111 2222');
    expect(phoneForReading('08031112222')).toBe('0803 111 2222');
    expect(phoneForReading('234 803 111 2222')).toBe('0803 111 2222');
  });

  it('shows a foreign number with its country code', () => {
    expect(phoneForReading('+442079460000')).toBe('+44 20 7946 0000');
    expect(phoneForReading('+233244123456')).toBe('+233 24 412 3456');
  });

  it('dials in E.164, so a tap calls from any phone', () => {
    expect(phoneForDialling('0803 111 2222')).toBe('+2348031112222');
    expect(phoneForDialling('+2348031112222')).toBe('+2348031112222');
    expect(telHref('0803 111 2222')).toBe('tel:+2348031112222');
    expect(telHref('+44 20 7946 0000')).toBe('tel:+442079460000');
  });

  it('leaves short codes and text that is not a number as written', () => {
    expect(phoneForReading('112')).toBe('112');
    expect(telHref('112')).toBe('tel:112');
    expect(phoneForReading('  ask the guard ')).toBe('ask the guard');
    expect(phoneForDialling('ask the guard')).toBe('');
  });
});
