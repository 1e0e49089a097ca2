import type { ReactNode } from 'react';
import { useConsole } from '../context.tsx';
import { useNow, useStreamStatus } from '../live/hooks.ts';
import { clock } from '../live/incidents.ts';
import { Link } from '../router.tsx';
import { SiteOptions } from '../sites/site-field.tsx';
import { useSiteScope } from '../sites/site-scope.tsx';

interface NavItem {
  to: string;
  label: string;
  show: boolean;
}

/** The frame of every signed-in screen: who, which organization, which environment, where to go; `notice` goes with the banners. */
export function Layout({ path, notice, children }: { path: string; notice?: ReactNode; children: ReactNode }) {
  const { session, environment, setEnvironment, signOut, can } = useConsole();
  const { organization, person } = session;
  const sandbox = environment === 'sandbox';
  const nav: NavItem[] = [
    { to: '/board', label: 'Live board', show: true },
    { to: '/sites', label: 'Sites', show: true },
    { to: '/visitors', label: 'Visitors', show: true },
    { to: '/kiosks', label: 'Kiosks', show: true },
    { to: '/map', label: 'Threat map', show: true },
    { to: '/reports', label: 'Reports', show: true },
    { to: '/keys', label: 'API keys', show: can('readIntegrations') },
    { to: '/webhooks', label: 'Webhooks', show: can('readIntegrations') },
    { to: '/events', label: 'Events', show: can('readIntegrations') },
    { to: '/gates', label: 'Gates', show: can('readIntegrations') },
    { to: '/people', label: 'People', show: can('managePeople') },
    { to: '/audit-log', label: 'Audit log', show: can('readAuditLog') },
    { to: '/organization', label: 'Organization', show: can('renameOrganization') },
    { to: '/account', label: 'Account', show: true },
  ];
  return (
    <div className={`shell env-${environment}`} data-environment={environment}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      {sandbox && (
        <div className="banner sandbox-banner" role="note" data-testid="sandbox-banner">
          <strong>Sandbox.</strong> Test data only: keys start <code>svc_test_</code>, incidents go to simulated responders, nothing reaches a real gate or
          a real person.
        </div>
      )}
      {organization.plan === 'none' && (
        <div className="banner plan-banner" role="alert" data-testid="plan-banner">
          <strong>{organization.name} has no plan.</strong> The API answers 402 to every data route, keys included, until a plan is chosen. Ask Tsaro to
          set one.
        </div>
      )}
      {organization.plan !== 'none' && organization.subscription_status === 'suspended' && (
        <div className="banner plan-banner" role="alert" data-testid="plan-banner">
          <strong>{organization.name}'s subscription is suspended.</strong> The API answers 402 to every data route until it is resumed. Contact Tsaro
          billing.
        </div>
      )}
      {notice}
      <header className="topbar">
        <Link to="/board" className="brand">
          <img src="/console/icon.svg" alt="" width="28" height="28" />
          <span>Tsaro</span>
        </Link>
        <OrganizationSwitch />
        <div className="env-switch" role="group" aria-label="Environment">
          <button type="button" aria-pressed={!sandbox} className={!sandbox ? 'on' : ''} onClick={() => setEnvironment('live')} data-testid="env-live">
            Live
          </button>
          <button type="button" aria-pressed={sandbox} className={sandbox ? 'on sandbox' : ''} onClick={() => setEnvironment('sandbox')} data-testid="env-sandbox">
            Sandbox
          </button>
        </div>
        <SiteSwitch />
        <StreamPill />
        {/* Who and Sign out stay together when the bar wraps (a tablet held upright). */}
        <span className="who">
          <span>
            {person.name || person.email} <span className="tag">{person.role}</span>
          </span>
          <button type="button" className="link" onClick={() => void signOut()}>
            Sign out
          </button>
        </span>
      </header>
      <div className="body">
        <nav className="sidenav" aria-label="Console">
          <ul>
            {nav
              .filter((item) => item.show)
              .map((item) => (
                <li key={item.to}>
                  <Link to={item.to} aria-current={path === item.to || path.startsWith(`${item.to}/`) ? 'page' : undefined}>
                    {item.label}
                  </Link>
                </li>
              ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          <SiteScreen>{children}</SiteScreen>
        </main>
      </div>
    </div>
  );
}

/**
 * The organization worked in: its name, or, for a person who belongs to several (a control room
 * serving several estate companies), a choice of them, each with their role there. Choosing one
 * sends `Tsaro-Organization` from then on; role, sites and screens follow, without signing in again.
 */
function OrganizationSwitch() {
  const { session, setOrganization } = useConsole();
  const { organization, organizations } = session;
  if (organizations.length <= 1)
    return (
      <span className="org" data-testid="organization">
        {organization.name}
      </span>
    );
  return (
    <label className="org-switch">
      <span className="visually-hidden">Organization</span>
      {/* A long name is cut in the bar (a tablet held upright): the title gives it whole. */}
      <select value={organization.organization_id} title={organization.name} onChange={(event) => void setOrganization(event.target.value)} data-testid="organization-switch">
        {organizations.map((org) => (
          <option key={org.organization_id} value={org.organization_id}>
            {org.name} ({org.role})
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * The site the screens show: "All sites" (for a person who may see every site) and each site not
 * archived. Not shown with one site to choose; a person limited to one site sees its name.
 */
function SiteSwitch() {
  const { choices, mayChooseAll, chosen, choose } = useSiteScope();
  if (choices.length <= 1)
    return !mayChooseAll && chosen ? (
      <span className="site-name" data-testid="site-name">
        {chosen.name}
      </span>
    ) : null;
  return (
    <label className="site-switch">
      <span className="visually-hidden">Site</span>
      <select value={chosen?.site_id ?? ''} onChange={(event) => choose(event.target.value || null)} data-testid="site-switch">
        {mayChooseAll && <option value="">All sites</option>}
        <SiteOptions sites={choices} />
      </select>
    </label>
  );
}

/** A screen once the sites are known: none reads every site's data before the choice is applied. */
function SiteScreen({ children }: { children: ReactNode }) {
  const { ready } = useSiteScope();
  return ready ? children : <p className="muted">Opening…</p>;
}

/** A screen's heading, its one-line purpose, and its main action on the right. */
export function ScreenHeader({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  const { environment } = useConsole();
  return (
    <div className="screen-header">
      <div>
        <h1>
          {title} {environment === 'sandbox' && <span className="tag env-sandbox">Sandbox</span>}
        </h1>
        {children && <p className="muted">{children}</p>}
      </div>
      {action && <div className="actions">{action}</div>}
    </div>
  );
}

// "Up to date", not "Live": beside the Live/Sandbox switch that word read as the environment (issue #34).
const STREAM_WORDS = { connecting: 'Connecting…', open: 'Up to date', reconnecting: 'Reconnecting', ended: 'Signed out' } as const;

/** Whether changes are arriving: a control room must know when its screen has gone stale. */
function StreamPill() {
  const status = useStreamStatus();
  const now = useNow();
  const broken = status.state === 'reconnecting' || status.state === 'ended';
  return (
    <span
      className={`stream-pill ${status.state}`}
      role="status"
      data-testid="stream-status"
      data-state={status.state}
      title={status.detail ?? (status.leader ? 'This tab holds the connection' : 'Another console tab holds the connection and shares it')}
    >
      <span className="dot" aria-hidden="true" />
      {STREAM_WORDS[status.state]}
      {broken && ` ${clock(now - status.since)}: changes may be missing until it is back`}
    </span>
  );
}
