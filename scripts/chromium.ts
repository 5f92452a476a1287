/**
 * Debian's Chromium driven by playwright-core, as the browser test (test/browser/demo.test.ts) and the README
 * screenshots (scripts/demo-screenshot.ts) use it: headless, no GPU, nothing fetched from Google, a fresh profile.
 */
import { chromium, type BrowserContext } from 'playwright-core';

/** /usr/bin/chromium (Debian: `apt-get install chromium`), or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** A browser with its profile in `profileDir` (close it before removing that folder), light, without animations. */
export function launchChromium(profileDir: string, viewport: { width: number; height: number }): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    args: ARGS,
    headless: true,
    viewport,
    deviceScaleFactor: 1,
    colorScheme: 'light',
    reducedMotion: 'reduce',
  });
}
