/**
 * The kiosk's sounds, made with WebAudio: nothing to download or ship. Each answer has its own
 * shape, not just its own pitch, so a guard tells them apart in a noisy gate: "admitted" is two
 * rising chimes, "refused" three low buzzes.
 */
export type SoundName = 'admitted' | 'refused' | 'done';

interface Note {
  frequency: number;
  start: number;
  duration: number;
  type: OscillatorType;
}

const SOUNDS: Record<SoundName, Note[]> = {
  admitted: [
    { frequency: 880, start: 0, duration: 0.14, type: 'sine' },
    { frequency: 1320, start: 0.16, duration: 0.24, type: 'sine' },
  ],
  refused: [
    { frequency: 220, start: 0, duration: 0.18, type: 'square' },
    { frequency: 220, start: 0.25, duration: 0.18, type: 'square' },
    { frequency: 220, start: 0.5, duration: 0.3, type: 'square' },
  ],
  done: [{ frequency: 1046, start: 0, duration: 0.12, type: 'triangle' }],
};

export interface SoundPlayer {
  play(name: SoundName): void;
}

export function createSoundPlayer(): SoundPlayer {
  let context: AudioContext | null = null;
  const audio = () => {
    context ??= new AudioContext();
    // Browsers start audio suspended until a gesture; the kiosk's first touch resumes it.
    if (context.state === 'suspended') void context.resume().catch(() => undefined);
    return context;
  };
  return {
    play(name) {
      let ctx: AudioContext;
      try {
        ctx = audio();
      } catch {
        return; // no audio device: the screen still says it all
      }
      const now = ctx.currentTime + 0.01;
      for (const note of SOUNDS[name]) {
        const oscillator = ctx.createOscillator();
        const gain = ctx.createGain();
        oscillator.type = note.type;
        oscillator.frequency.value = note.frequency;
        // Short ramps in and out: no clicks, still loud.
        gain.gain.setValueAtTime(0.0001, now + note.start);
        gain.gain.exponentialRampToValueAtTime(0.5, now + note.start + 0.01);
        gain.gain.setValueAtTime(0.5, now + note.start + note.duration - 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + note.start + note.duration);
        oscillator.connect(gain).connect(ctx.destination);
        oscillator.start(now + note.start);
        oscillator.stop(now + note.start + note.duration + 0.02);
      }
    },
  };
}
