import { AccessLogs } from './access-logs.tsx';
import { Codes } from './codes.tsx';
import { OnSite } from './on-site.tsx';
import { RollCalls } from './roll-call.tsx';
import { Link } from '../router.tsx';
import { ScreenHeader } from '../components/layout.tsx';

const TABS = [
  { id: 'on-site', label: 'On site now' },
  { id: 'codes', label: 'Access codes' },
  { id: 'logs', label: 'Access logs' },
  { id: 'roll-call', label: 'Roll call' },
] as const;
export type VisitorsTab = (typeof TABS)[number]['id'];

/**
 * Visitors at the organization's entry points: who is inside, the codes that let people in, who
 * came and went, the evacuation roll call. (Under "Sites" until issue #31: a site is now an estate.)
 */
export function VisitorsScreen({ tab, rollCallId = null }: { tab: VisitorsTab; rollCallId?: string | null }) {
  return (
    <div className="stack" data-testid="screen-visitors">
      <ScreenHeader title="Visitors">Who is on site at each entry point, live; visitor codes and passes; every visit; the evacuation roll call.</ScreenHeader>
      <nav className="tabs" aria-label="Visitors">
        {TABS.map((item) => (
          <Link key={item.id} to={`/visitors/${item.id}`} aria-current={item.id === tab ? 'page' : undefined}>
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
