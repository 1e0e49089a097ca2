import type { Schemas } from '../api.ts';
import { Qr } from '../components/ui.tsx';
import { formatTime } from '../format.ts';
import { SendPassByText } from './send-pass.tsx';

type Code = Schemas['AccessCode'];

/**
 * A visitor's pass, as printed: the QR code (the signed pass a kiosk decides even offline), the
 * code to type, the name, when it works and where. Printing shows this alone (styles.css, @media print).
 */
export function PrintablePass({ code, organization, onClose }: { code: Code; organization: string; onClose: () => void }) {
  return (
    <div className="pass-sheet" data-testid="pass">
      <div className="pass">
        <p className="eyebrow">{organization} · visitor pass</p>
        <h2>{code.visitor_name ?? 'Visitor'}</h2>
        <Qr text={code.qr_payload} label={`QR code of the pass for ${code.visitor_name ?? 'the visitor'}`} />
        <p className="pass-code" data-testid="pass-code">
          {code.code}
        </p>
        <p>
          Valid {formatTime(code.valid_from)} to {formatTime(code.valid_until)}
          {code.max_uses > 1 ? `, ${code.max_uses} entries` : ', one entry'}
        </p>
        {code.entry_point && <p>At {code.entry_point}</p>}
        {code.host_user_id && <p>Visiting {code.host_user_id}</p>}
        {code.purpose && <p>Purpose: {code.purpose}</p>}
        <p className="muted">Show the QR code at the gate, or tell the guard the code.</p>
      </div>
      <p className="row no-print">
        <button type="button" className="primary" onClick={() => window.print()}>
          Print
        </button>
        <SendPassByText code={code} />
        <button type="button" onClick={onClose}>
          Close
        </button>
      </p>
    </div>
  );
}
