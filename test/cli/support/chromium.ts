// Debian's Chromium driven by playwright-core (installed by .ci/run): no browser download, no network.
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

export const chromiumPath = process.env.TESSERA_CHROMIUM ?? "/usr/bin/chromium";

// No silent skip: a page test that cannot run must fail and say how to get the browser.
export function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `Chromium not found at ${chromiumPath}: install Debian's chromium (apt-get install chromium, as .ci/run does) or set TESSERA_CHROMIUM`,
    );
  }
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
