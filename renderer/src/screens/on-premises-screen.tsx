import { useCallback, useEffect, useState } from 'react';
import type { OnPremises } from '../../../shared/kiosk/calls.ts';
import { OnScreenKeyboard } from '../components/on-screen-keyboard.tsx';
import { useI18n } from '../i18n/index.tsx';
import { clockTime, duration } from '../kiosk/format.ts';
import { useKiosk } from '../kiosk/kiosk-context.tsx';

interface OnPremisesScreenProps {
  onCheckedOut(name: string): void;
  onError(message: string): void;
}

/** Who is inside, longest first; search by name, phone or host; check out with two taps. */
export function OnPremisesScreen({ onCheckedOut, onError }: OnPremisesScreenProps) {
  const { t, language } = useI18n();
  const kiosk = useKiosk();
  const [search, setSearch] = useState('');
  const [keyboard, setKeyboard] = useState(false);
  const [list, setList] = useState<OnPremises | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      const trimmed = search.trim();
      setList(await kiosk.call('onPremises', trimmed ? { search: trimmed } : {}));
    } catch (error) {
      onError((error as Error).message);
    }
  }, [kiosk, search, onError]);

  useEffect(() => {
    void load();
    const timer = window.setInterval(() => void load(), 5000);
    return () => window.clearInterval(timer);
  }, [load]);

  // The confirmation is for this moment only: it lapses if the guard walks away.
  useEffect(() => {
    if (!confirming) return;
    const timer = window.setTimeout(() => setConfirming(null), 5000);
    return () => window.clearTimeout(timer);
  }, [confirming]);

  const checkout = async (visitId: string, name: string) => {
    if (confirming !== visitId) {
      setConfirming(visitId);
      return;
    }
    setConfirming(null);
    setBusy(visitId);
    try {
      await kiosk.call('checkout', { visitId });
      onCheckedOut(name);
      await load();
    } catch (error) {
      onError((error as Error).message);
    } finally {
      setBusy(null);
    }
  };

  const visitors = list?.visitors ?? [];
  return (
    <section className={`screen on-premises-screen ${keyboard ? 'with-keyboard' : ''}`} aria-label={t('onPremises.title')}>
      <div className="on-premises-head">
        <h1>
          {t('onPremises.title')} <span className="count" data-testid="on-premises-count">{t('onPremises.count', { count: list?.total ?? 0 })}</span>
        </h1>
        <input
          className="search"
          type="search"
          inputMode="none"
          placeholder={t('onPremises.search')}
          aria-label={t('onPremises.search')}
          value={search}
          onFocus={() => setKeyboard(true)}
          onChange={(event) => setSearch(event.target.value)}
        />
        <button type="button" className="button button-secondary" onClick={() => setKeyboard((shown) => !shown)}>
          {keyboard ? t('keypad.hide') : t('keypad.show')}
        </button>
      </div>
      {list?.source === 'local' && <p className="notice">{t('onPremises.localOnly')}</p>}
      <ul className="visitor-list" data-testid="visitor-list">
        {visitors.length === 0 && <li className="empty">{search.trim() ? t('onPremises.noMatch', { search: search.trim() }) : t('onPremises.empty')}</li>}
        {visitors.map((visit) => {
          const name = visit.visitorName ?? t('result.noName');
          return (
            <li key={visit.visitId} className="visitor" data-visit-id={visit.visitId} data-name={visit.visitorName ?? ''}>
              <div className="visitor-text">
                <strong className="visitor-name">{name}</strong>
                <span>
                  {t('onPremises.since', { time: clockTime(visit.checkedInAt, language), duration: duration(visit.checkedInAt, t) })}
                  {visit.hostUserId ? ` · ${t('onPremises.visiting', { host: visit.hostUserId })}` : ''}
                </span>
                <span className="visitor-badges">
                  <span className="badge">{visit.method === 'walk_in' ? t('onPremises.walkIn') : t('onPremises.code')}</span>
                  {visit.pendingSync && <span className="badge badge-pending">{t('onPremises.pending')}</span>}
                </span>
              </div>
              <button
                type="button"
                className={`button checkout ${confirming === visit.visitId ? 'checkout-confirm' : 'button-secondary'}`}
                disabled={busy === visit.visitId}
                onClick={() => void checkout(visit.visitId, name)}
              >
                {confirming === visit.visitId ? t('onPremises.confirm', { name }) : t('onPremises.checkout')}
              </button>
            </li>
          );
        })}
      </ul>
      {keyboard && (
        <OnScreenKeyboard layout="text" onKey={(character) => setSearch((text) => text + character)} onBackspace={() => setSearch((text) => text.slice(0, -1))} />
      )}
    </section>
  );
}
