import { describe, expect, it } from 'vitest';
import { detailsOf, eventText, whereOf } from '../../console/src/live/incident-words.ts';

const incident = (metadata: Record<string, string>, location: { address?: string; landmark?: string } = {}) => ({
  title: '[CRITICAL] SOS Emergency',
  subject: { name: 'Sani Abubakar', metadata },
  location: { type: 'Point', coordinates: [3.42, 6.43], address: location.address ?? null, landmark: location.landmark ?? null },
});

describe('an incident in words, not field names (issue #48)', () => {
  it('is titled by where: the gate and the estate, else the address or landmark, the title only when nothing says where', () => {
    expect(whereOf(incident({ entry_point: 'Main gate' }) as any, 'Admiralty Estate')).toBe('Main gate, Admiralty Estate');
    expect(whereOf(incident({}) as any, 'Admiralty Estate')).toBe('Admiralty Estate');
    expect(whereOf(incident({}, { address: '12 Admiralty Way' }) as any, undefined)).toBe('12 Admiralty Way');
    expect(whereOf(incident({}, { landmark: 'Opposite the mosque' }) as any, undefined)).toBe('Opposite the mosque');
    expect(whereOf(incident({}) as any, undefined)).toBe('[CRITICAL] SOS Emergency');
  });

  it("labels a kiosk's details in words and marks its times to show as times", () => {
    const details = detailsOf({ kiosk_id: 'kio_01', entry_point: 'Main gate', pressed_at: '2026-11-29T02:08:40.346Z', house_number: '14B' }, ['entry_point']);
    expect(details).toEqual([
      { key: 'kiosk_id', label: 'Kiosk', value: 'kio_01', instant: false },
      { key: 'pressed_at', label: 'Button pressed', value: '2026-11-29T02:08:40.346Z', instant: true },
      { key: 'house_number', label: 'House number', value: '14B', instant: false },
    ]);
  });

  it('says each timeline event in words, and one it does not know as words too', () => {
    expect(eventText('dispatched')).toBe('Offered to responders');
    expect(eventText('false_alarm')).toBe('Guard: false alarm');
    expect(eventText('all_clear_sent')).toBe('All clear sent');
  });
});
