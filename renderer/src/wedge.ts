/**
 * A USB barcode/QR scanner "types" what it reads as keystrokes and ends with Enter, far faster
 * than a person types. This tells the two apart on any screen: a burst of at least `minLength`
 * characters ended by Enter is a scan when its keys came `averageGapMs` apart or faster on
 * average (scanners: 2-20 ms; people: 100 ms and more). A single late key (a busy machine, a slow
 * USB hub) does not break the burst as long as it is within `maxGapMs`.
 * Keys typed into a field by the burst are taken back out, so a scan made while the guard is
 * on the walk-in form does not end up in the visitor's name.
 */
export interface WedgeOptions {
  onScan(text: string): void;
  maxGapMs?: number;
  averageGapMs?: number;
  minLength?: number;
  now?: () => number;
}

interface Burst {
  text: string;
  firstAt: number;
  lastAt: number;
  field: HTMLInputElement | HTMLTextAreaElement | null;
  fieldValueBefore: string;
}

function editableField(target: EventTarget | null): HTMLInputElement | HTMLTextAreaElement | null {
  if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) return target;
  return null;
}

/** Puts a field back as it was, in a way React's controlled inputs notice. */
function restoreField(field: HTMLInputElement | HTMLTextAreaElement, value: string): void {
  const prototype = field instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(prototype, 'value')?.set?.call(field, value);
  field.dispatchEvent(new Event('input', { bubbles: true }));
}

export function listenForWedgeScans(target: Window, options: WedgeOptions): () => void {
  const maxGapMs = options.maxGapMs ?? 150;
  const averageGapMs = options.averageGapMs ?? 40;
  const minLength = options.minLength ?? 4;
  const now = options.now ?? (() => performance.now());
  let burst: Burst | null = null;

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.ctrlKey || event.altKey || event.metaKey) return;
    const at = now();
    const continues = burst !== null && at - burst.lastAt <= maxGapMs;
    if (event.key === 'Enter') {
      const fast = burst !== null && (burst.lastAt - burst.firstAt) / Math.max(1, burst.text.length - 1) <= averageGapMs;
      if (continues && burst && fast && burst.text.length >= minLength) {
        event.preventDefault();
        event.stopPropagation();
        if (burst.field) restoreField(burst.field, burst.fieldValueBefore);
        const text = burst.text;
        burst = null;
        options.onScan(text);
        return;
      }
      burst = null;
      return;
    }
    if (event.key.length !== 1) return; // Shift, arrows, ...: neither part of nor the end of a burst
    if (!continues || !burst) {
      const field = editableField(event.target);
      burst = { text: '', firstAt: at, lastAt: at, field, fieldValueBefore: field?.value ?? '' };
    }
    burst.text += event.key;
    burst.lastAt = at;
  };
  target.addEventListener('keydown', onKeyDown, true);
  return () => target.removeEventListener('keydown', onKeyDown, true);
}
