import type { Offer } from '../api.ts';
import { EstateLine } from './estate.tsx';
import { bearingDegrees, compassPoint, type Position } from '../state.ts';

const label = (text: string) => text.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

function timeLeft(answerBy: string | null, now: number): string {
  if (!answerBy) return 'Overdue: nobody has taken it. Late help beats none.';
  const seconds = Math.round((Date.parse(answerBy) - now) / 1000);
  if (seconds <= 0) return 'Escalated: still open, you can take it.';
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')} left to accept`;
}

export function OfferScreen(props: { offer: Offer; from: Position | { latitude: number; longitude: number } | null; now: number; onAccept: () => void; onDecline: () => void }) {
  const { offer } = props;
  const [longitude, latitude] = offer.incident.location.coordinates;
  const bearing = props.from ? bearingDegrees(props.from, { latitude, longitude }) : null;
  return (
    <main className={`screen offer severity-${offer.incident.severity}`} data-testid="screen-offer" role="alertdialog" aria-labelledby="offer-title">
      <p className="eyebrow">New incident</p>
      <h1 id="offer-title">
        {label(offer.incident.category)} · {offer.incident.severity.toUpperCase()}
      </h1>
      <p className="title">{offer.incident.title}</p>
      <EstateLine incident={offer.incident} />
      <div className="where">
        {bearing !== null && (
          <svg className="bearing" viewBox="0 0 64 64" aria-hidden="true" style={{ transform: `rotate(${bearing}deg)` }}>
            <circle cx="32" cy="32" r="30" fill="none" stroke="currentColor" strokeWidth="3" />
            <path d="M32 8 L44 44 L32 36 L20 44 Z" fill="currentColor" />
          </svg>
        )}
        <div>
          <p className="distance" data-testid="offer-distance">
            {offer.distance_km.toFixed(1)} km{bearing !== null ? ` ${compassPoint(bearing)}` : ''}
          </p>
          <p data-testid="offer-address">{offer.incident.location.address ?? offer.incident.location.landmark ?? `${latitude.toFixed(4)}, ${longitude.toFixed(4)}`}</p>
          {offer.incident.location.address && offer.incident.location.landmark && <p className="muted">Landmark: {offer.incident.location.landmark}</p>}
        </div>
      </div>
      <p className="countdown" data-testid="offer-time-left">
        {timeLeft(offer.answer_by, props.now)}
      </p>
      <div className="answers">
        <button type="button" className="big accept" onClick={props.onAccept} data-testid="offer-accept">
          Accept
        </button>
        <button type="button" className="big decline" onClick={props.onDecline} data-testid="offer-decline">
          Decline
        </button>
      </div>
    </main>
  );
}
