import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState, type ComponentType } from 'react';
import { ApiError, createClient, describeError, type Environment } from './api.ts';
import { Console, canFor, type ConsoleContext, type Session } from './context.tsx';
import { LiveStream } from './live/stream.ts';
import { navigate, usePath } from './router.tsx';
import { BoardScreen } from './live/board.tsx';
import { IncidentScreen } from './live/incident.tsx';
import { JoinScreen } from './session/join.tsx';
import { forgetOrganization, keepOrganization, keptOrganization, organizationToOpen } from './session/organization.ts';
import { Layout } from './components/layout.tsx';
import { SiteScopeProvider } from './sites/site-scope.tsx';
import { AuthFrame, SignInScreen, TotpScreen } from './session/sign-in.tsx';
import { RecoveryCodes, TotpEnrolment } from './session/totp-enrol.tsx';
import { OperationsApp } from './operations/app.tsx';

type Auth = { status: 'loading' } | { status: 'out'; notice: string | null } | { status: 'in'; session: Session };
/**
 * The organization worked in asks for a second step this session has not passed (issue #46): met
 * on switching to it (`from`: where the person came from, to go back to) or when a route answered
 * 401 for it (its policy changed meanwhile).
 */
type SecondStepDue = { from: { organizationId: string; name: string } | null };

const ENVIRONMENT_KEY = 'tsaro.console.environment';

/**
 * A 401 or the stream closing says the session ended, unless the person is already out: their
 * own sign-out closes the stream too, and "You are signed out" must not turn into "ended elsewhere".
 */
const sessionEnded = (current: Auth): Auth =>
  current.status === 'out' ? current : { status: 'out', notice: 'Your session ended: signed out elsewhere, removed, or idle too long. Sign in again.' };
const storedEnvironment = (): Environment => (localStorage.getItem(ENVIRONMENT_KEY) === 'sandbox' ? 'sandbox' : 'live');

/**
 * Every screen but the board and an incident loads when first opened: a control room on a slow
 * link sees its board sooner. zod (the shared schemas some screens check input with) comes with
 * them, after its configuration: the CSP forbids eval, and zod must know before a schema loads.
 */
function screen<M>(load: () => Promise<M>, pick: (module: M) => ComponentType<any>) {
  return lazy(async () => {
    await import('./zod-config.ts');
    return { default: pick(await load()) };
  });
}
const AccountScreen = screen(() => import('./session/account.tsx'), (m) => m.AccountScreen);
const ApiKeysScreen = screen(() => import('./integrations/api-keys.tsx'), (m) => m.ApiKeysScreen);
const AuditLogScreen = screen(() => import('./people/audit-log.tsx'), (m) => m.AuditLogScreen);
const EndpointScreen = screen(() => import('./integrations/endpoint.tsx'), (m) => m.EndpointScreen);
const EventsScreen = screen(() => import('./integrations/events.tsx'), (m) => m.EventsScreen);
const GatesScreen = screen(() => import('./kiosks/gates.tsx'), (m) => m.GatesScreen);
const KiosksScreen = screen(() => import('./kiosks/kiosks.tsx'), (m) => m.KiosksScreen);
const PeopleScreen = screen(() => import('./people/people.tsx'), (m) => m.PeopleScreen);
const ReportsScreen = screen(() => import('./live/reports.tsx'), (m) => m.ReportsScreen);
const WebhooksScreen = screen(() => import('./integrations/webhooks.tsx'), (m) => m.WebhooksScreen);
const VisitorsScreen = screen(() => import('./visitors/visitors.tsx'), (m) => m.VisitorsScreen);
const SitesScreen = screen(() => import('./sites/sites.tsx'), (m) => m.SitesScreen);
const OrganizationScreen = screen(() => import('./organization/organization.tsx'), (m) => m.OrganizationScreen);
/** The map's code and borders load with the map, not with the board. */
const ThreatMapScreen = screen(() => import('./threat/threat-map.tsx'), (m) => m.default);
const VISITORS_TABS = ['on-site', 'codes', 'logs', 'roll-call'] as const;
const isVisitorsTab = (value: string): value is (typeof VISITORS_TABS)[number] => (VISITORS_TABS as readonly string[]).includes(value);
/**
 * The visitor screens lived under /sites/{tab} until "site" came to mean an estate: old links
 * and bookmarks still land on the same tab. `/sites` itself is now the sites screen.
 */
