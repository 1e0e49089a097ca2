import type { Schemas } from '../api.ts';
import { useLoad } from '../context.tsx';

type TextGateway = Schemas['TextGateway'];

const counted = (n: number, one: string, many: string) => `${n.toLocaleString('en-GB')} ${n === 1 ? one : many}`;

/**
 * What the hourly ceilings held back in the last hour, in a sentence, or null when they held back
 * nothing: host texts held (never sent), alarms merged into one text per number.
 */
export function ceilingSentence(gateway: TextGateway | undefined): string | null {
  if (!gateway?.enabled) return null;
  const { held, merged } = gateway.last_hour;
  const { per_recipient_per_hour: perNumber, per_organization_per_hour: perOrganization, alarm_merge_seconds: mergeS } = gateway.ceilings;
  const parts = [
    held > 0 ? `${counted(held, "host's text was", "hosts' texts were")} held, not sent` : null,
    merged > 0 ? `${counted(merged, 'alarm was', 'alarms were')} merged: each number is sent them as one text naming how many, at most one every ${mergeS} s` : null,
  ].filter((part) => part !== null);
  if (!parts.length) return null;
  return `Texts over the hourly ceiling (${perNumber.toLocaleString('en-GB')} to one number, ${perOrganization.toLocaleString('en-GB')} for the organization) in the last hour: ${parts.join('; ')}.`;
}

/** The ceilings' note, where texts are shown: nothing while they held nothing back. */
export function TextCeilingNote({ gateway }: { gateway: TextGateway | undefined }) {
  const sentence = ceilingSentence(gateway);
  if (!sentence) return null;
  return (
    <div className="alert-bar warn" role="status" data-testid="texts-over-ceiling">
      {sentence}
    </div>
  );
}

/** On the board: the same note, read when the board opens. */
export function TextCeilingAlert() {
  const gateway = useLoad((c) => c.get('/messages/gateway'), []);
  return <TextCeilingNote gateway={gateway.data} />;
}
