/**
 * A USB barcode/QR scanner "types" what it reads as keystrokes and ends with Enter, far faster
 * than a person types. This tells the two apart on any screen: a burst of at least `minLength`
 * characters ended by Enter is a scan when its keys came `averageGapMs` apart or faster on
 * average (scanners: 2-20 ms; people: 100 ms and more). A single late key (a busy machine, a slow
 * USB hub) does not break the burst as long as it is within `maxGapMs`.
 * Keys typed into a field by the burst are taken back out, so a scan made while the guard is
 * on the walk-in form does not end up in the visitor's name.
 *
 * Gaps are measured between the moments the keys happened (`event.timeStamp`, which the browser
 * takes from the input device's event), not the moments the page got round to them: while the
 * page is busy (a camera frame being decoded, a long render) keys wait in the browser's queue and
 * then arrive together or after a pause, and a burst timed by its handling could split in two,
 * with the tail read as a code of its own.
 */
export interface WedgeOptions {
  onScan(text: string): void;
  maxGapMs?: number;
  averageGapMs?: number;
  minLength?: number;
}

/** What the listener reads of a key press (a DOM `KeyboardEvent` has all of it). */
export interface KeyPress {
  key: string;
  timeStamp: number;
  ctrlKey: boolean;
  altKey: boolean;
  metaKey: boolean;
  target: unknown;
  preventDefault(): void;
  stopPropagation(): void;
}

/** Where key presses come from: the page's `window`. */
export interface KeySource {
  addEventListener(type: 'keydown', listener: (event: KeyPress) => void, options: { capture: boolean }): void;
  removeEventListener(type: 'keydown', listener: (event: KeyPress) => void, options: { capture: boolean }): void;
}

/** A text field of the page (an input or a text area). */
interface TextField {
  value: string;
  dispatchEvent(event: Event): boolean;
}

interface Burst {
  text: string;
  firstAt: number;
  lastAt: number;
  field: TextField | null;
  fieldValueBefore: string;
}

function editableField(target: unknown): TextField | null {
  const page = globalThis as { HTMLInputElement?: abstract new () => TextField; HTMLTextAreaElement?: abstract new () => TextField };
  if (page.HTMLInputElement && target instanceof page.HTMLInputElement) return target;
  if (page.HTMLTextAreaElement && target instanceof page.HTMLTextAreaElement) return target;
  return null;
}

/** Puts a field back as it was, in a way React's controlled inputs notice (through the element's own value setter). */
function restoreField(field: TextField, value: string): void {
  Object.getOwnPropertyDescriptor(Object.getPrototypeOf(field), 'value')?.set?.call(field, value);
  field.dispatchEvent(new Event('input', { bubbles: true }));
}

export function listenForWedgeScans(target: KeySource, options: WedgeOptions): () => void {
  const maxGapMs = options.maxGapMs ?? 150;
  const averageGapMs = options.averageGapMs ?? 40;
  const minLength = options.minLength ?? 4;
  let burst: Burst | null = null;

  const onKeyDown = (event: KeyPress) => {
    if (event.ctrlKey || event.altKey || event.metaKey) return;
    const at = event.timeStamp;
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
  target.addEventListener('keydown', onKeyDown, { capture: true });
  return () => target.removeEventListener('keydown', onKeyDown, { capture: true });
}
