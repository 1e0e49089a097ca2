/**
 * The control room's sound and flashing title. Browsers refuse sound until the page has had a
 * click, so the board asks once ("Turn sound on") and says plainly while it is off; the choice
 * is remembered, and the first click anywhere on a later visit turns it back on.
 *
 * The tones are made with Web Audio: no sound file to fetch, nothing from outside the origin.
 */
const PREFERENCE = 'tsaro.console.sound';

type Listener = (on: boolean) => void;

class Alarm {
  private context: AudioContext | null = null;
  private readonly listeners = new Set<Listener>();
  private flashTimer: ReturnType<typeof setInterval> | null = null;
  private baseTitle = document.title;

  constructor() {
    if (this.wanted()) {
      const unlock = () => void this.turnOn();
      window.addEventListener('pointerdown', unlock, { once: true });
      window.addEventListener('keydown', unlock, { once: true });
    }
  }

  /** Whether a sound played now would be heard. */
  on(): boolean {
    return this.context?.state === 'running';
  }

  wanted(): boolean {
    return localStorage.getItem(PREFERENCE) === 'on';
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Call from a click: a browser lets a page start sound only then. */
  async turnOn(): Promise<boolean> {
    localStorage.setItem(PREFERENCE, 'on');
    this.context ??= new AudioContext();
    await this.context.resume().catch(() => undefined);
    this.tell();
    return this.on();
  }

  turnOff(): void {
    localStorage.setItem(PREFERENCE, 'off');
    void this.context?.suspend();
    this.tell();
  }

  /** A new SOS: two rising tones. */
  chime(): void {
    this.tones([660, 880], 0.18);
  }

  /** Nobody accepted: three urgent low-high tones. */
  alarm(): void {
    this.tones([440, 880, 440, 880, 440, 880], 0.14);
  }

  /** The tab's title flashes `text` while `on` (a wall screen's other tab shows it too). */
  flash(text: string | null): void {
    if (!text) {
      if (this.flashTimer) clearInterval(this.flashTimer);
      this.flashTimer = null;
      document.title = this.baseTitle;
      return;
    }
    if (this.flashTimer) clearInterval(this.flashTimer);
    let shown = false;
    this.flashTimer = setInterval(() => {
      shown = !shown;
      document.title = shown ? text : this.baseTitle;
    }, 800);
  }

  private tell(): void {
    for (const listener of this.listeners) listener(this.on());
  }

  private tones(frequencies: number[], length: number): void {
    const context = this.context;
    if (!context || context.state !== 'running') return;
    let at = context.currentTime;
    for (const frequency of frequencies) {
      const oscillator = context.createOscillator();
      const gain = context.createGain();
      oscillator.type = 'square';
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.25, at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(at);
      oscillator.stop(at + length + 0.02);
      at += length + 0.04;
    }
  }
}

let alarm: Alarm | null = null;
/** One per page: every screen shares the sound's state. */
export const theAlarm = (): Alarm => (alarm ??= new Alarm());
