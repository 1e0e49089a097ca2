import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { describeError, type Client } from '../api.ts';
import { ErrorNote } from '../components/ui.tsx';
import { useConsole } from '../context.tsx';
import { OfflineKiosks } from '../kiosks/offline-alert.tsx';
import { TextCeilingAlert } from './text-ceilings.tsx';
import { theAlarm } from './alarm.ts';
import { useCoverage } from './coverage.ts';
import { useSiteScope } from '../sites/site-scope.tsx';
import { IncidentCard } from './incident-card.tsx';
import { CATEGORY_TEXT } from './incident-words.ts';
import { useLiveEvents, useNow } from './hooks.ts';
import { boardOrder, entryPointOf, incidentOf, inSite, LANES, laneOf, needsAcknowledgement, newer, onBoard, type Incident } from './incidents.ts';
import { ScreenHeader } from '../components/layout.tsx';
import { DAY_MS, HOUR_MS } from '../../../shared/time.ts';
import { readAllPages } from '../lists/read-all-pages.ts';

/** The alarm repeats this often while an escalated or unresponsive incident is unacknowledged. */
const ALARM_EVERY_MS = 10_000;

/** The most incidents the board reads of each list; past it, it says how many it left out. */
const MOST_ON_BOARD = 2_000;

/**
 * Every active incident, and those closed in the last hour (all the board shows of them), of one
 * site or of all (`siteId` undefined). The closed ones are those created in the last day, the
 * only date the API filters on, kept when they were updated within the hour.
 */
async function loadBoard(client: Client, siteId: string | undefined): Promise<{ incidents: Incident[]; leftOut: number }> {
  const since = new Date(Date.now() - DAY_MS).toISOString();
  const closedSince = Date.now() - HOUR_MS;
  const [active, resolved, cancelled] = await Promise.all([
    readAllPages(client, '/incidents', { status: 'active', site_id: siteId }, MOST_ON_BOARD),
    readAllPages(client, '/incidents', { status: 'resolved', from_date: since, site_id: siteId }, MOST_ON_BOARD),
    readAllPages(client, '/incidents', { status: 'cancelled', from_date: since, site_id: siteId }, MOST_ON_BOARD),
  ]);
  const recent = (incident: Incident) => Date.parse(incident.updated_at) >= closedSince;
  return {
    incidents: [...active.items, ...resolved.items.filter(recent), ...cancelled.items.filter(recent)],
    leftOut: active.total - active.items.length,
  };
}

