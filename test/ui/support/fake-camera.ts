import { writeFileSync } from 'node:fs';
import QRCode from 'qrcode';

/**
 * A Y4M file Chromium plays as its fake camera (`--use-file-for-fake-video-capture`): one
 * 640x480 frame, looped, showing `text` as a QR code on a grey background, the way a visitor
 * holds a phone up to the gate camera. See ../shared/TESTING.md.
 */
export function writeQrVideo(path: string, text: string, modulePixels = 5): void {
  writeFrame(path, (luma, width, height) => drawQr(luma, width, height, text, modulePixels));
}

/** A camera looking at an empty gate: a soft grey gradient, nothing to decode. */
export function writeEmptyVideo(path: string): void {
  writeFrame(path, (luma, width, height) => {
    for (let y = 0; y < height; y++) luma.fill(60 + Math.round((y / height) * 80), y * width, (y + 1) * width);
  });
}

function writeFrame(path: string, draw: (luma: Buffer, width: number, height: number) => void): void {
  const width = 640;
  const height = 480;
  const luma = Buffer.alloc(width * height, 110);
  draw(luma, width, height);
  const chroma = Buffer.alloc((width * height) / 4, 128);
  const header = Buffer.from(`YUV4MPEG2 W${width} H${height} F15:1 Ip A1:1 C420jpeg\n`);
  writeFileSync(path, Buffer.concat([header, Buffer.from('FRAME\n'), luma, chroma, chroma]));
}

function drawQr(luma: Buffer, width: number, height: number, text: string, modulePixels: number): void {
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const modules = qr.modules.size;
  const quiet = 4;
  const side = (modules + quiet * 2) * modulePixels;
  if (side > height) throw new Error(`QR of ${modules} modules at ${modulePixels} px does not fit the frame`);
  const left = Math.floor((width - side) / 2);
  const top = Math.floor((height - side) / 2);

  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const moduleX = Math.floor(x / modulePixels) - quiet;
      const moduleY = Math.floor(y / modulePixels) - quiet;
      const inside = moduleX >= 0 && moduleY >= 0 && moduleX < modules && moduleY < modules;
      const dark = inside && qr.modules.get(moduleY, moduleX) === 1;
      luma[(top + y) * width + left + x] = dark ? 16 : 235;
    }
  }
}
