import type { PanicStatus } from '../../../shared/kiosk/calls.ts';
import type { MessageKey } from '../i18n/en.ts';

type Params = Record<string, string | number>;

export interface PanicLine {
  key: MessageKey;
  params?: Params;
}

const OVER: Record<string, MessageKey> = { resolved: 'panic.over.resolved', cancelled: 'panic.over.cancelled' };

/** The incident is over (resolved or cancelled): nothing more is coming for it. */
export function panicIsOver(panic: PanicStatus | null): boolean {
  return Boolean(panic?.incidentStatus && OVER[panic.incidentStatus]);
}

/**
 * What a sent SOS's incident means for the guard, one line each, never two that disagree: an
 * incident that is over says only that; "finding a responder" only while none is assigned; an
 * arrival time only while the responder is on the way, and "arriving now" rather than "0 min".
 */
export function panicProgress(panic: PanicStatus): PanicLine[] {
  if (panic.delivery !== 'sent') return [];
  const over = panic.incidentStatus ? OVER[panic.incidentStatus] : undefined;
  if (over) return [{ key: over }];
  const responder = panic.responder;
  if (!responder) {
    const late = panic.incidentStatus === 'escalated' || panic.incidentStatus === 'unresponsive';
    return [{ key: late ? 'panic.escalated' : 'panic.waitingResponder' }];
  }
  const lines: PanicLine[] = [{ key: 'panic.responder', params: { name: responder.name } }];
  if (panic.incidentStatus === 'on_scene') lines.push({ key: 'panic.onScene' });
  else if (responder.etaMinutes !== null) lines.push(responder.etaMinutes <= 0 ? { key: 'panic.arrivingNow' } : { key: 'panic.eta', params: { minutes: responder.etaMinutes } });
  if (responder.phone) lines.push({ key: 'panic.call', params: { phone: responder.phone } });
  return lines;
}

/** While an SOS has not reached the server: tell the guard not to wait for it. */
export function panicFallback(panic: PanicStatus, alarmPhones: string | null): PanicLine[] {
  if (panic.delivery === 'sent') return [];
  const lines: PanicLine[] = [{ key: 'panic.raiseAlarm' }];
  if (alarmPhones) lines.push({ key: 'panic.callPhones', params: { phones: alarmPhones } });
  return lines;
}
