import { useEffect, useState } from 'react';
import type { LocationState } from './state.ts';

/** The phone's position while `active` (on duty), from the Geolocation API. */
export function useLocation(active: boolean): LocationState {
  const [state, setState] = useState<LocationState>({ position: null, problem: null });
  useEffect(() => {
    if (!active) return;
    if (!('geolocation' in navigator)) {
      setState({ position: null, problem: 'unsupported' });
      return;
    }
    const watch = navigator.geolocation.watchPosition(
      (fix) =>
        setState({
          position: { latitude: fix.coords.latitude, longitude: fix.coords.longitude, accuracy: fix.coords.accuracy, at: fix.timestamp || Date.now() },
          problem: null,
        }),
      (error) => setState((before) => ({ position: before.position, problem: error.code === error.PERMISSION_DENIED ? 'denied' : 'unavailable' })),
      { enableHighAccuracy: true, maximumAge: 15_000, timeout: 30_000 },
    );
    return () => navigator.geolocation.clearWatch(watch);
  }, [active]);
  return state;
}
