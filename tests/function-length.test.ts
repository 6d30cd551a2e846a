/**
 * Code shape: no function in src/ is longer than LIMIT lines unless a comment right above it says
 * why (a line containing "Long because:"). Long functions hide several concerns; this keeps the
 * reason visible where someone would split it.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./helpers/source-files.js";

const LIMIT = 80;
const ROOT = join(import.meta.dirname, "..");
const MARK = "Long because:";

type FunctionNode = ts.FunctionLikeDeclaration;

function isFunction(n: ts.Node): n is FunctionNode {
  return (
    ts.isFunctionDeclaration(n) ||
    ts.isMethodDeclaration(n) ||
    ts.isArrowFunction(n) ||
    ts.isFunctionExpression(n) ||
    ts.isConstructorDeclaration(n) ||
    ts.isGetAccessorDeclaration(n) ||
    ts.isSetAccessorDeclaration(n)
  );
}

/** The comments before the function or the statement/property that holds it. */
function leadingComments(sf: ts.SourceFile, n: ts.Node): string {
  const text = sf.getFullText();
  let holder: ts.Node = n;
  while (
    holder.parent &&
    (ts.isVariableDeclaration(holder.parent) ||
      ts.isVariableDeclarationList(holder.parent) ||
      ts.isVariableStatement(holder.parent) ||
      ts.isPropertyAssignment(holder.parent) ||
      ts.isPropertyDeclaration(holder.parent) ||
      ts.isExportAssignment(holder.parent) ||
      ts.isCallExpression(holder.parent) ||
      ts.isExpressionStatement(holder.parent))
  ) {
    holder = holder.parent;
  }
  const ranges = [
    ...(ts.getLeadingCommentRanges(text, holder.getFullStart()) ?? []),
    ...(ts.getLeadingCommentRanges(text, n.getFullStart()) ?? []),
  ];
  return ranges.map((r) => text.slice(r.pos, r.end)).join("\n");
}

function nameOf(n: FunctionNode): string {
  if (n.name) return n.name.getText();
  const p = n.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p))) return p.name.getText();
  return "<anonymous>";
}

interface Long {
  where: string;
  name: string;
  lines: number;
}

function longFunctions(): Long[] {
  const found: Long[] = [];
  for (const file of sourceFiles(join(ROOT, "src"))) {
    const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node): void => {
      if (isFunction(n) && n.body) {
        const start = sf.getLineAndCharacterOfPosition(n.getStart()).line;
        const end = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
        const lines = end - start + 1;
        if (lines > LIMIT && !leadingComments(sf, n).includes(MARK)) {
          found.push({ where: `${relative(ROOT, file)}:${start + 1}`, name: nameOf(n), lines });
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return found.sort((a, b) => b.lines - a.lines);
}

describe("function length", () => {
  it(`no function in src/ is over ${LIMIT} lines without a "${MARK}" comment`, () => {
    const long = longFunctions().map((f) => `${f.where} ${f.name}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });

  it("the scanner finds a long function and honours the reason comment", () => {
    const body = Array.from({ length: LIMIT + 5 }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const code = `function f() {\n${body}\n}\n// ${MARK} a table\nconst g = () => {\n${body}\n};\n`;
    const sf = ts.createSourceFile("x.ts", code, ts.ScriptTarget.Latest, true);
    const seen: Array<[string, boolean]> = [];
    const visit = (n: ts.Node): void => {
      if (isFunction(n)) seen.push([nameOf(n), leadingComments(sf, n).includes(MARK)]);
      ts.forEachChild(n, visit);
    };
    visit(sf);
    expect(seen).toEqual([
      ["f", false],
      ["g", true],
    ]);
  });
});