const movedFrom = (path: string): string | null => (/^\/sites\/(on-site|codes|logs|roll-call)(\/|$)/.test(path) ? path.replace(/^\/sites/, '/visitors') : null);

/** Where a person lands: a developer at the keys, everyone else in the control room. */
const homeFor = (session: Session): string => (session.person.role === 'developer' ? '/keys' : '/board');

/** Which screen a path shows, for a signed-in person. */
function screenFor(path: string) {
  const endpoint = /^\/webhooks\/([^/]+)$/.exec(path);
  if (endpoint) return <EndpointScreen endpointId={decodeURIComponent(endpoint[1]!)} />;
  const incident = /^\/incidents\/([^/]+)$/.exec(path);
  if (incident) return <IncidentScreen incidentId={decodeURIComponent(incident[1]!)} />;
  const rollCall = /^\/visitors\/roll-call\/([^/]+)$/.exec(path);
  if (rollCall) return <VisitorsScreen tab="roll-call" rollCallId={decodeURIComponent(rollCall[1]!)} />;
  const visitors = /^\/visitors(?:\/([^/]+))?$/.exec(path);
  if (visitors && (!visitors[1] || isVisitorsTab(visitors[1]))) return <VisitorsScreen tab={visitors[1] && isVisitorsTab(visitors[1]) ? visitors[1] : 'on-site'} />;
  switch (path) {
    case '/board':
      return <BoardScreen />;
    case '/sites':
      return <SitesScreen />;
    case '/reports':
      return <ReportsScreen />;
    case '/kiosks':
      return <KiosksScreen />;
    case '/map':
      return <ThreatMapScreen />;
    case '/keys':
      return <ApiKeysScreen />;
    case '/webhooks':
      return <WebhooksScreen />;
    case '/events':
      return <EventsScreen />;
    case '/gates':
      return <GatesScreen />;
    case '/people':
      return <PeopleScreen />;
    case '/audit-log':
      return <AuditLogScreen />;
    case '/organization':
      return <OrganizationScreen />;
    case '/account':
      return <AccountScreen />;
    default:
      return (
        <div className="stack">
          <h1>No such page</h1>
          <p>
            Nothing lives at <code>/console{path}</code>. Pick a screen on the left.
          </p>
        </div>
      );
  }
}

