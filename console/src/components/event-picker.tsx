import { WEBHOOK_EVENT_TYPES, WEBHOOK_WILDCARDS } from '../../../shared/schemas/webhooks.ts';
import { eventSentence } from '../../../shared/console/sentences.ts';

/** Wildcards first (they cover types added later), then each type, each with what it means. */
export const EVENT_CHOICES: readonly string[] = [...WEBHOOK_WILDCARDS, ...WEBHOOK_EVENT_TYPES];
export const EVENT_TYPES: readonly string[] = WEBHOOK_EVENT_TYPES;

export function EventPicker({ chosen, onChange, idPrefix }: { chosen: Set<string>; onChange: (next: Set<string>) => void; idPrefix: string }) {
  return (
    <fieldset className="checklist">
      <legend>Events to send</legend>
      {EVENT_CHOICES.map((type) => (
        <label key={type} className="check" htmlFor={`${idPrefix}-${type}`}>
          <input
            id={`${idPrefix}-${type}`}
            type="checkbox"
            checked={chosen.has(type)}
            onChange={(e) => {
              const next = new Set(chosen);
              if (e.target.checked) next.add(type);
              else next.delete(type);
              onChange(next);
            }}
          />
          <span>
            <code>{type}</code> <span className="muted">{eventSentence(type)}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}
