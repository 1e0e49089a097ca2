import type { GateCoverage, PanicStatus } from '../../../shared/kiosk/calls.ts';
import { phoneForReading } from '../../../shared/phone.ts';
import type { MessageKey } from '../i18n/en.ts';

type Params = Record<string, string | number>;

export interface PanicLine {
  key: MessageKey;
  params?: Params;
}

const OVER: Record<string, MessageKey> = { resolved: 'panic.over.resolved', cancelled: 'panic.over.cancelled' };

/** The status read this long ago is no longer the status: the guard must not trust a tick from it. */
export const STATUS_STALE_MS = 20_000;

/** The incident is over (resolved or cancelled): nothing more is coming for it. */
export function panicIsOver(panic: PanicStatus | null): boolean {
  return Boolean(panic?.incidentStatus && OVER[panic.incidentStatus]);
}

/** Minutes until the responder's ETA runs out, counted down from when the kiosk heard it. */
function minutesLeft(responder: NonNullable<PanicStatus['responder']>, nowMs: number): number | null {
  if (responder.arriveBy) return Math.ceil((Date.parse(responder.arriveBy) - nowMs) / 60_000);
  return responder.etaMinutes;
}

/**
 * What a sent SOS's incident means for the guard, one line each, never two that disagree: an
 * incident that is over says only that; "finding a responder" only while none is assigned; an
 * arrival time only while the responder is on the way, counting down, and "arriving now" rather
 * than "0 min".
 */
export function panicProgress(panic: PanicStatus): PanicLine[] {
  const nowMs = Date.parse(panic.reportedAt);
  if (panic.delivery !== 'sent') return [];
  const over = panic.incidentStatus ? OVER[panic.incidentStatus] : undefined;
  if (over) return [{ key: over }];
  const responder = panic.responder;
  if (!responder) {
    const late = panic.incidentStatus === 'escalated' || panic.incidentStatus === 'unresponsive';
    return [{ key: late ? 'panic.escalated' : 'panic.waitingResponder' }];
  }
  const lines: PanicLine[] = [{ key: 'panic.responder', params: { name: responder.name } }];
  const minutes = minutesLeft(responder, nowMs);
  if (panic.incidentStatus === 'on_scene') lines.push({ key: 'panic.onScene' });
  else if (minutes !== null) lines.push(minutes <= 0 ? { key: 'panic.arrivingNow' } : { key: 'panic.eta', params: { minutes } });
  if (responder.phone) lines.push({ key: 'panic.call', params: { phone: phoneForReading(responder.phone) } });
  return lines;
}

/** While an SOS has not reached the server: tell the guard not to wait for it. */
export function panicFallback(panic: PanicStatus, alarmPhones: string | null): PanicLine[] {
  if (panic.delivery === 'sent') return [];
  return raiseAlarm(alarmPhones);
}

export function raiseAlarm(alarmPhones: string | null, first: MessageKey = 'panic.raiseAlarm'): PanicLine[] {
  const lines: PanicLine[] = [{ key: first }];
  if (alarmPhones) lines.push({ key: 'panic.callPhones', params: { phones: alarmPhones } });
  return lines;
}

/** What the kiosk knows beside the SOS itself. */
export interface PanicSurroundings {
  /** The kiosk reaches the server now. */
  online: boolean;
  coverage: GateCoverage | null;
  alarmPhones: string | null;
  /** The site's numbers Tsaro does not text (112, a landline), when it has any (issue #48). */
  untextedPhones?: string | null;
}

/** When the call list is being texted (nobody accepted): which numbers are not, so the guard calls them. */
function notTexted(around: PanicSurroundings): PanicLine[] {
  return around.untextedPhones ? [{ key: 'panic.notTexted', params: { phones: around.untextedPhones } }] : [];
}

/**
 * `sent`: the only tone with the green tick; `alarm`: red, the guard must raise the alarm another
 * way (not sent, refused, nobody accepted, nobody near); `unknown`: amber, the link is down and
 * what the server is doing is not known; `sending` and `over` are neutral.
 */
export type PanicTone = 'sending' | 'sent' | 'alarm' | 'unknown' | 'over';

export interface PanicView {
  tone: PanicTone;
  headline: PanicLine;
  /** What the incident says (responder, ETA, ...). */
  progress: PanicLine[];
  /** What the guard must do now; never shown beside a tick. */
  advice: PanicLine[];
}

/** Live, no responder within the dispatch radius: an SOS reaches no one but the estate's own numbers. */
export function knownUncovered(coverage: GateCoverage | null): boolean {
  return Boolean(coverage && !coverage.simulated && !coverage.covered);
}

