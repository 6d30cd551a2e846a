/**
 * What a report says about a baseline pooled from the history store: one line naming the runs'
 * branch, runner class, commit range and ages ("Baseline: the last 5 runs of main on runner class
 * X (commits abc1234…def5678, 2 to 9 days old)"), and the list of runs. Markdown (commit links when
 * a run records its commit page or the repository URL is known) and plain text. Pure.
 */
import {
  ageDays,
  ageText,
  type BaselineProvenance,
  type BaselineRun,
} from "../../results/import/provenance.js";
import { safeUrl } from "../../util/safe-url.js";
import { mdEscape, plainText } from "./escape.js";

/** Runs listed at most; the rest are counted. */
const MAX_LISTED = 10;

function shortCommit(sha: string): string {
  return sha.replace(/[^0-9A-Za-z]/g, "").slice(0, 7) || "?";
}

function commitUrl(run: BaselineRun, repoUrl: string | null): string | null {
  const url = run.commit_url ?? (repoUrl ? `${repoUrl}/commit/${run.commit}` : null);
  return safeUrl(url);
}

function commitMd(run: BaselineRun, repoUrl: string | null): string {
  const code = `\`${shortCommit(run.commit)}\``;
  const url = commitUrl(run, repoUrl);
  return url ? `[${code}](${url})` : code;
}

/** "the last 5 runs of main on runner class X" with what was asked for when fewer were found. */
function whichRuns(p: BaselineProvenance, esc: (s: string) => string, code: (s: string) => string): string {
  const n = p.runs.length;
  const runs = n === 1 ? "the last run" : `the last ${n} runs`;
  const within = p.max_age_days === null ? "" : ` within ${p.max_age_days} days`;
  const why = (p.left_out ?? []).map((l) => `${l.runs} ${esc(l.reason)}`).join("; ");
  const short =
    n < p.runs_requested
      ? ` (${p.runs_requested} asked for, ${n} found${why ? `; left out: ${why}` : within})`
      : "";
  return `${runs} of ${esc(p.branch)} on runner class ${code(p.runner_class)}${short}`;
}

/** The one-line summary; `markdown` gives commit links (the run's page, else `repoUrl`). */
export function baselineHistoryLine(
  p: BaselineProvenance,
  markdown: boolean,
  repoUrl: string | null = null,
): string {
  const first = p.runs[0]!;
  const last = p.runs[p.runs.length - 1]!;
  const commit = (r: BaselineRun) => (markdown ? commitMd(r, repoUrl) : shortCommit(r.commit));
  const commits =
    p.runs.length === 1 ? `commit ${commit(first)}` : `commits ${commit(first)}…${commit(last)}`;
  const which = markdown
    ? whichRuns(p, mdEscape, (s) => `\`${plainText(s).replaceAll("`", "'")}\``)
    : whichRuns(p, plainText, plainText);
  return `${markdown ? "**Baseline:**" : "Baseline:"} ${which} (${commits}, ${ageText(p)})`;
}

/** The runs as one Markdown line: commit link and age each, oldest first. */
export function baselineRunsMarkdown(p: BaselineProvenance, repoUrl: string | null = null): string {
  const shown = p.runs.slice(-MAX_LISTED).map((r) => `${commitMd(r, repoUrl)} ${ageDays(r.date, p.as_of)} d`);
  const more = p.runs.length > MAX_LISTED ? `… ${p.runs.length - MAX_LISTED} older, ` : "";
  return `**Baseline runs** (commit, age): ${more}${shown.join(" · ")}`;
}

/** The runs as text lines: id, date, commit, age. */
export function baselineRunsText(p: BaselineProvenance): string[] {
  return p.runs.map(
    (r) =>
      `  ${plainText(r.id)}  ${plainText(r.date)}  ${plainText(r.commit.slice(0, 12))}  ${ageDays(r.date, p.as_of)} d old`,
  );
}
