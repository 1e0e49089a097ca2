import { request } from 'undici';
import { isGsm7 } from '../../shared/sms-parts.ts';

/** One text to hand to the operator's gateway. */
export interface OutgoingText {
  messageId: string;
  /** E.164. */
  to: string;
  body: string;
  /** Where the gateway reports delivery, with its status placeholder (Kannel: `%d`). */
  deliveryReportUrl: string;
}

/**
 * The gateway's answer to a hand-over. `accepted`: it took the message (Kannel: `0: Accepted for
 * delivery`, or `3: Queued for later delivery` while its SMSC is away: it keeps it in its store
 * and delivers it later), and Tsaro never hands it over again. Otherwise the attempt failed and
 * is retried with backoff.
 */
export type HandOver = { accepted: true; detail: string } | { accepted: false; detail: string };

/**
 * The one seam between Tsaro and an SMS gateway: Kannel's HTTP `sendsms` today; an aggregator's
 * HTTP API would be a second implementation.
 */
export interface SmsGateway {
  readonly name: string;
  send(text: OutgoingText): Promise<HandOver>;
}


export interface KannelSettings {
  sendsmsUrl: string;
  username: string;
  password: string;
  senderId: string;
  timeoutMs?: number;
}

/**
 * Kannel's smsbox `sendsms` (GET, as its documentation shows): `dlr-mask=31` asks for every
 * delivery report (delivered, failed, buffered, accepted and rejected by the SMSC), each a GET
 * of `dlr-url` with `%d` replaced by the status. `charset=UTF-8`: the text is UTF-8, which Kannel converts
 * for the SMSC.
 */
export function kannelGateway(settings: KannelSettings): SmsGateway {
  const timeoutMs = settings.timeoutMs ?? 10_000;
  return {
    name: 'kannel',
    async send(text) {
      const url = new URL(settings.sendsmsUrl);
      url.searchParams.set('username', settings.username);
      url.searchParams.set('password', settings.password);
      url.searchParams.set('from', settings.senderId);
      url.searchParams.set('to', text.to);
      url.searchParams.set('text', text.body);
      url.searchParams.set('charset', 'UTF-8');
      // A character the GSM alphabet lacks (₦, ẹ, ọ) would reach the phone as "?": such a text goes as UCS-2.
      if (!isGsm7(text.body)) url.searchParams.set('coding', '2');
      url.searchParams.set('dlr-mask', '31');
      url.searchParams.set('dlr-url', text.deliveryReportUrl);
      try {
        const answer = await request(url, { method: 'GET', headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
        const body = (await answer.body.text()).trim().slice(0, 300);
        // 202 with "0: Accepted for delivery" or "3: Queued for later delivery".
        if (answer.statusCode >= 200 && answer.statusCode < 300 && /^[03]:/.test(body)) return { accepted: true, detail: body };
        return { accepted: false, detail: `Kannel answered ${answer.statusCode}: ${body || '(empty)'}` };
      } catch (err) {
        return { accepted: false, detail: `Kannel not reachable: ${(err as Error).message}` };
      }
    },
  };
}
