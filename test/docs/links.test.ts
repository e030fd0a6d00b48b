// The README is the front door and docs/ holds one page per topic: every relative link in them must lead to a
// file that exists and, when it names a heading, to a heading that exists, as GitHub renders it. And every page
// of docs/ must be reachable from both the README and docs/README.md.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DOCS = join(ROOT, "docs");
const PAGES = [
  join(ROOT, "README.md"),
  join(ROOT, "helm/tunnel-gateway/README.md"),
  ...readdirSync(DOCS)
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(DOCS, name)),
];

/** The page's text outside fenced code blocks and inline code, where links and headings are what they seem. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "code");
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  const withoutFences = markdown.replace(/^```[\s\S]*?^```/gm, "");
  for (const [, heading] of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = (heading as string)
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** Relative link targets of a page: [text](target) and ![alt](target). */
function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((match) => match[1] as string)
    .filter((target) => !/^[a-z]+:/i.test(target));
}

describe("links in the README and docs/", () => {
  for (const page of PAGES) {
    const name = relative(ROOT, page);
    it(`lead from ${name} to files and headings that exist`, () => {
      const text = readFileSync(page, "utf8");
      const broken: string[] = [];
      for (const target of links(text)) {
        const [path, anchor] = target.split("#") as [string, string | undefined];
        const file = path === "" ? page : resolve(dirname(page), decodeURI(path));
        if (!existsSync(file)) broken.push(`${target}: no such file`);
        else if (
          anchor !== undefined &&
          file.endsWith(".md") &&
          !anchors(readFileSync(file, "utf8")).has(anchor)
        )
          broken.push(`${target}: no heading with that anchor in ${relative(ROOT, file)}`);
      }
      expect(broken).toEqual([]);
    });
  }

  it("reach every page of docs/ from the README and from docs/README.md", () => {
    const pages = readdirSync(DOCS).filter((name) => name.endsWith(".md") && name !== "README.md");
    expect(pages.length).toBeGreaterThan(5);
    const fromReadme = new Set(
      links(readFileSync(join(ROOT, "README.md"), "utf8")).map((t) => t.split("#")[0]),
    );
    const fromIndex = new Set(
      links(readFileSync(join(DOCS, "README.md"), "utf8")).map((t) => t.split("#")[0]),
    );
    for (const page of pages) {
      expect(fromReadme, `README.md links to docs/${page}`).toContain(`docs/${page}`);
      expect(fromIndex, `docs/README.md links to ${page}`).toContain(page);
    }
  });

  it("show every image in docs/ on some page", () => {
    const shown = new Set(
      PAGES.flatMap((page) =>
        links(readFileSync(page, "utf8")).map((target) =>
          resolve(dirname(page), target.split("#")[0] as string),
        ),
      ),
    );
    for (const image of readdirSync(DOCS).filter((name) => /\.(png|jpe?g|svg|gif)$/.test(name))) {
      expect(shown, `docs/${image} is shown or linked somewhere`).toContain(join(DOCS, image));
    }
  });
});

describe("heading anchors", () => {
  it("are made as GitHub makes them", () => {
    const page =
      "# Title\n## Reservations expire by the gateway's clock\n## `TUNNEL_*` variables\n## Retries\n## Retries\n```\n# not a heading\n```\n";
    expect([...anchors(page)]).toEqual([
      "title",
      "reservations-expire-by-the-gateways-clock",
      "tunnel_-variables",
      "retries",
      "retries-1",
    ]);
  });
});
