// Content-Security-Policy violations as a page reports them. The recorder is injected by the browser
// itself (an init script is not subject to the page's CSP), so it sees every violation report.
import type { Page } from "playwright-core";

type ViolationWindow = { __violations: string[] };

/** Starts recording before the page's first navigation. */
export async function recordCspViolations(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const target = globalThis as unknown as ViolationWindow & {
      addEventListener(type: string, listener: (event: { violatedDirective: string }) => void): void;
    };
    target.__violations = [];
    target.addEventListener("securitypolicyviolation", (event) =>
      target.__violations.push(event.violatedDirective),
    );
  });
}

/** The violated directives recorded so far. */
export function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as unknown as ViolationWindow).__violations);
}
