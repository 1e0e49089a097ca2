import { useEffect, useRef, useState, type ReactNode } from 'react';

interface HoldButtonProps {
  holdMs: number;
  onComplete(): void;
  /** Released before the end: nothing is sent, the screen says why. */
  onTooShort?(): void;
  /** A hold begins: what the screen said about the last one is no longer true. */
  onStart?(): void;
  className?: string;
  label: ReactNode;
  holdingLabel: ReactNode;
  disabled?: boolean;
}

/**
 * A button that acts only after being held for `holdMs`, with a fill that shows how far along
 * the hold is. Pointer events cover mouse, touch and pen alike; leaving the button or the
 * pointer being cancelled (a palm, a glove sliding off) counts as letting go.
 */
export function HoldButton({ holdMs, onComplete, onTooShort, onStart, className, label, holdingLabel, disabled }: HoldButtonProps) {
  const [progress, setProgress] = useState(0);
  const [done, setDone] = useState(false);
  const started = useRef<number | null>(null);
  const frame = useRef<number | null>(null);
  const completeRef = useRef(onComplete);
  completeRef.current = onComplete;

  const stopAnimation = () => {
    if (frame.current !== null) cancelAnimationFrame(frame.current);
    frame.current = null;
  };
  useEffect(() => stopAnimation, []);

  const tick = () => {
    if (started.current === null) return;
    const fraction = Math.min(1, (performance.now() - started.current) / holdMs);
    setProgress(fraction);
    if (fraction >= 1) {
      started.current = null;
      stopAnimation();
      setDone(true);
      completeRef.current();
      window.setTimeout(() => {
        setProgress(0);
        setDone(false);
      }, 800);
      return;
    }
    frame.current = requestAnimationFrame(tick);
  };

  const press = () => {
    if (disabled || started.current !== null) return;
    started.current = performance.now();
    onStart?.();
    frame.current = requestAnimationFrame(tick);
  };
  const release = () => {
    if (started.current === null) return;
    started.current = null;
    stopAnimation();
    setProgress(0);
    onTooShort?.();
  };

  const holding = progress > 0 && progress < 1;
  return (
    <button
      type="button"
      className={`hold-button ${className ?? ''}`}
      data-progress={(Math.floor(progress * 100) / 100).toFixed(2)}
      data-state={done ? 'done' : progress > 0 ? 'holding' : 'idle'}
      aria-disabled={disabled}
      onPointerDown={(event) => {
        event.currentTarget.setPointerCapture?.(event.pointerId);
        press();
      }}
      onPointerUp={release}
      onPointerCancel={release}
      onLostPointerCapture={release}
      onContextMenu={(event) => event.preventDefault()}
      onKeyDown={(event) => {
        if ((event.key === ' ' || event.key === 'Enter') && !event.repeat) press();
      }}
      onKeyUp={(event) => {
        if (event.key === ' ' || event.key === 'Enter') release();
      }}
    >
      <span className="hold-fill" style={{ transform: `scaleY(${progress})` }} />
      <span className="hold-label">{holding ? holdingLabel : label}</span>
    </button>
  );
}
