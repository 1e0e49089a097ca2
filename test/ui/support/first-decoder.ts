import { createRequire } from 'node:module';
import QRCode from 'qrcode';

/** html5-qrcode's own decoder (its ZXing port), run in Node on a clean drawing of the pass. */
export function firstDecoderReads(text: string, modulePixels: number): boolean {
  const ZXing = createRequire(import.meta.url)('html5-qrcode/third_party/zxing-js.umd.js');
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const size = qr.modules.size;
  const side = (size + 8) * modulePixels;
  const luma = new Uint8ClampedArray(side * side).fill(255);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const mx = Math.floor(x / modulePixels) - 4;
      const my = Math.floor(y / modulePixels) - 4;
      if (mx >= 0 && my >= 0 && mx < size && my < size && qr.modules.get(my, mx)) luma[y * side + x] = 0;
    }
  }
  try {
    const bitmap = new ZXing.BinaryBitmap(new ZXing.HybridBinarizer(new ZXing.RGBLuminanceSource(luma, side, side)));
    return new ZXing.QRCodeReader().decode(bitmap).getText() === text;
  } catch {
    return false;
  }
}
