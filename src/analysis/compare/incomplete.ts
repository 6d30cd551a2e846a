/**
 * Whether the compared files hold everything their runs planned: a results or A/B document whose
 * status is not `complete`, or that compared fewer cells than it planned (`cells_planned`), is
 * incomplete, and says so in one line: the status and its reason, and which cells were not
 * measured and why. A comparison of an incomplete file is judged on its finished cells only, so the
 * gate never passes it (src/gate/gate.ts). Pure.
 */
import type { CellV2, ResultsV2 } from "../../results/schema.js";
import { plural } from "../../util/plural.js";
import { terminalLine } from "../../util/terminal.js";
import { abCellCompared, type MeasurementSet } from "./model.js";

/** Cells named in the line before "and N more". */
const NAMED_CELLS = 3;
/** A cell's error is cut to this many characters in the line. */
const ERROR_CHARS = 120;

/**
 * Why a run's or an A/B's results are not complete, one line ("A/B run incomplete: interrupted");
 * null when their status is `complete`.
 */
export function incompleteReason(
  results: { status: string; status_reason?: string | undefined },
  what = "A/B run",
): string | null {
  if (results.status === "complete") return null;
  return `${what} ${results.status}${results.status_reason ? `: ${oneLine(results.status_reason)}` : ""}`;
}

/** One line from a file's text (a reason, an error): control characters and line breaks escaped. */
const oneLine = terminalLine;

function cut(text: string): string {
  const line = oneLine(text);
  return line.length > ERROR_CHARS ? `${line.slice(0, ERROR_CHARS - 1)}…` : line;
}

function cellName(c: Pick<CellV2, "script" | "threads" | "tier">): string {
  return `${c.script}/${c.threads}t/${c.tier}`;
}

/** An A/B's cells that were not compared, each with why; and how many it compared. */
function abNotMeasured(doc: ResultsV2): { compared: number; missing: string[] } {
  const missing: string[] = [];
  let compared = 0;
  for (const c of doc.cells) {
    if (abCellCompared(c)) {
      compared++;
      continue;
    }
    const why =
      c.status === "failed"
        ? `failed${c.error ? `: ${cut(c.error)}` : ""}`
        : doc.interleaved?.design.throughput_not_measured
          ? "no instruction counts"
          : "not finished";
    missing.push(`${cellName(c)} (${why})`);
  }
  return { compared, missing };
}

/**
 * A run's measurements that were not compared (its `cells_planned` counts the repetitions: the
 * observations of its cells), each with why; and how many it compared.
 */
function runNotMeasured(doc: ResultsV2): { compared: number; missing: string[] } {
  const missing: string[] = [];
  let compared = 0;
  for (const c of doc.cells) {
    for (const o of c.observations) {
      const run = o.run;
      if (run?.status === "ok" && run.summary !== null) {
        compared++;
        continue;
      }
      const why = run?.status === "failed" ? `failed${run.error ? `: ${cut(run.error)}` : ""}` : "no summary";
      missing.push(`${cellName(c)} on ${o.side} (${why})`);
    }
  }
  return { compared, missing };
}

/** One document's line: its status, and the planned cells not measured and why; null when complete. */
export function documentIncomplete(doc: ResultsV2): string | null {
  const what = doc.interleaved ? "A/B run" : "run";
  const { compared, missing } = doc.interleaved ? abNotMeasured(doc) : runNotMeasured(doc);
  const status = incompleteReason(doc, what);
  const notMeasured = Math.max(doc.cells_planned - compared, missing.length);
  if (status === null && notMeasured === 0) return null;
  if (notMeasured === 0) return status;
  const notStarted = notMeasured - missing.length;
  const named = [
    ...missing.slice(0, NAMED_CELLS),
    ...(missing.length > NAMED_CELLS ? [`${missing.length - NAMED_CELLS} more`] : []),
    ...(notStarted > 0 ? [`${notStarted} not started`] : []),
  ];
  const cells = `${notMeasured} of ${plural(doc.cells_planned, "planned cell")} not measured: ${named.join(", ")}`;
  return status === null ? `${what} complete, but ${cells}` : `${status}; ${cells}`;
}

/**
 * Why the compared sets are not complete, one line (each file's own, named by file when there are
 * several); null when every results document among them is complete. Imported measurements and
 * a baseline pooled from the history store have no status: they count as complete.
 */
export function setsIncomplete(sets: readonly MeasurementSet[]): string | null {
  const lines: string[] = [];
  const documents = sets.filter((s) => s.document !== undefined);
  for (const s of documents) {
    const line = documentIncomplete(s.document!);
    if (line !== null) lines.push(documents.length > 1 ? `${s.file}: ${line}` : line);
  }
  return lines.length > 0 ? lines.join("; ") : null;
}
