/**
 * @module Debian's Chromium driven by playwright-core, launched as the browser suite launches it,
 * for the regression suites that look at pages in a real browser; and where their screenshots go.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

/** Screenshots of the browser suites (gitignored): for looking at, not for diffing. */
export const SHOTS = join(__dirname, '..', '..', '..', '..', '.tmp', 'screenshots', 'dashboard');

/** A headless Chromium on a fresh profile (`WI_CHROMIUM` names another binary). */
export function launchChromium(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: process.env.WI_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
