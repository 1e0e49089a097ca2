import { DutyScreen } from './screens/duty.tsx';
import { IncidentScreen } from './screens/incident.tsx';
import { NoticeScreen } from './screens/notice.tsx';
import { OfferScreen } from './screens/offer.tsx';
import { OutboxBar } from './screens/outbox-bar.tsx';
import { SafetyBar } from './screens/safety.tsx';
import { SignInScreen } from './screens/sign-in.tsx';
import { useResponder } from './use-responder.ts';
import { beatHeard } from './presence.ts';

/** One screen at a time, chosen by what the responder has in hand: sign-in, a notice, an incident, an offer, or the duty switch. */
export function App() {
  const { state, waiting, linkUp, location, now, actions } = useResponder();
  if (!state.token) return <SignInScreen notice={state.notice} onSignIn={actions.signIn} />;
  let screen;
  if (state.notice) screen = <NoticeScreen notice={state.notice} onDismiss={actions.dismissNotice} />;
  else if (state.work) screen = <IncidentScreen key={state.work.incident.incident_id} work={state.work} onMyWay={actions.onMyWay} onScene={actions.onScene} onResolve={actions.resolve} />;
  else if (state.offer)
    screen = (
      <OfferScreen
        offer={state.offer}
        from={location.position ?? state.lastBeat ?? state.responder?.location ?? null}
        now={now}
        onAccept={actions.accept}
        onDecline={actions.decline}
      />
    );
  else screen = <DutyScreen responder={state.responder} onDuty={state.onDuty} location={location} now={now} heard={beatHeard(state)} onDutyChange={actions.setDuty} />;
  return (
    <div className="app">
      {screen}
      <SafetyBar token={state.token} now={now} onDuty={state.onDuty} onScene={state.work?.step === 'on_scene'} onBackInService={actions.beatNow} />
      <OutboxBar waiting={waiting} sent={state.sent} linkUp={linkUp} />
    </div>
  );
}
