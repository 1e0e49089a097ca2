import { readBarcodes, type ReaderOptions } from 'zxing-wasm/reader';

/**
 * The kiosk's second QR decoder: ZXing-C++ compiled to WebAssembly, behind html5-qrcode's own
 * (a JavaScript port of ZXing). Why a second one: a pass is a version-8 QR full of
 * alphanumeric data, and the port's finder-pattern search (`FinderPatternFinder`, an old copy
 * of ZXing's) gives up or picks a wrong pattern on about one pass in ten, at every size, in
 * clean images as much as in camera frames: its three-pattern choice is fooled by the
 * 1:1:3:1:1 runs the data area makes. The QR itself is valid (every other decoder reads it),
 * and partners draw passes with their own libraries, so the fix is in the reader, not the
 * server's images. ZXing-C++ has the newer detector and reads all of them.
 */
export const PASS_READER_OPTIONS: ReaderOptions = {
  formats: ['QRCode'],
  maxNumberOfSymbols: 1,
  tryHarder: true,
  // A pass shown on a phone in dark mode is light on dark.
  tryInvert: true,
  tryRotate: true,
  tryDownscale: true,
};

/** Pixels as a canvas gives them: RGBA, four bytes a pixel. */
export interface Pixels {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

/** The text of the QR in these pixels, or null when none is read. */
export async function readPassText(pixels: Pixels): Promise<string | null> {
  const image = { data: pixels.data, width: pixels.width, height: pixels.height, colorSpace: 'srgb' } as unknown as Parameters<typeof readBarcodes>[0];
  const [found] = await readBarcodes(image, PASS_READER_OPTIONS);
  return found?.isValid && found.text ? found.text : null;
}
