/**
 * Code shape: layers point one way. The layout section of docs/development.md lists every folder of src/ once,
 * in layer order from the entry points (top) down to the foundation (bottom); that list is the one
 * statement of the order, read here. A file may import (value, type-only, re-export or import())
 * from its own folder and from folders listed below its folder, never from one listed above.
 * `src/cli.ts` (the executable's entry) sits above every folder; `src/version.ts` below every
 * folder, importing nothing. Why, and how to place a new folder: docs/decisions/2026-11-26-layers.md.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./helpers/source-files.js";

const ROOT = join(import.meta.dirname, "..");
const SRC = join(ROOT, "src");
/** Files directly in src/: where each sits in the order. */
const ROOT_FILES: Record<string, "top" | "bottom"> = { "cli.ts": "top", "version.ts": "bottom" };

/**
 * Upward imports that are allowed, each with the reason it cannot point down. Every entry must
 * still occur (a stale one fails), so the list only shrinks.
 */
const EXCEPTIONS: { from: string; to: string; reason: string }[] = [];

/**
 * The folders of docs/development.md's layout section, top layer first, as paths under src/: a
 * stage folder's concern (`measuring/run`) or a folder of its own (`gate`, `results`).
 */
function layoutOrder(readme: string): string[] {
  const start = readme.indexOf("Layout: `src/`");
  const end = readme.indexOf("Outside `src/`", start);
  if (start < 0 || end < 0)
    throw new Error("docs/development.md: no layout section (Layout: `src/` ... Outside `src/`)");
  const out: string[] = [];
  for (const line of readme.slice(start, end).split("\n")) {
    const m = /^- `src\/([^`]+?)\/`/.exec(line);
    if (m) out.push(m[1]!);
  }
  return out;
}

/** Every module specifier a file names: imports of any kind, re-exports, import(), require(), import types. */
function importSpecifiers(code: string, file = "x.ts"): string[] {
  const sf = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier) {
      out.push((n.moduleSpecifier as ts.StringLiteral).text);
    } else if (
      ts.isCallExpression(n) &&
      (n.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(n.expression) && n.expression.text === "require")) &&
      n.arguments[0] &&
      ts.isStringLiteralLike(n.arguments[0])
    ) {
      out.push(n.arguments[0].text);
    } else if (
      ts.isImportTypeNode(n) &&
      ts.isLiteralTypeNode(n.argument) &&
      ts.isStringLiteral(n.argument.literal)
    ) {
      out.push(n.argument.literal.text);
    } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) {
      out.push((n.moduleReference.expression as ts.StringLiteral).text);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/**
 * A file's place: the longest folder of the order that holds it (`results/interop` before
 * `results`; a subfolder such as `servers/sources` belongs to `servers`), a root file's name, or,
 * for a folder the order does not name, the file's own folder.
 */
function unitOf(file: string, order: string[]): string {
  const rel = relative(SRC, file);
  const dir = dirname(rel);
  if (dir === ".") return rel;
  let best: string | undefined;
  for (const unit of order) {
    if ((dir === unit || dir.startsWith(`${unit}/`)) && unit.length > (best?.length ?? -1)) best = unit;
  }
  return best ?? dir;
}

/** Rank in the order: higher imports lower. Folders by their position in the layout list, cli.ts above, version.ts below. */
function ranker(order: string[]): (unit: string) => number | undefined {
  return (unit) => {
    if (ROOT_FILES[unit] === "top") return order.length;
    if (ROOT_FILES[unit] === "bottom") return -1;
    const i = order.indexOf(unit);
    return i < 0 ? undefined : order.length - 1 - i;
  };
}

interface Edge {
  from: string;
  to: string;
}

/** The imports between files of src/ (paths relative to the repository). */
function sourceEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(SRC)) {
    for (const spec of importSpecifiers(readFileSync(file, "utf8"), file)) {
      if (!spec.startsWith(".")) continue;
      const target = resolve(dirname(file), spec).replace(/\.js$/, ".ts");
      edges.push({
        from: relative(ROOT, file),
        to: relative(ROOT, existsSync(target) ? target : resolve(dirname(file), spec)),
      });
    }
  }
  return edges;
}

/** The edges that point up (or out of src/, or into a folder the order does not name). */
function upward(edges: Edge[], order: string[]): string[] {
  const rank = ranker(order);
  const out: string[] = [];
  for (const { from, to } of edges) {
    if (!to.startsWith("src/")) {
      out.push(`${from} → ${to} (outside src/)`);
      continue;
    }
    const a = unitOf(join(ROOT, from), order);
    const b = unitOf(join(ROOT, to), order);
    if (a === b) continue;
    const ra = rank(a);
    const rb = rank(b);
    if (ra === undefined || rb === undefined)
      out.push(`${from} → ${to} (${ra === undefined ? a : b} is not in the order)`);
    else if (rb > ra) out.push(`${from} → ${to} (${a} is below ${b})`);
  }
  return out;
}

const LAYOUT_DOC = readFileSync(join(ROOT, "docs", "development.md"), "utf8");
const ORDER = layoutOrder(LAYOUT_DOC);

describe("layers point one way (docs/development.md layout order)", () => {
  it("the layout list in docs/development.md names every folder of src/ that holds files once, and nothing else", () => {
    // every folder with files is a folder of the order or inside one (servers/sources in servers)
    const holding = [...new Set(sourceFiles(SRC).map((f) => dirname(relative(SRC, f))))].filter(
      (d) => d !== ".",
    );
    expect(holding.filter((d) => !ORDER.some((u) => d === u || d.startsWith(`${u}/`)))).toEqual([]);
    // every folder of the order exists and holds files of its own
    expect(ORDER.filter((u) => !holding.includes(u))).toEqual([]);
    expect(new Set(ORDER).size).toBe(ORDER.length);
    const rootFiles = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();
    expect(rootFiles).toEqual(Object.keys(ROOT_FILES).sort());
  });

  it("no file imports from a folder above its own", () => {
    const edges = sourceEdges();
    const allowed = new Set(EXCEPTIONS.map((e) => `${e.from} → ${e.to}`));
    const found = upward(edges, ORDER);
    const unexplained = found.filter((line) => !allowed.has(line.replace(/ \(.*\)$/, "")));
    expect(unexplained).toEqual([]);
    const stale = [...allowed].filter((key) => !found.some((line) => line.startsWith(`${key} (`)));
    expect(stale).toEqual([]);
  });

  it("every exception says why", () => {
    for (const e of EXCEPTIONS) expect(e.reason.length).toBeGreaterThan(20);
  });

  it("the check can fail: an upward import, a folder the order lacks and a root file's place", () => {
    const order = ["cli", "run", "stats"];
    expect(
      upward(
        [
          { from: "src/stats/a.ts", to: "src/run/b.ts" },
          { from: "src/run/b.ts", to: "src/stats/a.ts" },
          { from: "src/run/b.ts", to: "src/run/c.ts" },
          { from: "src/run/b.ts", to: "src/extra/d.ts" },
          { from: "src/version.ts", to: "src/stats/a.ts" },
          { from: "src/cli.ts", to: "src/cli/main.ts" },
          { from: "src/cli/main.ts", to: "src/cli.ts" },
        ],
        order,
      ),
    ).toEqual([
      "src/stats/a.ts → src/run/b.ts (stats is below run)",
      "src/run/b.ts → src/extra/d.ts (extra is not in the order)",
      "src/version.ts → src/stats/a.ts (version.ts is below stats)",
      "src/cli/main.ts → src/cli.ts (cli is below cli.ts)",
    ]);
  });

  it("the walker sees every kind of import, type-only ones included", () => {
    const code = [
      'import type { A } from "./types.js";',
      'import { b } from "./b.js";',
      'import "./side.js";',
      'export { c } from "./re.js";',
      'export type { D } from "./types2.js";',
      'const m = await import("./lazy.js");',
      'const n = require("./req.js");',
      'type T = typeof import("./typeof.js");',
    ].join("\n");
    expect(importSpecifiers(code)).toEqual([
      "./types.js",
      "./b.js",
      "./side.js",
      "./re.js",
      "./types2.js",
      "./lazy.js",
      "./req.js",
      "./typeof.js",
    ]);
  });

  it("the order is read from the layout list: entries on top, util at the bottom", () => {
    expect(ORDER[0]).toBe("entry/cli");
    expect(ORDER.at(-1)).toBe("util");
    expect(
      layoutOrder("Layout: `src/` x\n\n- `src/a/b/`: top\n- `src/c/`: below\n\nOutside `src/`: y"),
    ).toEqual(["a/b", "c"]);
  });

  it("a file belongs to the longest folder of the order that holds it", () => {
    const order = ["results/interop", "servers", "results"];
    expect(unitOf(join(SRC, "results/interop/load.ts"), order)).toBe("results/interop");
    expect(unitOf(join(SRC, "results/store.ts"), order)).toBe("results");
    expect(unitOf(join(SRC, "servers/sources/deb.ts"), order)).toBe("servers");
    expect(unitOf(join(SRC, "measuring/run/engine.ts"), order)).toBe("measuring/run");
    expect(unitOf(join(SRC, "cli.ts"), order)).toBe("cli.ts");
  });
});