/**
 * The SOS as the guard must read it: one tone, one headline, and the advice that goes with it.
 * A guard who believes help is coming does not call anyone else, so the tick stands only when
 * the server says, recently, that the SOS is in hand; nobody accepting (`escalated`,
 * `unresponsive`), nobody near, or a status the kiosk cannot read each take it away.
 */
export function panicView(panic: PanicStatus, around: PanicSurroundings): PanicView {
  const nowMs = Date.parse(panic.reportedAt);
  const progress = panicProgress(panic);
  if (panicIsOver(panic)) return { tone: 'over', headline: progress[0]!, progress, advice: [] };
  const uncovered = knownUncovered(around.coverage);
  if (panic.delivery === 'refused') return { tone: 'alarm', headline: { key: 'panic.refused' }, progress: [], advice: raiseAlarm(around.alarmPhones) };
  if (panic.delivery === 'retrying') return { tone: 'alarm', headline: { key: 'panic.notSent' }, progress: [], advice: raiseAlarm(around.alarmPhones) };
  if (panic.delivery === 'sending') {
    return { tone: 'sending', headline: { key: 'panic.sending' }, progress: [], advice: uncovered ? raiseAlarm(around.alarmPhones, 'panic.noCoverageNow') : [] };
  }
  const staleMs = panic.statusCheckedAt ? nowMs - Date.parse(panic.statusCheckedAt) : 0;
  if (!around.online || staleMs > STATUS_STALE_MS) {
    return { tone: 'unknown', headline: { key: 'panic.unknown' }, progress, advice: staleMs > STATUS_STALE_MS ? raiseAlarm(around.alarmPhones) : [] };
  }
  // Nobody near the gate: "still calling more responders" would be untrue (issue #35), so the
  // line goes; the status bar already says no responder is near.
  const calling = uncovered && !panic.responder ? [] : progress;
  if (!panic.responder && panic.incidentStatus === 'unresponsive') {
    return { tone: 'alarm', headline: { key: 'panic.nobodyUrgent' }, progress: calling, advice: [...raiseAlarm(around.alarmPhones, 'panic.callNowUrgent'), ...notTexted(around)] };
  }
  if (!panic.responder && panic.incidentStatus === 'escalated') {
    return { tone: 'alarm', headline: { key: 'panic.nobody' }, progress: calling, advice: [...raiseAlarm(around.alarmPhones), ...notTexted(around)] };
  }
  if (!panic.responder && uncovered) {
    return { tone: 'alarm', headline: { key: 'panic.sentNoCoverage' }, progress, advice: raiseAlarm(around.alarmPhones, 'panic.noCoverageNow') };
  }
  return { tone: 'sent', headline: { key: 'panic.sent' }, progress, advice: [] };
}

/** The banner's view of the SOS: panicView's, and whether it also says that no responder is near the gate. */
export interface PanicBannerView extends PanicView {
  /** The banner says no responder is near this gate, so the status bar's own line on it gives way. */
  saysCoverage: boolean;
}

/**
 * What the banner over every screen says: panicView's headline, progress and advice and, while
 * the SOS is not in hand at a gate no responder covers, that too. The status bar's "No
 * responders near this gate" line then gives way to it: one red bar, not two, which on a 600 px
 * screen left the rail no room for the guard on duty (issue #35). Nothing either said is lost:
 * "raise the alarm another way" becomes "No responder is near this gate: raise the alarm another
 * way now", and the estate's numbers stay. Once a responder has the SOS (or it is over) the
 * coverage is about the next emergency, and stays the status bar's.
 */
export function panicBannerView(panic: PanicStatus, around: PanicSurroundings): PanicBannerView {
  const view = panicView(panic, around);
  if (!knownUncovered(around.coverage) || view.tone === 'sent' || view.tone === 'over') return { ...view, saysCoverage: false };
  const said = view.headline.key === 'panic.sentNoCoverage' || view.advice.some((line) => line.key === 'panic.noCoverageNow');
  if (said) return { ...view, saysCoverage: true };
  const [first, ...rest] = view.advice;
  const advice: PanicLine[] =
    first?.key === 'panic.raiseAlarm'
      ? [{ key: 'panic.noCoverageNow' }, ...rest]
      : // The most urgent advice first ("Call for help yourself NOW"), then why, then the numbers.
        [...(first ? [first] : []), { key: 'panic.noResponderNear' }, ...rest];
  return { ...view, advice, saysCoverage: true };
}
