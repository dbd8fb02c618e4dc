/**
 * The e2e project's global setup: decide the browser once per run (printing the choice on one
 * line), unpacking the npm-shipped Chromium here rather than racing to do it in several workers.
 * The choice reaches the test workers through the environment (`browser.ts`).
 */
import { resolveBrowser } from './browser.js';

export default async function setup(): Promise<void> {
  await resolveBrowser();
}
