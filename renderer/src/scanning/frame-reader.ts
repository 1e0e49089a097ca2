import { prepareZXingModule } from 'zxing-wasm/reader';
// Vite copies the decoder from the installed package into the build; no CDN (kiosks are offline).
import wasmUrl from 'zxing-wasm/reader/zxing_reader.wasm?url';
import { readPassText } from './read-pass.ts';
import { FRAME_INTERVAL_MS, restAfterRead, traceScan } from './scan-timing.ts';

/** Frames wider than this are scaled down first: a pass fills a good part of the picture, and smaller frames decode faster. */
const MAX_FRAME_WIDTH = 960;
/** A camera that delivers no frame for this long is looked for again. */
const STALLED_CAMERA_MS = 1000;

/** One constant object, so preparing again (every camera start) reuses the loaded decoder. */
const DECODER_OVERRIDES = {
  locateFile: (path: string, prefix: string) => (path.endsWith('.wasm') ? wasmUrl : prefix + path),
};

/**
 * Reads the live video html5-qrcode shows with the second decoder. Returns a stop function.
 *
 * Each read starts when the camera delivers a new frame (`requestVideoFrameCallback`), as soon
 * as the rest after the last read is over (`restAfterRead`), rather than on a timer of its own:
 * a pass that comes into view is read from the first frame that shows it, not up to a whole
 * timer period later. One frame at a time: a slow read delays the next, never piles up.
 */
export function readFramesOf(container: HTMLElement, onText: (text: string, source: string) => void, onMiss: (source: string) => void = () => undefined): () => void {
  prepareZXingModule({ overrides: DECODER_OVERRIDES, equalityFn: Object.is });
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d', { willReadFrequently: true });
  let stopped = false;
  let timer = 0;
  let cancelFrame = () => undefined as void;
  let lastReadEnd = -Infinity;
  let lastReadMs = 0;

  const next = () => {
    if (stopped) return;
    const video = container.querySelector('video');
    if (video && typeof video.requestVideoFrameCallback === 'function') {
      const request = video.requestVideoFrameCallback(onFrame);
      cancelFrame = () => video.cancelVideoFrameCallback(request);
      // No frame for a while (the video replaced, the camera stalled): look for the video again.
      timer = window.setTimeout(() => {
        cancelFrame();
        next();
      }, STALLED_CAMERA_MS);
    } else {
      timer = window.setTimeout(() => void readOne(), FRAME_INTERVAL_MS);
    }
  };
  const onFrame = () => {
    window.clearTimeout(timer);
    if (stopped) return;
    if (performance.now() - lastReadEnd < restAfterRead(lastReadMs)) return next();
    void readOne();
  };
  const readOne = async () => {
    const video = container.querySelector('video');
    if (!context || !video || video.readyState < 2 || video.videoWidth === 0) return next();
    const startedAt = performance.now();
    const scale = Math.min(1, MAX_FRAME_WIDTH / video.videoWidth);
    const width = Math.round(video.videoWidth * scale);
    const height = Math.round(video.videoHeight * scale);
    if (canvas.width !== width || canvas.height !== height) {
      canvas.width = width;
      canvas.height = height;
    }
    try {
      traceScan('read-start');
      context.drawImage(video, 0, 0, width, height);
      const text = await readPassText(context.getImageData(0, 0, width, height));
      traceScan('read-end');
      if (stopped) return;
      if (text) onText(text, 'zxing-wasm');
      else onMiss('zxing-wasm');
    } catch {
      // A frame that cannot be read (camera switching, decoder still loading) is skipped.
    }
    lastReadEnd = performance.now();
    lastReadMs = lastReadEnd - startedAt;
    next();
  };
  next();
  return () => {
    stopped = true;
    window.clearTimeout(timer);
    cancelFrame();
  };
}
