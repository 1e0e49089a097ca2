import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from './browser.ts';
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { PNG } from 'pngjs';
import QRCode from 'qrcode';

/**
 * Y4M files Chromium plays as its fake camera (`--use-file-for-fake-video-capture`): one
 * 640x480 frame, looped, the way a visitor holds a phone up to the gate camera. See
 * ../shared/TESTING.md.
 */
export const FRAME_WIDTH = 640;
export const FRAME_HEIGHT = 480;
const HEADER = Buffer.from(`YUV4MPEG2 W${FRAME_WIDTH} H${FRAME_HEIGHT} F15:1 Ip A1:1 C420jpeg\nFRAME\n`);

/** A camera showing `text` as a QR code on a grey background. */
export function writeQrVideo(path: string, text: string, modulePixels = 5): void {
  writeFrameFile(path, qrFrame(text, modulePixels));
}

/** A camera looking at an empty gate: a soft grey gradient, nothing to decode. */
export function writeEmptyVideo(path: string): void {
  writeFrameFile(path, emptyFrame());
}

/** Chromium whose camera looks at an empty gate (the video written into the test's folder `dir`). */
export async function chromiumAtEmptyGate(dir: string): Promise<Browser> {
  const video = join(dir, 'empty-gate.y4m');
  writeEmptyVideo(video);
  return launchChromium({ cameraVideo: video });
}

/**
 * Puts another picture in front of a camera that is already playing: Chromium reads a Y4M file
 * a frame at a time as it plays, so the frame is overwritten in place (same size, never
 * truncated) and the next frame Chromium reads shows it. A benchmark uses this to put a pass in
 * view at a known moment.
 */
export function replaceFrame(path: string, luma: Buffer): void {
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, luma, 0, luma.length, HEADER.length);
  } finally {
    closeSync(fd);
  }
}

/** The luma plane of an empty gate. */
export function emptyFrame(): Buffer {
  const luma = Buffer.alloc(FRAME_WIDTH * FRAME_HEIGHT, 110);
  for (let y = 0; y < FRAME_HEIGHT; y++) luma.fill(60 + Math.round((y / FRAME_HEIGHT) * 80), y * FRAME_WIDTH, (y + 1) * FRAME_WIDTH);
  return luma;
}

/** The luma plane of a busy scene with no pass in it (leaves, people, cars): blocks of every shade, seeded. */
export function busyFrame(): Buffer {
  const luma = Buffer.alloc(FRAME_WIDTH * FRAME_HEIGHT);
  let state = 0x2545f491;
  const random = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  for (let by = 0; by < FRAME_HEIGHT; by += 6) {
    for (let bx = 0; bx < FRAME_WIDTH; bx += 6) {
      const shade = 16 + Math.floor(random() * 220);
      for (let y = by; y < Math.min(by + 6, FRAME_HEIGHT); y++) luma.fill(shade, y * FRAME_WIDTH + bx, y * FRAME_WIDTH + Math.min(bx + 6, FRAME_WIDTH));
    }
  }
  return luma;
}

/** The luma plane of `text` as a QR code (error correction M, quiet zone 4, as the API draws it), centred. */
export function qrFrame(text: string, modulePixels: number): Buffer {
  const luma = Buffer.alloc(FRAME_WIDTH * FRAME_HEIGHT, 110);
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const modules = qr.modules.size;
  const quiet = 4;
  const side = (modules + quiet * 2) * modulePixels;
  if (side > FRAME_HEIGHT) throw new Error(`QR of ${modules} modules at ${modulePixels} px does not fit the frame`);
  const left = Math.floor((FRAME_WIDTH - side) / 2);
  const top = Math.floor((FRAME_HEIGHT - side) / 2);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const moduleX = Math.floor(x / modulePixels) - quiet;
      const moduleY = Math.floor(y / modulePixels) - quiet;
      const inside = moduleX >= 0 && moduleY >= 0 && moduleX < modules && moduleY < modules;
      const dark = inside && qr.modules.get(moduleY, moduleX) === 1;
      luma[(top + y) * FRAME_WIDTH + left + x] = dark ? 16 : 235;
    }
  }
  return luma;
}

/**
 * The luma plane of a picture (a PNG, e.g. a screenshot of a QR code on a screen) held up to the
 * camera: scaled to `side` pixels square (nearest pixel, so a QR's modules stay sharp), centred
 * on the grey background, in video levels (16 to 235).
 */
export function pictureFrame(png: Buffer, side: number): Buffer {
  const image = PNG.sync.read(png);
  if (side > FRAME_HEIGHT) throw new Error(`a picture ${side} px high does not fit the frame`);
  const luma = Buffer.alloc(FRAME_WIDTH * FRAME_HEIGHT, 110);
  const left = Math.floor((FRAME_WIDTH - side) / 2);
  const top = Math.floor((FRAME_HEIGHT - side) / 2);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const at = (Math.floor((y * image.height) / side) * image.width + Math.floor((x * image.width) / side)) * 4;
      const grey = 0.299 * image.data[at]! + 0.587 * image.data[at + 1]! + 0.114 * image.data[at + 2]!;
      luma[(top + y) * FRAME_WIDTH + left + x] = Math.round(16 + (grey * (235 - 16)) / 255);
    }
  }
  return luma;
}

function writeFrameFile(path: string, luma: Buffer): void {
  const chroma = Buffer.alloc((FRAME_WIDTH * FRAME_HEIGHT) / 4, 128);
  writeFileSync(path, Buffer.concat([HEADER, luma, chroma, chroma]));
}
