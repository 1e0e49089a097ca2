import QRCode from 'qrcode';
import type { AccessCodeRow } from '../db/schema.ts';

/**
 * The visitor's pass as one SVG image (issue #48), what the link in their text opens: the
 * organization's name, the visitor's, the QR code of the signed pass (which a kiosk decides even
 * offline), the code to type, when it works, where and what for, as the console's printed pass shows them
 * (console/src/visitors/pass.tsx). Every caller's word is XML-escaped text: no markup, no script.
 */

const WIDTH = 360;
const QR_SIZE = 280;

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** A line cut to what the pass's width holds at its size, with an ellipsis: an image does not wrap. */
const fit = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text);

/** A time as the pass says it, in the site's time zone: "29 Nov 2026, 14:05". */
function passTime(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone }).format(new Date(iso));
}

export async function passImage(row: AccessCodeRow, names: { organization: string; site: string | undefined; timeZone: string }): Promise<string> {
  const qr = await QRCode.toString(row.qr_payload, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  // The QR code's own SVG, placed inside the pass as a nested image of its size.
  const placedQr = qr.replace(/^<svg /, `<svg x="${(WIDTH - QR_SIZE) / 2}" y="96" width="${QR_SIZE}" height="${QR_SIZE}" `);
  const where = [row.entry_point, names.site].filter(Boolean).join(', ');
  const uses = Number(row.max_uses) > 1 ? `${row.max_uses} entries` : 'one entry';
  const lines: Array<[number, string, string]> = [
    [32, fit(`${names.organization} · VISITOR PASS`, 44), 'font-size="13" letter-spacing="1" fill="#555"'],
    [70, fit(row.visitor_name ?? 'Visitor', 26), 'font-size="24" font-weight="700"'],
    [410, row.code, 'font-size="30" font-weight="700" font-family="monospace" letter-spacing="2"'],
    [440, `Valid ${passTime(row.valid_from, names.timeZone)}`, 'font-size="14"'],
    [460, `to ${passTime(row.valid_until, names.timeZone)}, ${uses}`, 'font-size="14"'],
    [482, where ? fit(`At ${where}`, 46) : '', 'font-size="14"'],
    [504, row.purpose ? fit(`Purpose: ${row.purpose}`, 46) : '', 'font-size="14"'],
    [536, 'Show the QR code at the gate, or tell the guard the code.', 'font-size="12" fill="#555"'],
  ];
  const text = lines
    .filter(([, words]) => words !== '')
    .map(([y, words, style]) => `<text x="${WIDTH / 2}" y="${y}" text-anchor="middle" ${style}>${escapeXml(words)}</text>`)
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="560" viewBox="0 0 ${WIDTH} 560" font-family="sans-serif" role="img" aria-label="${escapeXml(`Visitor pass ${row.code}`)}">` +
    `<rect width="100%" height="100%" fill="#fff"/>${placedQr}${text}</svg>`
  );
}
