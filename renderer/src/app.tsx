import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { PanicStatus, ScanDecision, ScanMethod, SetupStatus } from '../../shared/kiosk/calls.ts';
import { AttentionPanel } from './components/attention-panel.tsx';
import { RailLanguageButton } from './components/language-switch.tsx';
import { PanicBanner } from './components/panic-banner.tsx';
import { ResultOverlay } from './components/result-overlay.tsx';
import { StatusBar } from './components/status-bar.tsx';
import { languages, useI18n, type MessageKey } from './i18n/index.tsx';
import { newPressId } from './kiosk/format.ts';
import { useKiosk, useKioskStatus } from './kiosk/kiosk-context.tsx';
import { panicBannerView } from './kiosk/panic-words.ts';
import { OnPremisesScreen } from './screens/on-premises-screen.tsx';
import { PanicScreen } from './screens/panic-screen.tsx';
import { ScanScreen } from './screens/scan-screen.tsx';
import { SetupScreen } from './screens/setup-screen.tsx';
import { ShiftScreen } from './screens/shift-screen.tsx';
import { WalkInScreen } from './screens/walk-in-screen.tsx';
import { createSoundPlayer } from './sounds.ts';
import { traceScan } from './scanning/scan-timing.ts';
import { listenForWedgeScans } from './wedge.ts';

type Screen = 'scan' | 'walkIn' | 'onPremises' | 'panic';
const SCREENS: { id: Screen; label: MessageKey; icon: string }[] = [
  { id: 'scan', label: 'nav.scan', icon: '▣' },
  { id: 'walkIn', label: 'nav.walkIn', icon: '+' },
  { id: 'onPremises', label: 'nav.onPremises', icon: '☰' },
  { id: 'panic', label: 'nav.panic', icon: '!' },
];
const THEME_KEY = 'tsaro.theme';
const RECENT_COUNT = 5;

/** A key pressed just before the scanner started can join its burst; a signed pass starts at "TS1.". */
function passPart(text: string): string {
  const start = text.toUpperCase().indexOf('TS1.');
  return start > 0 ? text.slice(start) : text;
}

function guardLanguageKey(guardName: string): string {
  return `tsaro.language.guard.${guardName.trim().toLowerCase()}`;
}

