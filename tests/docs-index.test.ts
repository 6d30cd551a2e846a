/**
 * The documentation's front pages: the README stays a short front door, docs/README.md lists
 * every document and decision record, every record has a Status line, and the relative links of
 * both pages lead to files that exist.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/env.js";

const DOCS = join(ROOT, "docs");
const read = (p: string): string => readFileSync(p, "utf8");

/** The relative link targets of a Markdown file, without anchors. */
function relativeLinks(md: string): string[] {
  const out: string[] = [];
  for (const m of md.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1]!;
    if (/^[a-z]+:/i.test(target) || target.startsWith("#")) continue;
    out.push(target.replace(/#.*$/, ""));
  }
  return out;
}

describe("documentation front pages", () => {
  it("the README is a front door of at most about 200 lines, with the PR-gate steps on its first screen", () => {
    const lines = read(join(ROOT, "README.md")).split("\n");
    expect(lines.length).toBeLessThanOrEqual(200);
    const gate = lines.findIndex((l) => /^## Gate pull requests/.test(l));
    expect(gate).toBeGreaterThan(0);
    expect(gate).toBeLessThan(80);
    for (const l of lines) expect(l.length, l.slice(0, 80)).toBeLessThanOrEqual(200);
  });

  it("docs/README.md is what .ci/docs-index.mjs writes (run it after adding a page or a record)", async () => {
    const { docsIndex } = (await import(pathToFileURL(join(ROOT, ".ci", "docs-index.mjs")).href)) as {
      docsIndex: () => string;
    };
    expect(read(join(DOCS, "README.md"))).toBe(docsIndex());
  });

  it("docs/README.md links every document and every decision record", () => {
    const index = read(join(DOCS, "README.md"));
    const links = new Set(relativeLinks(index));
    for (const f of readdirSync(DOCS).filter((f) => f.endsWith(".md") && f !== "README.md"))
      expect(links.has(f), `docs/README.md does not link ${f}`).toBe(true);
    for (const f of readdirSync(join(DOCS, "decisions")).filter((f) => f.endsWith(".md")))
      expect(links.has(`decisions/${f}`), `docs/README.md does not link decisions/${f}`).toBe(true);
  });

  it("every decision record has a Status line that says whether it still holds", () => {
    for (const f of readdirSync(join(DOCS, "decisions")).filter((f) => f.endsWith(".md"))) {
      const status = read(join(DOCS, "decisions", f))
        .split("\n")
        .find((l) => l.startsWith("Status:"));
      expect(status, `${f} has no Status line`).toBeDefined();
      expect(status!, f).toMatch(/^Status: (accepted|amended by|superseded by|proposed|rejected|open)/);
    }
  });

  it("the relative links of the README and docs/README.md lead to files that exist", () => {
    for (const page of [join(ROOT, "README.md"), join(DOCS, "README.md")]) {
      for (const target of relativeLinks(read(page))) {
        if (!target) continue;
        const path = resolve(dirname(page), target);
        expect(existsSync(path), `${page}: ${target} does not exist`).toBe(true);
      }
    }
  });
});
