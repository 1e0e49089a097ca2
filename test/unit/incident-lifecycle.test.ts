import { describe, expect, it } from 'vitest';
import { INCIDENT_STATUSES, defaultIncidentTitle, isActiveIncidentStatus } from '../../shared/schemas/incidents.ts';
import { INCIDENT_TRANSITIONS, canTransition } from '../../server/incidents/lifecycle.ts';

describe('incident lifecycle table', () => {
  it.each([
    ['created', 'dispatching'],
    ['dispatching', 'assigned'],
    ['assigned', 'responding'],
    ['responding', 'on_scene'],
    ['on_scene', 'resolved'],
    ['dispatching', 'escalated'],
    ['escalated', 'unresponsive'],
    ['escalated', 'assigned'],
    ['unresponsive', 'assigned'],
    ['assigned', 'dispatching'],
    ['responding', 'dispatching'],
    ['dispatching', 'resolved'],
    ['escalated', 'resolved'],
    // A controller stands the responder on scene down (issue #47): back to dispatch.
    ['on_scene', 'dispatching'],
  ] as const)('allows %s → %s (reference and contract)', (from, to) => {
    expect(canTransition(from, to)).toBe(true);
  });

  it.each([
    ['created', 'resolved'],
    ['on_scene', 'assigned'],
    ['created', 'assigned'],
    ['assigned', 'on_scene'],
    ['resolved', 'cancelled'],
    ['cancelled', 'dispatching'],
    ['on_scene', 'escalated'],
  ] as const)('refuses %s → %s', (from, to) => {
    expect(canTransition(from, to)).toBe(false);
  });

  it('every active status can be cancelled and no terminal status goes anywhere', () => {
    for (const status of INCIDENT_STATUSES) {
      if (isActiveIncidentStatus(status)) expect(canTransition(status, 'cancelled')).toBe(true);
      else expect(INCIDENT_TRANSITIONS[status]).toEqual([]);
    }
  });

  it('titles say severity in capitals and the category in words', () => {
    expect(defaultIncidentTitle('location_threat', 'high')).toBe('[HIGH] Location Threat Emergency');
  });
});
