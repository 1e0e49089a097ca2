import { useEffect, useMemo, useState } from 'react';
import { useConsole } from '../context.tsx';
import { positionOf, type Incident } from './incidents.ts';

/** How often the board asks again whether responders cover a waiting incident's place. */
const REFRESH_MS = 30_000;

const placeOf = (incident: Incident): { key: string; latitude: number; longitude: number } | null => {
  const position = positionOf(incident);
  if (!position) return null;
  // About 100 m: incidents at one gate share one question.
  const latitude = Number(position.latitude.toFixed(3));
  const longitude = Number(position.longitude.toFixed(3));
  return { key: `${latitude},${longitude}`, latitude, longitude };
};

/**
 * Whether any responder is near each incident still waiting for one (`dispatching`), from
 * `GET /dispatch/coverage` at its place, asked again every 30 s: the board must not count down
 * "Assign within" for an SOS nobody can be offered (issue #34). Undefined while not known.
 */
export function useCoverage(incidents: readonly Incident[]): (incident: Incident) => boolean | undefined {
  const { client, environment } = useConsole();
  const [covered, setCovered] = useState<ReadonlyMap<string, boolean>>(new Map());
  const places = useMemo(() => {
    const waiting = new Map<string, { latitude: number; longitude: number }>();
    for (const incident of incidents) {
      if (incident.status !== 'dispatching') continue;
      const place = placeOf(incident);
      if (place) waiting.set(place.key, place);
    }
    return waiting;
  }, [incidents]);
  const wanted = [...places.keys()].sort().join(';');
  useEffect(() => {
    let current = true;
    const ask = () =>
      void Promise.all(
        [...places].map(async ([key, { latitude, longitude }]) => {
          const answer = await client.get('/dispatch/coverage', { params: { query: { latitude, longitude } } }).catch(() => null);
          return [key, answer?.coverage.covered] as const;
        }),
      ).then((answers) => {
        if (!current) return;
        setCovered(new Map(answers.filter((entry): entry is readonly [string, boolean] => entry[1] !== undefined)));
      });
    if (places.size) ask();
    const timer = places.size ? setInterval(ask, REFRESH_MS) : undefined;
    return () => {
      current = false;
      clearInterval(timer);
    };
    // `wanted` names the places; `places` changes identity with every board update.
  }, [client, environment, wanted]);
  return (incident) => {
    const place = placeOf(incident);
    return place ? covered.get(place.key) : undefined;
  };
}
