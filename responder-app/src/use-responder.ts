import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { createAlarm } from './alert.ts';
import { goneNotice, offerOutcome } from './gone.ts';
import { call, sendAction, Unreachable, type ActionAnswer, type Answer, type ResponderIncident } from './api.ts';
import { openOutbox, type Outbox, type OutboxAction } from './outbox.ts';
import { beatDue } from './presence.ts';
import { EMPTY, loadState, saveState, type AppState, type Step } from './state.ts';
import { useLocation } from './use-location.ts';

/** How often waiting actions are tried again, and an open offer or incident is checked. */
const RETRY_MS = 2_000;
const CHECK_MS = 3_000;
const LONG_POLL_S = 25;

const STEPS: Step[] = ['accepting', 'assigned', 'responding', 'on_scene', 'resolved'];
const later = (a: Step, b: Step) => (STEPS.indexOf(a) >= STEPS.indexOf(b) ? a : b);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Everything the responder app does: state kept across reloads, the outbox, the long poll, the heartbeat. */
export function useResponder() {
  const [state, setState] = useState<AppState>(loadState);
  const stateRef = useRef(state);
  const update = useCallback((change: (before: AppState) => AppState) => {
    const next = change(stateRef.current);
    stateRef.current = next;
    saveState(next);
    setState(next);
  }, []);
  const [outbox, setOutbox] = useState<Outbox | null>(null);
  const [waiting, setWaiting] = useState<OutboxAction[]>([]);
  const [linkUp, setLinkUp] = useState(true);
  const [now, setNow] = useState(Date.now());
  const alarm = useMemo(createAlarm, []);
  const location = useLocation(Boolean(state.token) && state.onDuty);

  useEffect(() => {
    void openOutbox().then(async (opened) => {
      setOutbox(opened);
      setWaiting(await opened.all());
    });
    const tick = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(tick);
  }, []);

  const signOut = useCallback(
    async (why: string) => {
      await outbox?.clear();
      setWaiting([]);
      update(() => ({ ...EMPTY, notice: { kind: 'signed-out', title: 'Signed out', text: why } }));
    },
    [outbox, update],
  );

  // Sign in by link: /responder/#token=rtk_... The token stays on this phone only.
  const signIn = useCallback(
    (link: string) => {
      const token = /(rtk_[0-9A-Za-z]{32,64})/.exec(link)?.[1];
      if (!token) return false;
      update(() => ({ ...EMPTY, token }));
      return true;
    },
    [update],
  );
  useEffect(() => {
    const hash = window.location.hash;
    if (hash.includes('token=')) {
      signIn(decodeURIComponent(hash));
      history.replaceState(null, '', window.location.pathname);
    }
  }, [signIn]);

  const token = state.token;
  useEffect(() => {
    if (!token) return;
    let stopped = false;
    (async () => {
      while (!stopped) {
        try {
          const me = await call(token, 'get', '/me');
          if (me.status === 401) return void signOut('This phone is no longer signed in: ask your operator for a new sign-in link.');
          if (me.ok) update((s) => ({ ...s, responder: me.body.responder }));
          return;
        } catch {
          await sleep(RETRY_MS);
        }
      }
    })();
    return () => void (stopped = true);
  }, [token, signOut, update]);

  const refreshWaiting = useCallback(async () => {
    if (outbox) setWaiting(await outbox.all());
  }, [outbox]);

  const dropActionsOf = useCallback(
    async (incidentId: string) => {
      if (!outbox) return;
      for (const action of await outbox.all()) if (action.incidentId === incidentId) await outbox.remove(action.id!);
    },
    [outbox],
  );

  const applyAnswer = useCallback(
    async (action: OutboxAction, answer: Answer<ActionAnswer>) => {
      const ok = answer.ok;
      update((s) => ({ ...s, sent: [{ label: ok ? action.label : `${action.label}: refused`, at: new Date().toISOString() }, ...s.sent].slice(0, 3) }));
      const message = answer.ok ? `HTTP ${answer.status}` : answer.body.message;
      const incident: ResponderIncident | undefined = answer.ok && 'incident' in answer.body ? answer.body.incident : undefined;
      if (action.kind === 'availability') {
        if (answer.ok && 'responder' in answer.body) {
          const responder = answer.body.responder;
          const available = (action.body as { available?: boolean }).available;
          // "Location sent" means the server has it: the beat is heard once answered, not when queued.
          update((s) => ({ ...s, responder, lastBeat: s.lastBeat && s.lastBeat.available === available ? { ...s.lastBeat, heard: true } : s.lastBeat }));
        }
        return;
      }
      if (action.kind === 'decline') return;
      if (action.kind === 'accept') {
        if (ok && incident) update((s) => (s.work ? { ...s, work: { ...s.work, incident, confirmed: true, step: later(s.work.step, 'assigned') } } : s));
        else {
          await dropActionsOf(action.incidentId!);
          const offerId = action.path.split('/')[2]!;
          // Stood down while accepting: say by whom and why, not only the refusal.
          const outcome = answer.status === 409 && stateRef.current.token ? await offerOutcome(stateRef.current.token, offerId) : null;
          const taken = /taken|already/i.test(message);
          update((s) => ({
            ...s,
            work: null,
            dismissed: [...s.dismissed, offerId].slice(-50),
            notice: outcome?.stood_down ? goneNotice(outcome, { kind: 'offer' }) : { kind: 'taken', title: taken ? 'Someone else took it' : 'Could not accept', text: message },
          }));
        }
        return;
      }
      if (action.kind === 'resolve' && ok) {
        update((s) => ({ ...s, work: null, notice: { kind: 'resolved', title: 'Incident resolved', text: 'Thank you. You are back on duty.' } }));
        return;
      }
      if (ok && incident) update((s) => (s.work ? { ...s, work: { ...s.work, incident } } : s));
      else if (!ok) update((s) => ({ ...s, notice: { kind: 'refused', title: 'The server refused a step', text: `${action.label}: ${message}` } }));
    },
    [update, dropActionsOf],
  );

  // The outbox: oldest first, the same request again until the server answers it.
  const pumping = useRef(false);
  const pump = useCallback(async () => {
    if (!outbox || pumping.current) return;
    pumping.current = true;
    try {
      for (;;) {
        const [next] = await outbox.all();
        const current = stateRef.current.token;
        if (!next || !current) break;
        let answer: Answer<ActionAnswer>;
        try {
          answer = await sendAction(current, next);
        } catch (error) {
          if (!(error instanceof Unreachable)) throw error;
          await outbox.touch(next);
          setLinkUp(false);
          break;
        }
        setLinkUp(true);
        if (answer.status === 401) {
          await signOut('Your operator signed this phone out.');
          break;
        }
        await outbox.remove(next.id!);
        await applyAnswer(next, answer);
        await refreshWaiting();
      }
    } finally {
      pumping.current = false;
      await refreshWaiting();
    }
  }, [outbox, applyAnswer, refreshWaiting, signOut]);

  useEffect(() => {
    void pump();
    const retry = setInterval(() => void pump(), RETRY_MS);
    const online = () => void pump();
    window.addEventListener('online', online);
    return () => {
      clearInterval(retry);
      window.removeEventListener('online', online);
    };
  }, [pump]);

  const queue = useCallback(
    async (action: Omit<OutboxAction, 'id' | 'queuedAt' | 'attempts'>) => {
      if (!outbox) return;
      await outbox.add(action);
      await refreshWaiting();
      void pump();
    },
    [outbox, pump, refreshWaiting],
  );

  // The heartbeat: on going on or off duty, every minute on duty, and on moving 100 m.
  const position = location.position;
  const onDuty = state.onDuty;
  const working = Boolean(state.work);
  useEffect(() => {
    if (!token || !outbox) return;
    const available = onDuty && !working;
    const last = stateRef.current.lastBeat;
    const point = position ?? last ?? stateRef.current.responder?.location ?? null;
    if (!point) return;
    if (!beatDue(last, available, position, now, onDuty && working)) return;
    const beat = { available, latitude: point.latitude, longitude: point.longitude };
    // The server already knows this availability when only the place moved: it stays heard.
    update((s) => ({ ...s, lastBeat: { ...beat, at: Date.now(), heard: s.lastBeat?.available === available && s.lastBeat.heard !== false } }));
    void queue({ kind: 'availability', method: 'PUT', path: '/availability', body: beat, label: !available ? (onDuty ? 'Busy with an incident' : 'Off duty') : position ? 'On duty, here' : 'On duty (last known place)' });
  }, [token, outbox, onDuty, working, position, now, queue, update]);

  // Hearing an offer at once: a long poll while on duty and free, started again after any drop.
  const offerId = state.offer?.offer_id;
  useEffect(() => {
    if (!token || !onDuty || working || offerId) return;
    const abort = new AbortController();
    (async () => {
      while (!abort.signal.aborted) {
        try {
          const answer = await call(token, 'get', '/offers', { params: { query: { wait: LONG_POLL_S } }, signal: abort.signal });
          setLinkUp(true);
          if (answer.status === 401) return void signOut('Your operator signed this phone out.');
          if (!answer.ok) continue;
          const fresh = answer.body.offers.find((offer) => !stateRef.current.dismissed.includes(offer.offer_id));
          if (fresh) return update((s) => ({ ...s, offer: fresh, notice: null }));
        } catch {
          if (abort.signal.aborted) return;
          setLinkUp(false);
          await sleep(RETRY_MS);
        }
      }
    })();
    return () => abort.abort();
  }, [token, onDuty, working, offerId, signOut, update]);

  // An offer on screen rings until answered, and goes away when someone else takes it.
  useEffect(() => {
    if (!token || !offerId) return;
    alarm.start();
    const check = setInterval(async () => {
      try {
        const answer = await call(token, 'get', '/offers');
        setLinkUp(true);
        if (!answer.ok || answer.body.offers.some((offer) => offer.offer_id === offerId)) return;
        if (stateRef.current.offer?.offer_id !== offerId) return;
        // Gone: why (taken, cancelled, or stood down by Tsaro control, by whom and why).
        const outcome = await offerOutcome(token, offerId);
        if (stateRef.current.offer?.offer_id !== offerId) return;
        update((s) => ({ ...s, offer: null, dismissed: [...s.dismissed, offerId].slice(-50), notice: goneNotice(outcome, { kind: 'offer' }) }));
      } catch {
        setLinkUp(false);
      }
    }, CHECK_MS);
    return () => {
      alarm.stop();
      clearInterval(check);
    };
  }, [token, offerId, alarm, update]);

  // A partner's cancel, or Tsaro control standing the responder down, shows at once and frees them.
  const workId = state.work?.confirmed ? state.work.incident.incident_id : undefined;
  useEffect(() => {
    if (!token || !workId) return;
    const check = setInterval(async () => {
      try {
        const answer = await call(token, 'get', '/assignments');
        setLinkUp(true);
        if (!answer.ok) return;
        const found = answer.body.incidents.find((incident) => incident.incident_id === workId);
        const work = stateRef.current.work;
        if (work?.incident.incident_id !== workId) return;
        // No longer among this responder's incidents, or closed by someone else: Tsaro control
        // stood them down (issue #47); the offer's record says by whom and why.
        if (!found || (found.status === 'resolved' && work.step !== 'resolved')) {
          const outcome = await offerOutcome(token, work.offerId);
          if (stateRef.current.work?.incident.incident_id !== workId) return;
          if (found && !outcome?.stood_down) return void update((s) => (s.work ? { ...s, work: { ...s.work, incident: found } } : s));
          await dropActionsOf(workId);
          await refreshWaiting();
          update((s) => ({ ...s, work: null, notice: goneNotice(outcome, { kind: 'incident', title: work.incident.title }) }));
          return;
        }
        if (found.status === 'cancelled') {
          await dropActionsOf(workId);
          await refreshWaiting();
          update((s) => ({ ...s, work: null, notice: { kind: 'cancelled', title: 'Cancelled by the partner', text: `${found.title} was cancelled. You are free for the next incident.` } }));
        } else update((s) => (s.work ? { ...s, work: { ...s.work, incident: found } } : s));
      } catch {
        setLinkUp(false);
      }
    }, CHECK_MS);
    return () => clearInterval(check);
  }, [token, workId, dropActionsOf, refreshWaiting, update]);

  const actions = {
    signIn,
    setDuty(next: boolean) {
      alarm.unlock();
      update((s) => ({ ...s, onDuty: next }));
    },
    async accept() {
      const offer = stateRef.current.offer;
      if (!offer) return;
      const incidentId = offer.incident.incident_id;
      update((s) => ({ ...s, offer: null, work: { offerId: offer.offer_id, incident: offer.incident, step: 'accepting', etaMinutes: null, confirmed: false } }));
      await queue({ kind: 'accept', method: 'POST', path: `/offers/${offer.offer_id}/accept`, label: 'Accept', incidentId });
    },
    async decline(reason?: string) {
      const offer = stateRef.current.offer;
      if (!offer) return;
      update((s) => ({ ...s, offer: null, dismissed: [...s.dismissed, offer.offer_id].slice(-50) }));
      await queue({ kind: 'decline', method: 'POST', path: `/offers/${offer.offer_id}/decline`, ...(reason && { body: { reason } }), label: reason ? `Decline: ${reason}` : 'Decline' });
    },
    async onMyWay(etaMinutes: number) {
      const work = stateRef.current.work;
      if (!work) return;
      const id = work.incident.incident_id;
      update((s) => ({ ...s, work: s.work && { ...s.work, step: later(s.work.step, 'responding'), etaMinutes } }));
      await queue({ kind: 'responding', method: 'POST', path: `/incidents/${id}/status`, body: { status: 'responding', eta_minutes: etaMinutes }, label: `On my way, ${etaMinutes} min`, incidentId: id });
    },
    async onScene() {
      const work = stateRef.current.work;
      if (!work) return;
      const id = work.incident.incident_id;
      update((s) => ({ ...s, work: s.work && { ...s.work, step: later(s.work.step, 'on_scene') } }));
      await queue({ kind: 'on_scene', method: 'POST', path: `/incidents/${id}/status`, body: { status: 'on_scene' }, label: 'On scene', incidentId: id });
    },
    async resolve(outcome: string, notes: string) {
      const work = stateRef.current.work;
      if (!work) return;
      const id = work.incident.incident_id;
      update((s) => ({ ...s, work: s.work && { ...s.work, step: 'resolved' } }));
      const body = notes.trim() ? { outcome, notes: notes.trim() } : { outcome };
      await queue({ kind: 'resolve', method: 'POST', path: `/incidents/${id}/resolve`, body, label: `Resolve: ${outcome.replace(/_/g, ' ')}`, incidentId: id });
    },
    dismissNotice() {
      update((s) => ({ ...s, notice: null }));
    },
    /** The next heartbeat goes at once (back in service: the server hears the phone is on duty now, not in a minute). */
    beatNow() {
      update((s) => ({ ...s, lastBeat: null }));
    },
  };

  return { state, waiting, linkUp, location, now, actions };
}
