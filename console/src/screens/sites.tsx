import { AccessLogs } from '../sites/access-logs.tsx';
import { Codes } from '../sites/codes.tsx';
import { OnSite } from '../sites/on-site.tsx';
import { RollCalls } from '../sites/roll-call.tsx';
import { Link } from '../router.tsx';
import { ScreenHeader } from './layout.tsx';

const TABS = [
  { id: 'on-site', label: 'On site now' },
  { id: 'codes', label: 'Access codes' },
  { id: 'logs', label: 'Access logs' },
  { id: 'roll-call', label: 'Roll call' },
] as const;
export type SitesTab = (typeof TABS)[number]['id'];

/** A security company's estates are its entry points: who is inside, the codes that let people in, and who came and went. */
export function SitesScreen({ tab, rollCallId = null }: { tab: SitesTab; rollCallId?: string | null }) {
  return (
    <div className="stack" data-testid="screen-sites">
      <ScreenHeader title="Sites">Who is on site at each entry point, live; visitor codes and passes; every visit; the evacuation roll call.</ScreenHeader>
      <nav className="tabs" aria-label="Sites">
        {TABS.map((item) => (
          <Link key={item.id} to={`/sites/${item.id}`} aria-current={item.id === tab ? 'page' : undefined}>
            {item.label}
          </Link>
        ))}
      </nav>
      {tab === 'on-site' && <OnSite />}
      {tab === 'codes' && <Codes />}
      {tab === 'logs' && <AccessLogs />}
      {tab === 'roll-call' && <RollCalls rollCallId={rollCallId} />}
    </div>
  );
}
