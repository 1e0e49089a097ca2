import type { AttentionItem } from '../../../shared/kiosk/calls.ts';
import { useI18n, type Translate } from '../i18n/index.tsx';
import { ATTENTION_TEXT, OPERATION_TEXT } from '../kiosk/words.ts';
import { clockTime } from '../kiosk/format.ts';

interface AttentionPanelProps {
  items: AttentionItem[];
  onDismiss(attentionId: string): void;
  onClose(): void;
}

/** What the server refused after the gate had acted offline, for the guard to follow up. */
export function AttentionPanel({ items, onDismiss, onClose }: AttentionPanelProps) {
  const { t, language } = useI18n();
  return (
    <div className="sheet" role="dialog" aria-label={t('attention.title')} data-testid="attention-panel">
      <div className="sheet-head">
        <h2>{t('attention.title')}</h2>
        <button type="button" className="button button-secondary" onClick={onClose}>
          {t('attention.close')}
        </button>
      </div>
      {items.length === 0 ? (
        <p className="empty">{t('attention.empty')}</p>
      ) : (
        <ul className="attention-list">
          {items.map((item) => (
            <li key={item.attentionId} className="attention-item">
              <div className="attention-text">
                <strong>{describe(item, t)}</strong>
                <span>
                  {clockTime(item.happenedAt, language)} · {t('attention.server', { message: item.serverMessage })}
                </span>
              </div>
              <button type="button" className="button button-secondary" onClick={() => onDismiss(item.attentionId)}>
                {t('attention.dismiss')}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function describe(item: AttentionItem, t: Translate): string {
  return t(ATTENTION_TEXT[item.kind], {
    name: item.visitorName ?? t('attention.someone'),
    code: item.code ?? '',
    operation: t(OPERATION_TEXT[item.operation]),
  });
}
