import type { OutboxAction } from '../outbox.ts';
import type { Sent } from '../state.ts';

// 24-hour, as the kiosk and the console write times ("18:04", never "06:04 PM"): issue #48.
const CLOCK = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const time = (iso: string) => CLOCK.format(new Date(iso));

/** Always on screen: whether the server answers, what waits on this phone, and what was sent last. */
export function OutboxBar({ waiting, sent, linkUp }: { waiting: OutboxAction[]; sent: Sent[]; linkUp: boolean }) {
  const shown = waiting;
  return (
    <footer className={`outbox ${linkUp ? 'up' : 'down'}`} data-testid="outbox" aria-live="polite">
      <p className="link" data-testid="link-status">
        {linkUp ? 'Connected' : 'No connection: your actions are kept on this phone and sent when it returns'}
      </p>
      {shown.length > 0 && (
        <ul data-testid="outbox-waiting">
          {shown.map((action) => (
            <li key={action.id}>
              Waiting to send: {action.label}
              {action.attempts > 0 ? ` (tried ${action.attempts}×)` : ''}
            </li>
          ))}
        </ul>
      )}
      {shown.length === 0 && sent[0] && (
        <p className="sent" data-testid="outbox-sent">
          Sent: {sent[0].label} at {time(sent[0].at)}
        </p>
      )}
    </footer>
  );
}
