/**
 * `perfgate import --sysbench-log`: plain sysbench 1.0.x output (run with `--report-interval`), as
 * anyone running sysbench by hand or through a script keeps it, turned into a perfgate/results
 * file, so that `perfgate report` and `compare` read it (e.g. to check it for within-run
 * degradation). A log holding several runs (one `sysbench 1.0.x` header each) gives one cell per
 * run. Usage: docs/interop.md; fields: docs/results-schema.md.
 */
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { basename } from "node:path";
import { parseSysbenchOutput, type SysbenchOutput } from "../../measuring/sysbench/parse.js";
import { readTextFile } from "../../util/documents.js";
import { refusal, UsageError, UserError } from "../../util/errors.js";
import { plural } from "../../util/plural.js";
import { PERFGATE_VERSION } from "../../version.js";
import {
  type Cell,
  RESULTS_SCHEMA,
  RESULTS_SCHEMA_VERSION,
  type Results,
  SCRIPT_NAME,
  ScriptSchema,
} from "../schema.js";

export interface SysbenchLogOptions {
  /** the sysbench script (default: found in the log, e.g. a command line `sysbench oltp_write_only run`) */
  script?: string;
  /** client threads (default: the log's `Number of threads:` or its interval lines' `thds:`) */
  threads?: number;
  /** the name the runs are shown under (default: the file name without extension) */
  label?: string;
}

/** Largest log read (bytes): a week of 1-second intervals is ~20 MB. */
export const SYSBENCH_LOG_MAX_BYTES = 256 * 1024 * 1024;