export function App() {
  const { t, language, setLanguage } = useI18n();
  const kiosk = useKiosk();
  const live = useKioskStatus();
  const sounds = useMemo(() => createSoundPlayer(), []);
  const [setup, setSetup] = useState<SetupStatus | null>(null);
  const [screen, setScreen] = useState<Screen>('scan');
  const [decision, setDecision] = useState<ScanDecision | null>(null);
  const [checking, setChecking] = useState(false);
  const [recent, setRecent] = useState<ScanDecision[]>([]);
  const [notice, setNotice] = useState<{ text: string; kind: 'ok' | 'error' } | null>(null);
  const [attentionOpen, setAttentionOpen] = useState(false);
  const [changingGuard, setChangingGuard] = useState(false);
  const [lastPress, setLastPress] = useState<PanicStatus | null>(null);
  const [theme, setTheme] = useState(() => localStorage.getItem(THEME_KEY) ?? 'night');
  const status = live.status;
  const guardName = status?.guard?.name ?? null;

  // Each guard's language is remembered on this kiosk: the next shift gets its own back.
  useEffect(() => {
    if (!guardName) return;
    const saved = localStorage.getItem(guardLanguageKey(guardName));
    if (saved && languages.some((module) => module.language.code === saved)) setLanguage(saved);
  }, [guardName, setLanguage]);

  const loadSetup = useCallback(() => {
    kiosk
      .call('setupStatus', {})
      .then(setSetup)
      .catch(() => window.setTimeout(loadSetup, 1000));
  }, [kiosk]);
  useEffect(loadSetup, [loadSetup]);

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem(THEME_KEY, theme);
  }, [theme]);

  useEffect(() => {
    if (!notice) return;
    const timer = window.setTimeout(() => setNotice(null), 4000);
    return () => window.clearTimeout(timer);
  }, [notice]);

  const showError = useCallback((message: string) => setNotice({ text: t('error.generic', { message }), kind: 'error' }), [t]);

  // What was scanned last: "Let in anyway" on "Already inside" sends the same scan again, with the override.
  const lastScan = useRef<{ text: string; method: ScanMethod } | null>(null);
  const scan = useCallback(
    async (text: string, method: ScanMethod, overrideAlreadyInside = false) => {
      setChecking(true);
      lastScan.current = { text, method };
      try {
        traceScan('call-start');
        const answer = await kiosk.call('scan', { text, method, ...(overrideAlreadyInside ? { overrideAlreadyInside: true } : {}) });
        traceScan('call-end');
        setDecision(answer);
        setRecent((list) => [answer, ...list].slice(0, RECENT_COUNT));
        sounds.play(answer.admitted ? 'admitted' : 'refused');
        live.refresh();
      } catch (error) {
        showError((error as Error).message);
      } finally {
        setChecking(false);
      }
    },
    [kiosk, sounds, showError, live],
  );
  const scanRef = useRef(scan);
  scanRef.current = scan;

  const ready = Boolean(setup?.configured && status?.configured && status.guard);
  // A USB scanner works on every screen, once the kiosk is set up and a guard is on duty.
  useEffect(() => {
    if (!ready) return;
    return listenForWedgeScans(window, { onScan: (text) => void scanRef.current(passPart(text), 'keyboard_wedge') });
  }, [ready]);

  // "Recent" survives a reload: the kiosk's own journal of scans, not the page's memory.
  useEffect(() => {
    if (!ready) return;
    let cancelled = false;
    kiosk
      .call('recentScans', { limit: RECENT_COUNT })
      .then((list) => !cancelled && setRecent((current) => (current.length ? current : list)))
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [ready, kiosk]);

  const closeResult = useCallback(() => setDecision(null), []);

  const panic = async () => {
    try {
      const press = await kiosk.call('panicPress', { pressId: newPressId() });
      setLastPress(press);
      live.refresh();
    } catch (error) {
      showError((error as Error).message);
    }
  };

  const reportOnPanic = async (report: 'called_for_help' | 'false_alarm') => {
    const shown = status?.activePanic ?? lastPress;
    if (!shown) return;
    try {
      setLastPress(await kiosk.call('panicReport', { pressId: shown.pressId, report }));
      live.refresh();
    } catch (error) {
      showError((error as Error).message);
    }
  };

  // After the incident is over, the core stops reporting it as active: keep showing the last word on it.
  useEffect(() => {
    if (status?.activePanic || !lastPress || screen !== 'panic') return;
    let cancelled = false;
    kiosk
      .call('panicStatus', { pressId: lastPress.pressId })
      .then((latest) => !cancelled && latest && setLastPress(latest))
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [status, lastPress?.pressId, screen, kiosk]);

  if (!setup) return <div className="app app-loading">{live.coreError ? t('error.coreDown') : '…'}</div>;
  if (!setup.configured) {
    return (
      <div className="app app-setup">
        <SetupScreen setup={setup} onSaved={() => { loadSetup(); live.refresh(); }} />
      </div>
    );
  }

  const activePanic = status?.activePanic ?? null;
  const around = { online: !live.coreError && status?.online === true, coverage: status?.coverage ?? null, alarmPhones: status?.alarmPhones ?? null, untextedPhones: status?.untextedPhones ?? null };
  const banner = activePanic ? panicBannerView(activePanic, around) : null;
  return (
    <div className="app">
      <StatusBar
        status={status}
        coreError={live.coreError}
        coverageInBanner={banner?.saysCoverage ?? false}
        onOpenAttention={() => setAttentionOpen(true)}
        onSyncNow={() => void kiosk.call('syncNow', {}).then(live.refresh, () => live.refresh())}
      />
      {activePanic && banner && <PanicBanner panic={activePanic} view={banner} />}
      {/* In the flow, under the bar: a notice over the screen hid the "N inside" count and the search box. */}
      {notice && (
        <div className={`notice-toast notice-${notice.kind}`} role="status" data-testid="notice">
          {notice.text}
        </div>
      )}
      <div className="app-body">
        {status && (!status.guard || changingGuard) ? (
          <ShiftScreen
            onStarted={(name, choseLanguage) => {
              // A language chosen on this screen is the guard's from now on; otherwise their own comes back.
              if (choseLanguage) localStorage.setItem(guardLanguageKey(name), language);
              setChangingGuard(false);
              live.refresh();
            }}
            onLanguage={setLanguage}
            onCancel={status.guard ? () => setChangingGuard(false) : undefined}
            onError={showError}
          />
        ) : (
          <>
            <nav className="nav-rail" aria-label={t('nav.label')}>
              {SCREENS.map((item) => (
                <button
                  type="button"
                  key={item.id}
                  className={`nav-item nav-${item.id} ${screen === item.id ? 'nav-active' : ''}`}
                  aria-current={screen === item.id ? 'page' : undefined}
                  data-testid={`nav-${item.id}`}
                  onClick={() => setScreen(item.id)}
                >
                  <span className="nav-icon" aria-hidden="true">
                    {item.icon}
                  </span>
                  <span className="nav-label">{t(item.label)}</span>
                </button>
              ))}
              <div className="nav-spacer" />
              <div className="nav-row">
              {languages.length > 1 && (
                <RailLanguageButton
                  onChosen={(next) => {
                    setLanguage(next);
                    if (guardName) localStorage.setItem(guardLanguageKey(guardName), next);
                  }}
                />
              )}
              {/* The theme as an icon beside the language: with three languages the rail needs the room (1024x600 with the SOS banner). */}
              <button
                type="button"
                className="nav-small nav-theme"
                aria-label={theme === 'night' ? t('nav.day') : t('nav.night')}
                title={theme === 'night' ? t('nav.day') : t('nav.night')}
                onClick={() => setTheme(theme === 'night' ? 'day' : 'night')}
              >
                {theme === 'night' ? '☀' : '☾'}
              </button>
              </div>
              <button type="button" className="nav-guard" data-testid="change-guard" onClick={() => setChangingGuard(true)}>
                {status?.entryPoint && <strong>{status.entryPoint}</strong>}
                {status?.guard && <span>{t('status.guard', { name: status.guard.name })}</span>}
                <span className="nav-guard-change">{t('nav.changeGuard')}</span>
              </button>
            </nav>
            <main className="content">
              {screen === 'scan' && <ScanScreen onScan={(text, method) => void scan(text, method)} showingResult={decision !== null} checking={checking} recent={recent} />}
              {screen === 'walkIn' && (
                <WalkInScreen
                  onDone={(result, name) => {
                    sounds.play('done');
                    setNotice({ text: `${t('walkIn.done', { name })}${result.queued ? ` · ${t('walkIn.queued')}` : ''}`, kind: 'ok' });
                    live.refresh();
                  }}
                  onError={showError}
                />
              )}
              {screen === 'onPremises' && (
                <OnPremisesScreen
                  onCheckedOut={(name) => {
                    sounds.play('done');
                    setNotice({ text: t('onPremises.checkedOut', { name }), kind: 'ok' });
                    live.refresh();
                  }}
                  onError={showError}
                />
              )}
              {screen === 'panic' && <PanicScreen panic={activePanic ?? lastPress} around={around} onPanic={() => void panic()} onReport={(report) => void reportOnPanic(report)} />}
            </main>
          </>
        )}
        {decision && (
          <ResultOverlay
            decision={decision}
            onDone={closeResult}
            onLetInAnyway={() => {
              const last = lastScan.current;
              if (last) void scan(last.text, last.method, true);
            }}
          />
        )}
        {attentionOpen && (
          <AttentionPanel
            items={status?.attention ?? []}
            onClose={() => setAttentionOpen(false)}
            onDismiss={(attentionId) => {
              void kiosk.call('dismissAttention', { attentionId }).then(live.refresh, (error: Error) => showError(error.message));
            }}
          />
        )}
      </div>
    </div>
  );
}
