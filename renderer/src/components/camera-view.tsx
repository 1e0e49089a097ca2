import { Html5Qrcode, Html5QrcodeSupportedFormats } from 'html5-qrcode';
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import { useI18n } from '../i18n/index.tsx';
import { readFramesOf } from '../scanning/frame-reader.ts';
import { PassInView } from '../scanning/pass-in-view.ts';
import { FIRST_DECODER_FPS, traceScan } from '../scanning/scan-timing.ts';

const CAMERA_KEY = 'tsaro.cameraId';

interface Camera {
  id: string;
  label: string;
}

type CameraState = 'starting' | 'running' | 'failed';

interface CameraViewProps {
  /** A new text read by the camera (repeats of the pass still in view are not passed on). */
  onDecode(text: string): void;
  /** While the answer is on screen: frames are still read, so a pass still held up stays "seen", but nothing is passed on. */
  paused: boolean;
}

/**
 * The live camera with html5-qrcode. The choice of camera is remembered on this kiosk; the
 * scan box is three quarters of the picture, so a cheap low-resolution camera still gets
 * enough pixels per module; the torch button appears only when the camera has one.
 */
export function CameraView({ onDecode, paused }: CameraViewProps) {
  const { t } = useI18n();
  const elementId = `camera-${useId().replace(/[^a-zA-Z0-9]/g, '')}`;
  const frameRef = useRef<HTMLDivElement>(null);
  const [cameras, setCameras] = useState<Camera[]>([]);
  const [cameraId, setCameraId] = useState<string | null>(null);
  const [state, setState] = useState<CameraState>('starting');
  const [torch, setTorch] = useState<{ supported: boolean; on: boolean }>({ supported: false, on: false });
  const [repeats, setRepeats] = useState(0);
  const [width, setWidth] = useState<number | null>(null);
  const scannerRef = useRef<Html5Qrcode | null>(null);
  const inView = useRef(new PassInView());
  const latest = useRef({ onDecode, paused });
  latest.current = { onDecode, paused };

  // The picture is 4:3; fit it inside the space the layout gives, and again when that changes a
  // lot (a tablet turned upright): html5-qrcode sizes its video once, at start.
  useLayoutEffect(() => {
    const frame = frameRef.current;
    if (!frame) return;
    const fit = () => Math.max(160, Math.floor(Math.min(frame.clientWidth, (frame.clientHeight * 4) / 3)));
    setWidth(fit());
    const observer = new ResizeObserver(() => setWidth((current) => (current === null || Math.abs(fit() - current) > current * 0.15 ? fit() : current)));
    observer.observe(frame);
    return () => observer.disconnect();
  }, []);

  // Which cameras there are (this asks for permission the first time).
  useEffect(() => {
    let cancelled = false;
    Html5Qrcode.getCameras()
      .then((found) => {
        if (cancelled) return;
        const list = found.map((camera, index) => ({ id: camera.id, label: camera.label || `${index + 1}` }));
        setCameras(list);
        const saved = localStorage.getItem(CAMERA_KEY);
        const chosen = list.find((camera) => camera.id === saved) ?? list[0];
        if (chosen) setCameraId(chosen.id);
        else setState('failed');
      })
      .catch(() => !cancelled && setState('failed'));
    return () => {
      cancelled = true;
    };
  }, []);

  useEffect(() => {
    if (!cameraId || width === null) return;
    const scanner = new Html5Qrcode(elementId, { verbose: false, formatsToSupport: [Html5QrcodeSupportedFormats.QR_CODE] });
    scannerRef.current = scanner;
    setState('starting');
    const onText = (text: string, source = 'html5-qrcode') => {
      traceScan('decoded', source);
      const now = performance.now();
      if (inView.current.holds(text, now)) {
        inView.current.saw(text, source, now);
        setRepeats((count) => count + 1);
        return;
      }
      // A new pass shown while the answer is still up is read once the screen is back.
      if (latest.current.paused) return;
      inView.current.saw(text, source, now);
      latest.current.onDecode(text);
    };
    const onMiss = (source: string) => inView.current.missed(source);
    // html5-qrcode is the camera layer and the first decoder; the second reads the same frames.
    let stopFrames = () => undefined as void;
    const started = scanner
      .start(
        cameraId,
        {
          fps: FIRST_DECODER_FPS,
          qrbox: (viewWidth, viewHeight) => {
            const side = Math.floor(Math.min(viewWidth, viewHeight) * 0.75);
            return { width: side, height: side };
          },
        },
        (text) => onText(text),
        // Called for every frame it looked at and found no code in.
        () => onMiss('html5-qrcode'),
      )
      .then(() => {
        setState('running');
        const container = document.getElementById(elementId);
        if (container) stopFrames = readFramesOf(container, onText, onMiss);
        try {
          const feature = scanner.getRunningTrackCameraCapabilities().torchFeature();
          setTorch({ supported: feature.isSupported(), on: false });
        } catch {
          setTorch({ supported: false, on: false });
        }
      })
      .catch(() => setState('failed'));
    return () => {
      scannerRef.current = null;
      stopFrames();
      void started.then(() => (scanner.isScanning ? scanner.stop() : undefined)).catch(() => undefined);
    };
  }, [cameraId, width, elementId]);

  const switchCamera = () => {
    if (cameras.length < 2) return;
    const index = cameras.findIndex((camera) => camera.id === cameraId);
    const next = cameras[(index + 1) % cameras.length]!;
    localStorage.setItem(CAMERA_KEY, next.id);
    setCameraId(next.id);
  };

  const toggleTorch = async () => {
    const scanner = scannerRef.current;
    if (!scanner) return;
    const on = !torch.on;
    try {
      await scanner.getRunningTrackCameraCapabilities().torchFeature().apply(on);
      setTorch({ supported: true, on });
    } catch {
      setTorch({ supported: false, on: false });
    }
  };

  const current = cameras.find((camera) => camera.id === cameraId);
  return (
    <div className="camera" data-camera-state={state} data-repeats={repeats}>
      <div className="camera-frame" ref={frameRef}>
        <div id={elementId} className="camera-video" style={width ? { width } : undefined} />
        {state !== 'running' && (
          <div className={`camera-message ${state === 'failed' ? 'camera-failed' : ''}`}>
            {state === 'failed' ? t('scan.cameraFailed') : t('scan.cameraStarting')}
          </div>
        )}
      </div>
      <div className="camera-controls">
        <p className="camera-hint">{t('scan.hint')}</p>
        {cameras.length > 1 && (
          <button type="button" className="button button-secondary" onClick={switchCamera} title={current ? t('scan.cameraName', { name: current.label }) : undefined}>
            {t('scan.switchCamera')}
          </button>
        )}
        {torch.supported && (
          <button type="button" className="button button-secondary" aria-pressed={torch.on} onClick={() => void toggleTorch()}>
            {torch.on ? t('scan.torchOff') : t('scan.torchOn')}
          </button>
        )}
      </div>
    </div>
  );
}
