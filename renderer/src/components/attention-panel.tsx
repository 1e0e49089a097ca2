import type { AttentionItem } from '../../../shared/kiosk/calls.ts';
import { useI18n, type MessageKey, type Translate } from '../i18n/index.tsx';
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
  if (item.kind === 'admission_refused') {
    return t('attention.admission_refused', { name: item.visitorName ?? t('attention.someone'), code: item.code ?? '' });
  }
  if (item.kind === 'refusal_overturned') {
    return t('attention.refusal_overturned', { name: item.visitorName ?? t('attention.someone'), code: item.code ?? '' });
  }
  return t('attention.operation_refused', { operation: t(`attention.op.${item.operation}` as MessageKey) });
}
