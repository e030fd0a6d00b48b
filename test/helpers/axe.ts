// Accessibility checks for the browser tests: axe-core run in the page as it stands, with the WCAG 2.0/2.1
// A and AA rules and axe's best practices. A check fails on every violation axe rates serious or critical,
// listing each one (rule, impact, the elements, what to do) so the failure reads without a browser open.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Result } from "axe-core";
import type { Page } from "playwright-core";

export const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] as const;
/** Moderate and minor findings (a skipped heading level, say) are judgement calls; these are not. */
export const BLOCKING_IMPACTS: ReadonlySet<string> = new Set(["serious", "critical"]);

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/**
 * Every violation axe finds in the page now. axe is evaluated through the DevTools protocol
 * (page.evaluate), not added as a <script>: the dashboard's CSP (script-src 'self') refuses inline
 * scripts, and the browser tests count each refusal as a failure. Evaluation is not subject to the page's
 * CSP, so the page is checked under its real policy, with no bypassCSP context that would also change what
 * the page itself may do.
 */
export async function axeViolations(page: Page): Promise<Result[]> {
  // A hash navigation keeps the injected axe; a reload or a new document drops it.
  if (!(await page.evaluate<boolean>("typeof window.axe === 'object'"))) await page.evaluate(AXE_SOURCE);
  const options = { runOnly: { type: "tag", values: AXE_TAGS }, resultTypes: ["violations"] };
  return page.evaluate<Result[]>(
    `axe.run(document, ${JSON.stringify(options)}).then((results) => results.violations)`,
  );
}

/** One violation per paragraph: rule and impact, what it asks for, then each element with axe's finding. */
export function describeViolations(violations: Result[]): string {
  return violations
    .map((violation) => {
      const nodes = violation.nodes.map((node) => {
        const summary = (node.failureSummary ?? "").replace(/\s*\n\s*/g, " ").trim();
        return `    ${node.target.join(" ")}${summary ? `\n      ${summary}` : ""}`;
      });
      return `- ${violation.id} (${violation.impact}): ${violation.help} <${violation.helpUrl}>\n${nodes.join("\n")}`;
    })
    .join("\n");
}

/** Fails, naming the view, when axe finds a serious or critical violation in the page as it stands. */
export async function expectAccessible(page: Page, view: string): Promise<void> {
  const blocking = (await axeViolations(page)).filter((v) => BLOCKING_IMPACTS.has(v.impact ?? ""));
  if (blocking.length > 0)
    throw new Error(
      `${view}: ${blocking.length} serious or critical accessibility violation(s)\n${describeViolations(blocking)}`,
    );
}
