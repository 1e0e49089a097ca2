import { useEffect, useState } from 'react';
import type { ScanDecision, ScanMethod } from '../../../shared/kiosk/calls.ts';
import { CameraView } from '../components/camera-view.tsx';
import { OnScreenKeyboard } from '../components/on-screen-keyboard.tsx';
import { useI18n } from '../i18n/index.tsx';
import { clockTime, normalizeTypedCode } from '../kiosk/format.ts';
import { REASON_TEXT } from '../kiosk/words.ts';

const KEYPAD_IDLE_MS = 60_000;

interface ScanScreenProps {
  onScan(text: string, method: ScanMethod): void;
  /** The answer is on screen: the camera keeps watching but passes nothing on. */
  showingResult: boolean;
  checking: boolean;
  recent: ScanDecision[];
}

/** The camera, always on; a large keypad for a code read aloud or printed; the last answers. */
export function ScanScreen({ onScan, showingResult, checking, recent }: ScanScreenProps) {
  const { t, language } = useI18n();
  const [typing, setTyping] = useState(false);
  const [typed, setTyped] = useState('');

  // A keypad left open goes back to the camera view after a minute without a key.
  useEffect(() => {
    if (!typing) return;
    const timer = window.setTimeout(() => {
      setTyping(false);
      setTyped('');
    }, KEYPAD_IDLE_MS);
    return () => window.clearTimeout(timer);
  }, [typing, typed]);

  const submitTyped = () => {
    const code = normalizeTypedCode(typed);
    if (!code) return;
    setTyped('');
    setTyping(false);
    onScan(code, 'keypad');
  };

  return (
    <section className="screen scan-screen" aria-label={t('scan.title')}>
      <div className="scan-camera">
        {/* Still reading under the keypad: a visitor may hold up the pass while the guard types. */}
        <CameraView onDecode={(text) => onScan(text, 'camera')} paused={showingResult} />
      </div>
      <div className="scan-side">
        <button type="button" className="button button-primary button-huge" data-testid="open-keypad" onClick={() => setTyping(true)}>
          ⌨ {t('scan.typeCode')}
        </button>
        {checking && <p className="scan-checking">{t('scan.checking')}</p>}
        <h2 className="scan-recent-title">{t('scan.recent')}</h2>
        {recent.length === 0 ? (
          <p className="empty">{t('scan.noRecent')}</p>
        ) : (
          <ul className="scan-recent">
            {recent.map((decision) => (
              <li key={decision.decisionId} className={decision.admitted ? 'recent-admitted' : 'recent-refused'}>
                <span className="recent-mark" aria-hidden="true">
                  {decision.admitted ? '✓' : '✕'}
                </span>
                <span className="recent-name">
                  {decision.admitted
                    ? (decision.visitor?.name ?? decision.code ?? t('result.noName'))
                    : [t(REASON_TEXT[decision.reason].headline), decision.visitor?.name ?? decision.code].filter(Boolean).join(' · ')}
                </span>
                <span className="recent-time">{clockTime(decision.scannedAt, language)}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
      {typing && (
        <div className="keypad" role="dialog" aria-label={t('keypad.title')} data-testid="keypad">
          <div className="keypad-head">
            <output className="keypad-display" data-testid="keypad-display">
              {typed || <span className="placeholder">{t('keypad.placeholder')}</span>}
            </output>
            <button type="button" className="button button-secondary" onClick={() => setTyped('')}>
              {t('keypad.clear')}
            </button>
            <button type="button" className="button button-primary keypad-check" data-testid="keypad-check" disabled={!typed} onClick={submitTyped}>
              {t('keypad.check')}
            </button>
          </div>
          <OnScreenKeyboard
            layout="code"
            onKey={(character) => setTyped((text) => (text.length < 16 ? text + character : text))}
            onBackspace={() => setTyped((text) => text.slice(0, -1))}
          />
          <button type="button" className="button button-secondary keypad-close" onClick={() => setTyping(false)}>
            {t('keypad.close')}
          </button>
        </div>
      )}
    </section>
  );
}
