/**
 * The third-party notices build.mjs writes beside the bundles: every npm package esbuild put into
 * a bundle (its metafile, dist/metafile.json) is listed in that folder's licenses.txt with its
 * version, licence and the licence text from the package. Reads the build npm test makes first
 * (rebuilding here would rewrite action/dist under the action tests running alongside).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./helpers/env.js";

interface Meta {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
  groups: Record<string, string[]>;
}

let meta: Meta;

/** The packages of a group's outputs: { "name@version": package folder }. */
function packagesOf(prefixes: string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const [out, info] of Object.entries(meta.outputs)) {
    if (!prefixes.some((p) => out.startsWith(p))) continue;
    for (const input of Object.keys(info.inputs)) {
      const m = /^(.*node_modules\/(@[^/]+\/)?[^/]+)\//.exec(input);
      if (!m) continue;
      const pkg = JSON.parse(readFileSync(join(ROOT, m[1]!, "package.json"), "utf8")) as {
        name: string;
        version: string;
      };
      found.set(`${pkg.name} ${pkg.version}`, m[1]!);
    }
  }
  return found;
}

/** licenses.txt's entries: "name version" → { license, text }. */
function noticesIn(file: string): Map<string, { license: string; text: string }> {
  const entries = new Map<string, { license: string; text: string }>();
  for (const block of readFileSync(join(ROOT, file), "utf8")
    .split(/^={78}\n/m)
    .slice(1)) {
    const [head, text = ""] = block.split(/^-{78}\n/m);
    const [id, licenseLine] = head!.trim().split("\n");
    entries.set(id!, { license: licenseLine!.replace(/^License: /, ""), text: text.trim() });
  }
  return entries;
}

beforeAll(() => {
  if (!existsSync(join(ROOT, "dist", "metafile.json"))) {
    throw new Error("dist/metafile.json is missing: run `npm run build` (npm test does it first)");
  }
  meta = JSON.parse(readFileSync(join(ROOT, "dist", "metafile.json"), "utf8")) as Meta;
});

describe("third-party notices", () => {
  it("covers the action, the CLI and the site client", () => {
    expect(Object.keys(meta.groups).sort()).toEqual([
      "action/dist/licenses.txt",
      "dist/licenses.txt",
      "dist/pages/assets/licenses.txt",
    ]);
    expect(Object.keys(meta.outputs)).toEqual(
      expect.arrayContaining([
        "dist/cli.mjs",
        "action/dist/index.mjs",
        "action/dist/post.mjs",
        "dist/pages/assets/cell.js",
      ]),
    );
  });

  for (const file of ["action/dist/licenses.txt", "dist/licenses.txt", "dist/pages/assets/licenses.txt"]) {
    it(`${file}: every bundled package with its licence and licence text`, () => {
      const packages = packagesOf(meta.groups[file]!);
      const notices = noticesIn(file);
      expect(packages.size).toBeGreaterThan(0);
      expect([...notices.keys()].sort()).toEqual([...packages.keys()].sort());
      for (const [id, dir] of packages) {
        const n = notices.get(id)!;
        const pkg = JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8")) as { license?: string };
        expect(n.license, id).toBe(pkg.license);
        expect(n.text.length, `${id}: licence text`).toBeGreaterThan(100);
        expect(n.text, id).toMatch(/permission|licen[cs]e/i);
      }
    });
  }

  it("the site client's notices are uPlot's, d3-flame-graph's with its d3 modules, and zod's (the run page's graph), also beside the action's copy of the client", () => {
    const names = [...noticesIn("dist/pages/assets/licenses.txt").keys()].map((k) => k.split(" ")[0]);
    expect(names).toContain("uplot");
    expect(names).toContain("d3-flame-graph");
    expect(names).toContain("d3-selection");
    expect(names).toContain("zod");
    // nothing else: the d3 modules d3-flame-graph is built on
    expect(
      names.filter((n) => !["uplot", "d3-flame-graph", "zod"].includes(n!) && !/^d3-[a-z]+$/.test(n!)),
    ).toEqual([]);
    expect(readFileSync(join(ROOT, "action/dist/pages/assets/licenses.txt"), "utf8")).toBe(
      readFileSync(join(ROOT, "dist/pages/assets/licenses.txt"), "utf8"),
    );
  });
});
