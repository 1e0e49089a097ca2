import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_PATH } from '../../support/services.ts';

export interface BrowserOptions {
  /** A Y4M file for the fake camera; without one Chromium shows its own test pattern. */
  cameraVideo?: string;
}

/** Debian's Chromium through playwright-core, as ../shared/TESTING.md sets it up (never a downloaded browser). */
export function launchChromium(options: BrowserOptions = {}): Promise<Browser> {
  const args = [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--autoplay-policy=no-user-gesture-required',
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
  ];
  if (options.cameraVideo) args.push(`--use-file-for-fake-video-capture=${options.cameraVideo}`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args });
}
