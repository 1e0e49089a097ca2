/** The offer alarm: a two-tone siren through Web Audio (no file to fetch) and vibration, where the browser allows. */
export interface Alarm {
  /** Called from a tap (going on duty), so the browser lets the page make sound later. */
  unlock(): void;
  start(): void;
  stop(): void;
}

export function createAlarm(): Alarm {
  let context: AudioContext | null = null;
  let timer: ReturnType<typeof setInterval> | null = null;
  const beep = () => {
    if (!context) return;
    const at = context.currentTime;
    for (const [offset, frequency] of [
      [0, 880],
      [0.35, 660],
    ] as const) {
      const oscillator = context.createOscillator();
      const gain = context.createGain();
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(0.4, at + offset);
      gain.gain.exponentialRampToValueAtTime(0.001, at + offset + 0.3);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(at + offset);
      oscillator.stop(at + offset + 0.32);
    }
    navigator.vibrate?.([400, 150, 400]);
  };
  return {
    unlock() {
      try {
        context ??= new AudioContext();
        void context.resume();
      } catch {
        context = null;
      }
    },
    start() {
      if (timer) return;
      try {
        context ??= new AudioContext();
        void context.resume();
      } catch {
        context = null;
      }
      beep();
      timer = setInterval(beep, 1500);
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
      navigator.vibrate?.(0);
    },
  };
}