const HEADER_RE = /^sysbench\s+\d+\.\d+\.\d+/;
const SCRIPT_RE =
  /(?:^|[\s/'"=])((?:oltp_[a-z_]+|select_random_[a-z]+|bulk_insert)(?:\.lua)?|[\w./-]+\.lua)\b/;
const NOT_A_LOG =
  'no sysbench interval lines ("[ 10s ] thds: ... tps: ...") nor a final summary: expected the output of `sysbench ... run --report-interval=N` (sysbench 1.0.x)';

/** The log split at each `sysbench 1.0.x` header: [text before the header (a command line?), run]. */
function runsOf(text: string): { before: string; body: string }[] {
  const lines = text.split("\n");
  const starts: number[] = [];
  for (let i = 0; i < lines.length; i++) if (HEADER_RE.test(lines[i]!.trim())) starts.push(i);
  if (starts.length === 0) return [{ before: "", body: text }];
  const out: { before: string; body: string }[] = [];
  for (let k = 0; k < starts.length; k++) {
    const from = starts[k]!;
    const to = starts[k + 1] ?? lines.length;
    const prev = k === 0 ? 0 : starts[k - 1]!;
    const beforeLines = lines.slice(Math.max(prev, from - 5), from);
    out.push({ before: beforeLines.join("\n"), body: `${lines.slice(from, to).join("\n")}\n` });
  }
  return out;
}

function scriptOf(before: string, body: string): string | null {
  for (const text of [before, body]) {
    for (const line of text.split("\n")) {
      if (!/sysbench|\.lua|oltp_/.test(line) || /^\s*\[/.test(line)) continue;
      const m = SCRIPT_RE.exec(line);
      if (m) return m[1]!.replace(/\.lua$/, (x) => (m[1]!.includes("/") ? x : ""));
    }
  }
  return null;
}

/** The script a run of the log names, as a results file can hold it; else one line saying to pass --script. */
function scriptIn(file: string, run: { before: string; body: string }): string {
  const script = scriptOf(run.before, run.body);
  if (script === null) {
    throw new UserError(
      `${file}: the log does not name the sysbench script (no "sysbench <script> run" line): pass --script, e.g. --script oltp_write_only`,
    );
  }
  if (!ScriptSchema.safeParse(script).success) {
    throw new UserError(
      `${file}: the log names a sysbench script of ${script.length} characters, longer than a results file holds: pass --script, e.g. --script oltp_write_only`,
    );
  }
  return script;
}

function threadsOf(out: SysbenchOutput): number | null {
  if (out.threads !== null && out.threads > 0) return out.threads;
  const t = out.intervals.find((i) => i.threads > 0)?.threads;
  return t ?? null;
}

function checkOptions(o: SysbenchLogOptions): void {
  if (o.threads !== undefined && !(Number.isInteger(o.threads) && o.threads > 0 && o.threads <= 100_000)) {
    throw new UsageError(refusal(`--threads ${o.threads}`, "a whole number from 1 to 100000"));
  }
  if (o.script !== undefined && !SCRIPT_NAME.test(o.script)) {
    throw new UsageError(
      refusal(
        `--script ${JSON.stringify(o.script)}`,
        "a sysbench script name such as oltp_write_only or a .lua path",
      ),
    );
  }
  if (o.label !== undefined && !/^[^\r\n]{1,100}$/.test(o.label)) {
    throw new UsageError(refusal(`--label ${JSON.stringify(o.label)}`, "1 to 100 characters on one line"));
  }
}

/** One cell per run in the log. */
function cellsOf(
  file: string,
  text: string,
  o: SysbenchLogOptions,
  label: string,
  when: string,
): { cells: Cell[]; version: string | null } {
  const cells: Cell[] = [];
  let version: string | null = null;
  const reps = new Map<string, number>();
  for (const run of runsOf(text)) {
    const out = parseSysbenchOutput(run.body);
    if (out.intervals.length === 0 && out.summary === null) continue; // e.g. `prepare` output
    version ??= out.version;
    const script = o.script ?? scriptIn(file, run);
    const threads = o.threads ?? threadsOf(out);
    if (threads === null) {
      throw new UserError(
        `${file}: the log does not give the thread count: pass --threads, e.g. --threads 64`,
      );
    }
    const key = `${script}/${threads}`;
    const repetition = (reps.get(key) ?? 0) + 1;
    reps.set(key, repetition);
    const ok = out.summary !== null;
    const error = out.fatal[0] ?? "no final summary in the log (the run was cut short)";
    cells.push({
      id: `${label}/${script}/${threads}t/r${repetition}`,
      server: label,
      workload: label,
      script,
      threads,
      tier: "n/a",
      repetition,
      status: ok ? "ok" : "failed",
      ...(ok ? {} : { error: error.slice(0, 300) }),
      started_at: when,
      ended_at: when,
      duration_s: out.summary?.total_time_s ?? out.intervals.at(-1)?.t ?? 0,
      sysbench_args: [],
      summary: out.summary,
      intervals: out.intervals,
      ...(out.anomalies ? { anomalies: out.anomalies } : {}),
      status_deltas: {},
      telemetry: [],
    });
  }
  return { cells, version };
}

/**
 * Reads a sysbench log and returns it as a results file (not written). Throws a one-line UserError
 * when the file is not sysbench output or the script/threads cannot be told.
 */
export function importSysbenchLog(file: string, options: SysbenchLogOptions = {}): Results {
  checkOptions(options);
  let size: number;
  let mtime: Date;
  try {
    const st = statSync(file);
    size = st.size;
    mtime = st.mtime;
  } catch {
    throw new UserError(`${file}: no such file`);
  }
  if (size > SYSBENCH_LOG_MAX_BYTES) {
    throw new UserError(
      `${file}: ${size} bytes; accepted: a sysbench log up to ${SYSBENCH_LOG_MAX_BYTES} bytes`,
    );
  }
  return sysbenchLogToResults(readTextFile(file), file, options, mtime);
}

/**
 * A sysbench log's text as a results file (importSysbenchLog without the file system): `file`
 * names it in errors and in the results, `mtime` stamps the runs.
 */
export function sysbenchLogToResults(
  text: string,
  file: string,
  options: SysbenchLogOptions = {},
  mtime = new Date(0),
): Results {
  checkOptions(options);
  const label = options.label ?? (basename(file).replace(/\.[^.]*$/, "") || "sysbench-log");
  const when = mtime.toISOString();
  const { cells, version: found } = cellsOf(file, text, options, label, when);
  if (cells.length === 0) throw new UserError(`${file}: ${NOT_A_LOG}`);
  const version = found ?? "unknown";
  const failed = cells.filter((c) => c.status !== "ok").length;
  const sha256 = createHash("sha256").update(text).digest("hex");
  return {
    schema: RESULTS_SCHEMA,
    schema_version: RESULTS_SCHEMA_VERSION,
    status: failed === 0 ? "complete" : "incomplete",
    ...(failed > 0
      ? { status_reason: `${failed} of ${plural(cells.length, "run")} in the log have no final summary` }
      : {}),
    perfgate_version: PERFGATE_VERSION,
    sysbench: { version, path: "" },
    started_at: when,
    ended_at: when,
    host: { hostname: "", cpu_model: "unknown", cores: 0, memory_bytes: 0, kernel: "", os: "", arch: "" },
    workload: { name: label, file: basename(file), sha256, spec: {} },
    dataset: { tables: 0, table_size: 0 },
    servers: [
      {
        label,
        spec: "sysbench-log",
        flavor: "sysbench-log",
        version: label,
        version_string: "",
        source: "sysbench-log",
        origin: basename(file),
        sha256,
        basedir: "",
        tiers: [],
      },
    ],
    imported: { from: "sysbench-log", file: basename(file), sha256 },
    cells_planned: cells.length,
    cells,
    telemetry_overhead_pct_of_core: null,
  };
}

/** One line for the terminal: what was imported. */
export function sysbenchLogSummary(r: Results): string {
  const odd = r.cells.filter((c) => c.anomalies).length;
  const runs = r.cells.map((c) => `${c.script} ${c.threads}t (${c.intervals.length} intervals)`).join(", ");
  return `${r.cells.length} run${r.cells.length === 1 ? "" : "s"} from a sysbench ${r.sysbench.version} log: ${runs}${odd > 0 ? `; ${odd} with unusual output (see the report)` : ""}`;
}
