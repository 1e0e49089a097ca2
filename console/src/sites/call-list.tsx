import { Phone } from '../components/ui.tsx';
import type { Site } from './site-choice.ts';

/**
 * A site's name and its call list, in order, each number a `tel:` link (a tap calls from a
 * phone); or, for a site with no numbers, where to add them.
 */
export function SiteCallList({ site, testId }: { site: Site; testId: string }) {
  return (
    <div className="site-call-list" data-testid={`${testId}-site`} data-site-id={site.site_id}>
      <strong>{site.name}</strong>
      {site.call_list.length > 0 ? (
        <ol className="call-list" data-testid={`${testId}-call-list`} aria-label={`Numbers of ${site.name}`}>
          {site.call_list.map((entry, index) => (
            <li key={index}>
              {entry.name}: <Phone phone={entry.phone} />
              {!entry.texted && <NotTexted reason={entry.not_texted_reason} />}
            </li>
          ))}
        </ol>
      ) : (
        <p className="muted small">No call list yet: add its numbers under Sites.</p>
      )}
    </div>
  );
}

/** Beside a number alarm texts never reach (112, a landline): said in words, so nobody counts on a text reaching it. */
export function NotTexted({ reason }: { reason: string | null }) {
  return (
    <span className="muted small" data-testid="not-texted">
      {' '}
      (not texted: {reason ?? 'texts do not reach this number'})
    </span>
  );
}