export function App() {
  const path = usePath();
  const [auth, setAuth] = useState<Auth>({ status: 'loading' });
  const [environment, setEnvironmentState] = useState<Environment>(storedEnvironment);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  /** Why the console works in another organization than the one chosen (the person left it). */
  const [organizationNotice, setOrganizationNotice] = useState<string | null>(null);
  const [secondStepDue, setSecondStepDue] = useState<SecondStepDue | null>(null);

  // The client reads the latest token, environment and organization through refs: one client for the page's life.
  const session = auth.status === 'in' ? auth.session : null;
  const sessionNow = useRef(session);
  sessionNow.current = session;
  const csrf = useRef<string | undefined>(undefined);
  csrf.current = session?.csrf_token;
  const env = useRef(environment);
  env.current = environment;
  // The organization worked in (`Tsaro-Organization`): at first the one kept from last time.
  const organization = useRef(keptOrganization());
  /**
   * Signed out, no organization is named: the next sign-in (perhaps another person's, at a shared
   * control-room screen) answers in the first they joined, and `settle` opens the kept one if theirs.
   */
  const goOut = useCallback((next: (current: Auth) => Auth) => {
    organization.current = undefined;
    setSecondStepDue(null);
    setAuth(next);
  }, []);
  /** A 401 from a data route or the stream (`sessionChallenged`, set below once its helpers exist). */
  const onUnauthorized = useRef<() => void>(() => goOut(sessionEnded));
  const client = useMemo(
    () =>
      createClient({
        csrfToken: () => csrf.current,
        environment: () => env.current,
        organization: () => organization.current,
        onSessionEnded: () => onUnauthorized.current(),
      }),
    [goOut],
  );

  /** A session answered: worked in from now on, or, just signed in, the organization kept from last time if still theirs. */
  const settle = useCallback(
    async (answered: Session) => {
      let next = answered;
      const open = organizationToOpen(next, keptOrganization());
      if (open) {
        organization.current = open;
        // Left it between the two reads: where the sign-in answered.
        next = await client.get('/console/session').then(({ session: reopened }) => reopened, () => next);
      }
      organization.current = next.organization.organization_id;
      if (next.stage === 'active') keepOrganization(organization.current);
      setAuth({ status: 'in', session: next });
    },
    [client],
  );

  useEffect(() => {
    const read = () => client.get('/console/session');
    read()
      .catch((error: unknown) => {
        // The organization kept from last time is no longer theirs: the one they joined first.
        if (error instanceof ApiError && error.status === 404 && organization.current) {
          forgetOrganization();
          organization.current = undefined;
          return read();
        }
        throw error;
      })
      .then(
        ({ session: next }) => settle(next),
        (error: unknown) => goOut(() => ({ status: 'out', notice: error instanceof ApiError && error.status !== 401 ? error.message : null })),
      );
  }, [client, settle, goOut]);

  const setEnvironment = useCallback((next: Environment) => {
    localStorage.setItem(ENVIRONMENT_KEY, next);
    env.current = next;
    setEnvironmentState(next);
  }, []);
  const onSession = useCallback(
    (next: Session) => {
      setOrganizationNotice(null);
      if (next.stage === 'active') setSecondStepDue(null);
      void settle(next);
    },
    [settle],
  );
  const signOut = useCallback(async () => {
    await client.post('/console/sign-out', { body: {} }).catch(() => undefined);
    goOut(() => ({ status: 'out', notice: 'You are signed out.' }));
    navigate('/sign-in', { replace: true });
  }, [client, goOut]);
  const refreshSession = useCallback(async () => {
    const { session: next } = await client.get('/console/session');
    setAuth({ status: 'in', session: next });
  }, [client]);
  /** Works in another of the person's organizations from the next request on: role, sites and stream follow. */
  const setOrganization = useCallback(
    async (organizationId: string) => {
      const from = organization.current;
      organization.current = organizationId;
      try {
        const { session: next } = await client.get('/console/session');
        keepOrganization(organizationId);
        setOrganizationNotice(null);
        // This organization asks the person's role here for a second step the session has not passed: its screen, with the way back.
        const came = sessionNow.current?.organizations.find((membership) => membership.organization_id === from);
        setSecondStepDue(next.stage === 'active' ? null : { from: from && came && from !== organizationId ? { organizationId: from, name: came.name } : null });
        setAuth({ status: 'in', session: next });
      } catch (error) {
        organization.current = from;
        if (error instanceof ApiError && error.status === 401) return goOut(sessionEnded);
        const name = sessionNow.current?.organizations.find((membership) => membership.organization_id === organizationId)?.name;
        if (!(error instanceof ApiError && error.status === 404)) return setOrganizationNotice(`${name} did not open: ${describeError(error)}`);
        // Removed from it since the page loaded: the switcher forgets it.
        setOrganizationNotice(`You are no longer a member of ${name}.`);
        await refreshSession().catch(() => undefined);
      }
    },
    [client, refreshSession, goOut],
  );
  /**
   * The stream was refused the organization worked in (the person was removed from it): the
   * console goes on in the one they joined first, and says why.
   */
  const organizationLost = useCallback(() => {
    const lost = sessionNow.current?.organization.name;
    forgetOrganization();
    organization.current = undefined;
    client.get('/console/session').then(
      ({ session: next }) => {
        setOrganizationNotice(`You are no longer a member of ${lost}: now working in ${next.organization.name}.`);
        void settle(next);
      },
      (error: unknown) => error instanceof ApiError && error.status === 401 && goOut(sessionEnded),
    );
  }, [client, settle, goOut]);

  /**
   * A 401 from a data route or the stream: the session ended, or the organization worked in asks
   * for a second step this session has not passed (its policy changed, issue #46). The session,
   * read again in the same organization, says which: its step's screen, or signed out.
   */
  const sessionChallenged = useCallback(() => {
    if (sessionNow.current === null) return goOut(sessionEnded);
    client.get('/console/session').then(
      ({ session: next }) => {
        if (next.stage !== 'active') setSecondStepDue((current) => current ?? { from: null });
        setAuth((current) => (current.status === 'in' ? { status: 'in', session: next } : current));
      },
      (error: unknown) => (error instanceof ApiError && error.status === 404 ? organizationLost() : goOut(sessionEnded)),
    );
  }, [client, goOut, organizationLost]);
  onUnauthorized.current = sessionChallenged;

  // One stream per signed-in person, organization and environment; closed on sign-out or a switch of either.
  const active = session?.stage === 'active' ? session : null;
  const streamOrganization = active?.organization.organization_id ?? null;
  const streaming = active ? `${active.person.person_id}:${streamOrganization}:${environment}` : null;
  const [live, setLive] = useState<LiveStream | null>(null);
  useEffect(() => {
    if (!streaming || !streamOrganization) return;
    const stream = new LiveStream(env.current, streamOrganization, { sessionEnded: () => onUnauthorized.current(), organizationLost });
    setLive(stream);
    return () => {
      stream.close();
      setLive(null);
    };
  }, [streaming]);

  const context = useMemo<ConsoleContext | null>(
    () => (session && live ? { session, client, environment, setEnvironment, setOrganization, refreshSession, signOut, can: canFor(session), live } : null),
    [session, client, environment, setEnvironment, setOrganization, refreshSession, signOut, live],
  );

  // Tsaro's own staff: a realm of its own, with its own sign-in (issue #47).
  if (path === '/staff' || path.startsWith('/staff/')) return <OperationsApp path={path} />;
  const join = /^\/join\/([^/]+)$/.exec(path);
  if (join)
    return (
      <JoinScreen
        client={client}
        token={decodeURIComponent(join[1]!)}
        onSession={(next) => {
          // Joined: work in the organization just joined, whatever was chosen before.
          keepOrganization(next.organization.organization_id);
          onSession(next);
          navigate(homeFor(next), { replace: true });
        }}
      />
    );
  if (auth.status === 'loading')
    return (
      <AuthFrame title="Tsaro Console">
        <p className="muted">Opening…</p>
      </AuthFrame>
    );
  if (auth.status === 'out') return <SignInScreen client={client} notice={auth.notice} onSession={onSession} />;
  const stage = auth.session.stage;
  const from = secondStepDue?.from;
  const back = from && (
    <button type="button" className="link" onClick={() => void setOrganization(from.organizationId)} data-testid="second-step-back">
      Back to {from.name}
    </button>
  );
  const why = secondStepDue && (
    <p data-testid="second-step-due">
      {auth.session.organization.name} asks its {auth.session.person.role}s for a code from an authenticator app,{' '}
      {stage === 'totp' ? 'and this session has not given one yet.' : 'and you have not set one up yet.'}
    </p>
  );
  if (stage === 'totp') return <TotpScreen client={client} onSession={onSession} onCancel={() => void signOut()} why={why} back={back} />;
  if (recoveryCodes)
    return (
      <AuthFrame title="Keep your recovery codes">
        <RecoveryCodes
          codes={recoveryCodes}
          onDone={() => {
            setRecoveryCodes(null);
            if (path === '/' || path === '/sign-in') navigate(homeFor(auth.session), { replace: true });
          }}
        />
      </AuthFrame>
    );
  if (stage === 'enrol_totp')
    return (
      <AuthFrame title="Set up two-step sign-in">
        {why}
        <p>
          Your role ({auth.session.person.role}) signs in with a password and a code from an authenticator app. Set it up now; it takes a minute.
        </p>
        <TotpEnrolment
          client={client}
          onEnrolled={({ session: next, recovery_codes }) => {
            setRecoveryCodes(recovery_codes);
            onSession(next);
          }}
        />
        <p className="row">
          {back}
          <button type="button" className="link" onClick={() => void signOut()}>
            Sign out
          </button>
        </p>
      </AuthFrame>
    );
  if (path === '/' || path === '/sign-in') {
    const home = homeFor(auth.session);
    queueMicrotask(() => navigate(home, { replace: true }));
    return null;
  }
  const moved = movedFrom(path);
  if (moved) {
    queueMicrotask(() => navigate(moved, { replace: true }));
    return null;
  }
  if (!context) return null;
  return (
    <Console.Provider value={context}>
      {/* The site chosen is the organization's: another organization starts from its own. */}
      <SiteScopeProvider key={context.session.organization.organization_id}>
        <Layout path={path} notice={organizationNotice && <OrganizationNotice text={organizationNotice} onDismiss={() => setOrganizationNotice(null)} />}>
          <Suspense fallback={<p className="muted">Opening…</p>}>{screenFor(path)}</Suspense>
        </Layout>
      </SiteScopeProvider>
    </Console.Provider>
  );
}

/** Why the console opened another organization than the one chosen; stays until dismissed or the next switch. */
function OrganizationNotice({ text, onDismiss }: { text: string; onDismiss: () => void }) {
  return (
    <div className="banner organization-notice" role="alert" data-testid="organization-notice">
      {text}{' '}
      <button type="button" className="link" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
