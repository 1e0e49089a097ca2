import { useI18n } from '../i18n/index.tsx';

/**
 * Large keys for gloved fingers on a touchscreen with no keyboard. `code` leaves out what an
 * access code never holds (0, 1, space) and adds the dash; `text` is for names and phones.
 */
export type KeyboardLayout = 'code' | 'text';

const ROWS: Record<KeyboardLayout, string[]> = {
  code: ['23456789', 'QWERTYUIOP', 'ASDFGHJKL', 'ZXCVBNM-'],
  text: ['1234567890', 'QWERTYUIOP', "ASDFGHJKL'", 'ZXCVBNM+-', ".,/"],
};

interface OnScreenKeyboardProps {
  layout: KeyboardLayout;
  onKey(character: string): void;
  onBackspace(): void;
}

export function OnScreenKeyboard({ layout, onKey, onBackspace }: OnScreenKeyboardProps) {
  const { t } = useI18n();
  // Keys act on pointer-down and never take focus, so the field being typed into keeps it.
  const keep = (event: React.PointerEvent | React.MouseEvent) => event.preventDefault();
  return (
    <div className={`keyboard keyboard-${layout}`} role="group" aria-label={t('keypad.title')}>
      {ROWS[layout].map((row, index) => (
        <div className="keyboard-row" key={row}>
          {[...row].map((character) => (
            <button
              type="button"
              key={character}
              className="key"
              data-key={character}
              tabIndex={-1}
              onPointerDown={keep}
              onMouseDown={keep}
              onClick={() => onKey(character)}
            >
              {character}
            </button>
          ))}
          {index === ROWS[layout].length - 1 && (
            <button type="button" className="key key-wide key-backspace" data-key="Backspace" aria-label={t('keypad.backspace')} onMouseDown={keep} onClick={onBackspace}>
              ⌫
            </button>
          )}
        </div>
      ))}
      {layout === 'text' && (
        <div className="keyboard-row keyboard-row-space">
          <button type="button" className="key key-space" data-key=" " onMouseDown={keep} onClick={() => onKey(' ')}>
            {t('keypad.space')}
          </button>
        </div>
      )}
    </div>
  );
}
