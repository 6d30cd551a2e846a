/**
 * The gate's one writer: the report files a caller names (Markdown with an optional title, and the
 * comparison JSON), each written atomically. Everything else in src/gate is pure.
 */
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