export function BoardScreen() {
  const { client, environment, can } = useConsole();
  const { siteId, chosen, siteOf } = useSiteScope();
  const [incidents, setIncidents] = useState<ReadonlyMap<string, Incident>>(new Map());
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  /** Active incidents past what the board reads (MOST_ON_BOARD): said on the board, never hidden. */
  const [leftOut, setLeftOut] = useState(0);
  const [round, setRound] = useState(0);
  /** New SOS incidents heard live that nobody at this screen has looked at yet. */
  const [unseen, setUnseen] = useState<ReadonlySet<string>>(new Set());
  const [filters, setFilters] = useState({ category: '', severity: '', entryPoint: '' });
  /** Incidents the stream brought while the list was still loading: applied on top of it. */
  const early = useRef<Incident[] | null>([]);
  const now = useNow();
  const alarm = theAlarm();

  const apply = useCallback((incident: Incident) => {
    setIncidents((current) => {
      const next = new Map(current);
      next.set(incident.incident_id, newer(current.get(incident.incident_id), incident));
      return next;
    });
  }, []);

  useEffect(() => {
    let current = true;
    early.current = [];
    setLoading(true);
    loadBoard(client, siteId).then(
      ({ incidents: list, leftOut: left }) => {
        if (!current) return;
        const map = new Map<string, Incident>();
        for (const incident of [...list, ...(early.current ?? [])]) map.set(incident.incident_id, newer(map.get(incident.incident_id), incident));
        early.current = null;
        setIncidents(map);
        setLeftOut(left);
        setError(null);
        setLoading(false);
      },
      (failure: unknown) => {
        if (!current) return;
        early.current = null;
        setError(describeError(failure));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [client, environment, round, siteId]);

  useLiveEvents(
    (event) => {
      const incident = incidentOf(event);
      // Another site's incident is not this board's, nor its chime, while a site is chosen.
      if (!incident || !inSite(incident, siteId)) return;
      if (early.current) early.current.push(incident);
      else apply(incident);
      if (event.type === 'incident.created' && incident.category === 'sos') {
        setUnseen((current) => new Set(current).add(incident.incident_id));
        alarm.chime();
      }
    },
    () => setRound((n) => n + 1),
  );

  // What the last site's list left is not shown while the chosen site's is read.
  const shown = useMemo(() => [...incidents.values()].filter((incident) => onBoard(incident, now) && inSite(incident, siteId)), [incidents, now, siteId]);
  // A wall screen runs all night: what has left the board leaves memory too, once a minute.
  const minute = Math.floor(now / 60_000);
  useEffect(() => {
    setIncidents((current) => {
      const at = minute * 60_000;
      if ([...current.values()].every((incident) => onBoard(incident, at))) return current;
      return new Map([...current].filter(([, incident]) => onBoard(incident, at)));
    });
    setUnseen((current) => (current.size === 0 ? current : new Set([...current].filter((id) => incidents.has(id)))));
  }, [minute]);
  const attention = shown.filter(needsAcknowledgement);
  const waitingSos = shown.filter((incident) => unseen.has(incident.incident_id) && laneOf(incident.status) === 'new');

  // Sound and title while something waits for a person; silent once acknowledged or assigned.
  const alarming = attention.length > 0;
  useEffect(() => {
    if (!alarming) return;
    alarm.alarm();
    const timer = setInterval(() => alarm.alarm(), ALARM_EVERY_MS);
    return () => clearInterval(timer);
  }, [alarming, alarm]);
  const flashText = alarming ? `⚠ NOBODY ACCEPTED (${attention.length})` : waitingSos.length > 0 ? `● NEW SOS (${waitingSos.length})` : null;
  useEffect(() => {
    alarm.flash(flashText);
    return () => alarm.flash(null);
  }, [flashText, alarm]);

  const covered = useCoverage(shown);
  const entryPoints = useMemo(() => [...new Set(shown.map(entryPointOf).filter((point): point is string => point !== null))].sort(), [shown]);
  const filtered = shown.filter(
    (incident) =>
      (!filters.category || incident.category === filters.category) &&
      (!filters.severity || incident.severity === filters.severity) &&
      (!filters.entryPoint || (filters.entryPoint === '-' ? entryPointOf(incident) === null : entryPointOf(incident) === filters.entryPoint)),
  );
  const seen = (incidentId: string) =>
    setUnseen((current) => {
      const next = new Set(current);
      next.delete(incidentId);
      return next;
    });
  const acknowledge = async (incident: Incident) => {
    const answer = await client.post('/incidents/{incidentId}/acknowledge', { params: { path: { incidentId: incident.incident_id } } });
    apply(answer.incident);
  };

  return (
    <div className="stack" data-testid="screen-board">
      <ScreenHeader title={chosen ? `Live board: ${chosen.name}` : 'Live board'}>
        Every active incident{chosen ? ` at ${chosen.name}` : ''}, as it changes. Cards stand out until a person has seen them.
      </ScreenHeader>
      <SoundControl />
      <OfflineKiosks />
      <TextCeilingAlert />
      <div className="filters" role="group" aria-label="Filter the board">
        <label>
          Category{' '}
          <select value={filters.category} onChange={(e) => setFilters({ ...filters, category: e.target.value })} data-testid="filter-category">
            <option value="">Any</option>
            {Object.entries(CATEGORY_TEXT).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Severity{' '}
          <select value={filters.severity} onChange={(e) => setFilters({ ...filters, severity: e.target.value })} data-testid="filter-severity">
            <option value="">Any</option>
            {['critical', 'high', 'medium', 'low'].map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
        <label>
          Entry point{' '}
          <select value={filters.entryPoint} onChange={(e) => setFilters({ ...filters, entryPoint: e.target.value })} data-testid="filter-entry-point">
            <option value="">Any</option>
            <option value="-">Not from a gate</option>
            {entryPoints.map((point) => (
              <option key={point} value={point}>
                {point}
              </option>
            ))}
          </select>
        </label>
        <span className="muted">{loading ? 'Reading incidents…' : `${filtered.length} shown of ${shown.length}`}</span>
      </div>
      <ErrorNote error={error} />
      {leftOut > 0 && (
        <p className="warning" role="status" data-testid="board-left-out">
          {leftOut} older active incidents are not on the board, which reads the {MOST_ON_BOARD} newest: find them under Reports or through the API.
        </p>
      )}
      <div className="board" data-testid="board">
        {LANES.map((lane) => {
          const cards = filtered.filter((incident) => laneOf(incident.status) === lane.id).sort(boardOrder);
          return (
            <section key={lane.id} className={`lane lane-${lane.id}`} aria-labelledby={`lane-${lane.id}`} data-testid={`lane-${lane.id}`}>
              <h2 id={`lane-${lane.id}`}>
                {lane.title} <span className="count">{cards.length}</span>
              </h2>
              {cards.length === 0 ? (
                <p className="muted lane-empty">None.</p>
              ) : (
                <ul>
                  {cards.map((incident) => (
                    <IncidentCard
                      key={incident.incident_id}
                      incident={incident}
                      now={now}
                      covered={covered(incident)}
                      site={siteOf(incident)}
                      unseen={unseen.has(incident.incident_id)}
                      onSeen={() => seen(incident.incident_id)}
                      onAcknowledge={can('operateIncidents') ? () => acknowledge(incident) : null}
                    />
                  ))}
                </ul>
              )}
            </section>
          );
        })}
      </div>
    </div>
  );
}

/** Browsers refuse sound before a click: ask once, and say plainly while it is off. */
function SoundControl() {
  const alarm = theAlarm();
  const [on, setOn] = useState(alarm.on());
  useEffect(() => alarm.subscribe(setOn), [alarm]);
  if (on)
    return (
      <p className="sound on" data-testid="sound" data-sound="on">
        Sound is on: a chime for a new SOS, an alarm while nobody has accepted one.{' '}
        <button type="button" className="link" onClick={() => alarm.turnOff()}>
          Turn sound off
        </button>
      </p>
    );
  // Off, and readable from across the room: after a reload the browser has silenced it again
  // until a click (issue #48), so the whole bar is the button that brings it back.
  return (
    <div className="sound off" role="status" data-testid="sound" data-sound="off">
      <button type="button" className="sound-wake" onClick={() => void alarm.turnOn().then(setOn)} data-testid="sound-on">
        Sound is off: click to turn on
      </button>
      <span className="sound-why">
        {alarm.wanted() ? 'The browser silences a page when it reloads: one click anywhere brings the sound back.' : 'Until then new SOS alerts show on screen only.'}
      </span>
    </div>
  );
}
