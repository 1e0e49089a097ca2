import type { Notice } from '../state.ts';

export function NoticeScreen({ notice, onDismiss }: { notice: Notice; onDismiss: () => void }) {
  return (
    <main className={`screen notice ${notice.kind}`} data-testid={`notice-${notice.kind}`} role="alertdialog" aria-labelledby="notice-title">
      <h1 id="notice-title">{notice.title}</h1>
      <p>{notice.text}</p>
      <button type="button" className="big primary" onClick={onDismiss} data-testid="notice-ok">
        OK
      </button>
    </main>
  );
}
