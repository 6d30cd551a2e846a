/**
 * The gate's one writer: the report files a caller names (Markdown with an optional title, and the
 * comparison JSON) and the instruction flame graphs beside them, each written atomically.
 * Everything else in src/gate is pure.
 */
import { join } from "node:path";
import { comparisonFlameGraphs } from "../analysis/compare/compare.js";
import { graphDataName } from "../measuring/profiles/data-name.js";
import { writeFileAtomic } from "../results/store.js";
import type { GateResult } from "./gate.js";

/** Writes the Markdown report (with an optional first line) and the JSON comparison, atomically. */
export function writeGateFiles(
  gate: GateResult,
  files: { markdown?: string | undefined; json?: string | undefined; title?: string },
): void {
  if (files.markdown) {
    const title = files.title ? `${files.title}\n\n` : "";
    writeFileAtomic(files.markdown, `${title}${gate.markdown}\n`);
  }
  if (files.json) writeFileAtomic(files.json, `${gate.json}\n`);
}

/**
 * The differential flame graph (instructions per transaction) of each compared cell whose two
 * sides kept folded stacks, written into `dir` as `<stem>.instructions-<script>-<threads>t-<tier>.svg`
 * (src/measuring/profiles/names.ts): what `perfgate ab`, `perfgate compare --out` and the action write,
 * and what `history append` finds beside a results file named `<stem>.json` for the trend site's
 * run page, each with its data beside it as `<graph>.json` for the page's interactive renderer
 * (src/measuring/profiles/data.ts). Returns the paths of the graphs written.
 */
export function writeInstructionGraphs(gate: GateResult, dir: string, stem: string): string[] {
  return comparisonFlameGraphs(gate.report, gate.sets, stem).map((f) => {
    const path = join(dir, f.name);
    writeFileAtomic(path, f.svg);
    writeFileAtomic(join(dir, graphDataName(f.name)), f.data);
    return path;
  });
}
