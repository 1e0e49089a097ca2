import { phoneForReading, telHref } from '../../../shared/phone.ts';
import type { Offer } from '../api.ts';

/**
 * Where the incident is, as a responder asks it: the gate and the estate ("Main gate, Admiralty
 * Estate"), and the estate's own number to call on the way, read as a person writes it and
 * dialled in E.164 (issue #48). Nothing when the incident names neither.
 */
export function EstateLine({ incident }: { incident: Pick<Offer['incident'], 'gate' | 'site'> }) {
  const place = [incident.gate, incident.site?.name].filter(Boolean).join(', ');
  if (!place && !incident.site?.phone) return null;
  return (
    <div className="estate" data-testid="estate">
      {place && <p className="estate-place" data-testid="estate-place">{place}</p>}
      {incident.site?.phone && (
        <a className="call estate-call" href={telHref(incident.site.phone)} data-testid="estate-call">
          Call the estate: {phoneForReading(incident.site.phone)}
        </a>
      )}
    </div>
  );
}
