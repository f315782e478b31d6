// Debian's Chromium driven by playwright-core (installed by .ci/run): no browser download, no network.
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

export const chromiumPath = process.env.TESSERA_CHROMIUM ?? "/usr/bin/chromium";

export function chromiumAvailable(): boolean {
  return existsSync(chromiumPath);
}

export function launchChromium(): Promise<Browser> {
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
