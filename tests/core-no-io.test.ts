/**
 * Code shape: the analysis core — src/analysis/stats, src/analysis/compare, src/output/report, src/analysis/changes, the gate's
 * judging and rendering, the trend site's model, ... (CORE) — does no I/O. Every file there, and
 * everything it imports transitively (type-only imports aside), may import only pure Node modules
 * (PURE_NODE, or the named functions of PURE_NODE_NAMED) and pure packages (PURE_PACKAGES). Reading files, running processes and
 * talking to servers belong to the layers around it (src/inputs, src/servers, src/entry/cli, ...).
 */

import { existsSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./helpers/source-files.js";

const ROOT = join(import.meta.dirname, "..");
const CORE = [
  "src/analysis/stats",
  "src/analysis/compare",
  "src/output/report",
  "src/analysis/changes",
  "src/measuring/profiles",
  "src/measuring/bisect/core",
  "src/gate",
  "src/output/pages/model.ts",
];
/** Files inside a CORE folder that are its one writer, kept apart from the pure rest. */
const CORE_WRITERS = new Set(["src/gate/files.ts"]);
/** Node modules that compute without touching the outside world. */
const PURE_NODE = new Set(["path"]);
/**
 * Node modules of which the core may use only the named functions: a sha256 computes (ids for
 * verdict digests and page series); nothing else of node:crypto (random numbers, keys) is allowed.
 */
const PURE_NODE_NAMED: Readonly<Record<string, ReadonlySet<string>>> = { crypto: new Set(["createHash"]) };
/** npm packages the core may use: validation, and parsing CSV text already read. */
const PURE_PACKAGES = new Set(["zod", "csv-parse"]);

/** The specifiers a file loads at run time: value imports, re-exports, import() and require(). */
function runtimeImports(code: string, file = "x.ts"): string[] {
  const sf = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) && !n.importClause?.isTypeOnly) {
      out.push((n.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && !n.isTypeOnly) {
      out.push((n.moduleSpecifier as ts.StringLiteral).text);
    } else if (
      ts.isCallExpression(n) &&
      (n.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(n.expression) && n.expression.text === "require")) &&
      n.arguments[0] &&
      ts.isStringLiteralLike(n.arguments[0])
    ) {
      out.push(n.arguments[0].text);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/**
 * The value imports of `spec` in a file: how many import declarations name it, and the names they
 * take (`import { a, b as c } from spec` gives a, b); names is null when one takes the module whole
 * (a default or namespace import). A bare `import spec` counts as a declaration taking no name.
 */
function valueImportsOf(code: string, spec: string): { declared: number; names: string[] | null } {
  const sf = ts.createSourceFile("x.ts", code, ts.ScriptTarget.Latest, true);
  let declared = 0;
  let names: string[] | null = [];
  for (const n of sf.statements) {
    if (!ts.isImportDeclaration(n) || (n.moduleSpecifier as ts.StringLiteral).text !== spec) continue;
    const clause = n.importClause;
    if (clause?.isTypeOnly) continue;
    declared++;
    if (!clause) continue; // `import "node:crypto"`: loads it and takes no name
    if (clause.name || !clause.namedBindings || !ts.isNamedImports(clause.namedBindings)) names = null;
    else if (names) {
      for (const el of clause.namedBindings.elements) {
        if (!el.isTypeOnly) names.push((el.propertyName ?? el.name).text);
      }
    }
  }
  return { declared, names };
}

/**
 * Whether every way `code` loads the Node module `bare` is one PURE_NODE_NAMED allows: each load
 * the walker sees is an import declaration (not a re-export or import()) taking only allowed names.
 */
function pureNamedUse(code: string, spec: string, bare: string): boolean {
  const allowed = PURE_NODE_NAMED[bare];
  if (!allowed) return false;
  const loads = runtimeImports(code).filter((s) => s === spec).length;
  const { declared, names } = valueImportsOf(code, spec);
  return loads === declared && names !== null && names.every((n) => allowed.has(n));
}

/** The first chain of imports from `start` to a module the core may not use; null when none. */
function firstImpureChain(start: string, seen: Set<string>): string[] | null {
  const stack: { file: string; chain: string[] }[] = [{ file: start, chain: [relative(ROOT, start)] }];
  while (stack.length > 0) {
    const { file, chain } = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(file, "utf8");
    for (const spec of runtimeImports(code, file)) {
      if (spec.startsWith(".")) {
        const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
        if (!existsSync(target)) return [...chain, `${spec} (not found)`];
        stack.push({ file: target, chain: [...chain, relative(ROOT, target)] });
        continue;
      }
      const bare = spec.replace(/^node:/, "");
      const isNode = spec.startsWith("node:") || builtinModules.includes(bare.split("/")[0]!);
      const pkg = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!;
      if (isNode && !PURE_NODE.has(bare) && pureNamedUse(code, spec, bare)) continue;
      if (isNode ? !PURE_NODE.has(bare) : !PURE_PACKAGES.has(pkg)) return [...chain, spec];
    }
  }
  return null;
}

describe("the analysis core does no I/O", () => {
  it("no file of the core reaches an I/O module", () => {
    const problems: string[] = [];
    for (const dir of CORE) {
      for (const file of sourceFiles(join(ROOT, dir))) {
        if (CORE_WRITERS.has(relative(ROOT, file))) continue;
        const chain = firstImpureChain(file, new Set());
        if (chain) problems.push(chain.join(" → "));
      }
    }
    expect(problems).toEqual([]);
  });

  it("the walker sees value imports, re-exports, import() and require(), not type-only imports", () => {
    const code = [
      'import type { A } from "./types.js";',
      'import { readFileSync } from "node:fs";',
      'import { type B } from "./kept.js";',
      'export { c } from "./re.js";',
      'export type { D } from "./types2.js";',
      'const m = await import("node:child_process");',
      'const n = require("net");',
    ].join("\n");
    expect(runtimeImports(code)).toEqual(["node:fs", "./kept.js", "./re.js", "node:child_process", "net"]);
  });

  it("node:crypto is pure only for createHash: random bytes, namespace and default imports are not", () => {
    const hash = 'import { createHash } from "node:crypto";';
    expect(pureNamedUse(hash, "node:crypto", "crypto")).toBe(true);
    for (const code of [
      'import { createHash, randomBytes } from "node:crypto";',
      'import * as c from "node:crypto";',
      'import c from "node:crypto";',
      `${hash}\nconst r = await import("node:crypto");`,
      'export { randomUUID } from "node:crypto";',
    ]) {
      expect(pureNamedUse(code, "node:crypto", "crypto"), code).toBe(false);
    }
    expect(pureNamedUse('import { readFileSync } from "node:fs";', "node:fs", "fs")).toBe(false);
  });

  it("the gate's writer is outside the pure part (the check can fail)", () => {
    const chain = firstImpureChain(join(ROOT, "src/gate/files.ts"), new Set());
    expect(chain).not.toBeNull();
  });

  it("finds the file reading in the loader outside the core (the check can fail)", () => {
    const chain = firstImpureChain(join(ROOT, "src/results/interop/load.ts"), new Set());
    expect(chain).not.toBeNull();
    expect(chain!.at(-1)).toMatch(/^node:fs|^fs/);
  });
});
