/**
 * The pull-request comment's body and its two hidden markers, shared by the action (which posts it,
 * src/entry/action/comment.ts) and `perfgate compare --format comment` (which prints it). The first
 * marker, `<!-- perfgate:<workload> -->`, finds the one comment per PR and workload; the second
 * keeps the verdict and its digest, so `comment: on-change` can tell whether anything changed and
 * a later run can say that a regression reported earlier is gone. Pure: no I/O.
 */

import type { MeasurementSet } from "../analysis/compare/model.js";
import { overallVerdict, VERDICT_ORDER, type Verdict } from "../analysis/compare/verdicts.js";
import { mdEscape } from "../output/report/escape.js";
import { type PrReportInput, renderPrReport, verdictLine } from "../output/report/pr-comment.js";
import { safeUrl } from "../util/safe-url.js";
import { verdictDigest } from "./digest.js";
import type { GateResult } from "./gate.js";

/** GitHub refuses issue comments longer than this (characters). */
export const GITHUB_COMMENT_LIMIT = 65_536;
/** What the body aims for: a margin below the limit (GitHub counts some characters differently). */
const BODY_BUDGET = 60_000;

/** Workload names go into an HTML comment: keep them to a safe alphabet. */
export function markerName(workload: string): string {
  const clean = workload.replace(/[^A-Za-z0-9_.-]/g, "-").slice(0, 100);
  return clean === "" ? "workload" : clean;
}

export function commentMarker(workload: string): string {
  return `<!-- perfgate:${markerName(workload)} -->`;
}

export interface CommentState {
  verdict: Verdict;
  digest: string;
  sha: string | null;
}

const STATE_RE = /<!-- perfgate-state verdict=([a-z]+) digest=([0-9a-f]+) sha=([0-9a-f]*) -->/;

export function stateMarker(s: CommentState): string {
  return `<!-- perfgate-state verdict=${s.verdict} digest=${s.digest} sha=${s.sha ?? ""} -->`;
}

export function parseCommentState(body: string): CommentState | null {
  const m = STATE_RE.exec(body);
  if (!m || !(VERDICT_ORDER as readonly string[]).includes(m[1]!)) return null;
  return { verdict: m[1] as Verdict, digest: m[2]!, sha: m[3] ? m[3] : null };
}

export interface CommentInput extends Omit<PrReportInput, "verdict" | "heading" | "notices" | "budget"> {
  /** the state stored in the action's own existing comment, if any */
  previous: CommentState | null;
  /** logins (validated, without @) to mention when the verdict is a regression: trusted config */
  ccUsers?: readonly string[];
}

/** A comment body, its state, and the short body that replaces it when GitHub refuses it. */
export interface CommentBody {
  body: string;
  state: CommentState;
  /** the short comment (markers, verdict, where the full report is), saying why (`reason`) */
  short: (reason: string) => string;
}

/** The comment body: the two hidden markers, then the report a reviewer reads in ten seconds. */
export function buildCommentBody(c: CommentInput): CommentBody {
  const { previous, ccUsers, ...rest } = c;
  const verdict = overallVerdict(c.report);
  const state: CommentState = { verdict, digest: verdictDigest(c.report), sha: c.head.sha };
  const prefix = `${commentMarker(c.workload)}\n${stateMarker(state)}\n`;
  const notices: string[] = [];
  if (previous?.verdict === "regression" && verdict !== "regression") {
    const at = c.head.sha ? `\`${c.head.sha.slice(0, 12)}\`` : "this run";
    notices.push(
      verdict === "inconclusive"
        ? `❔ The regression reported earlier is not confirmed as of ${at}, but this run is inconclusive: it does not show that it is gone.`
        : `✅ The regression reported earlier is gone as of ${at}.`,
    );
  }
  // The workflow's own input, validated as logins: the one place a mention is meant to notify.
  if (verdict === "regression" && ccUsers && ccUsers.length > 0) {
    notices.push(`cc ${ccUsers.map((u) => `@${u}`).join(" ")}`);
  }
  const report = renderPrReport({
    ...rest,
    verdict,
    heading: "###",
    notices,
    budget: BODY_BUDGET - prefix.length,
  });
  return {
    body: `${prefix}${report}`,
    state,
    short: (reason) => `${prefix}${shortReport(c, verdict, reason)}`,
  };
}

/**
 * The short comment: the verdict line, why the full comment is not here, and where the full
 * report is (the job summary of the workflow run, report.md in the results artifact). Always a
 * few hundred characters: every name in it is cut (verdictLine), every link checked (safeUrl).
 */
function shortReport(c: CommentInput, verdict: Verdict, reason: string): string {
  const run = safeUrl(c.runUrl);
  const artifact = c.artifact && safeUrl(c.artifact.url) ? c.artifact : null;
  const where = [
    run ? `the job summary of [the workflow run](${run})` : "the job summary of the workflow run",
    artifact
      ? `report.md in [${mdEscape(artifact.label.slice(0, 100))}](${artifact.url})`
      : "report.md in the results artifact",
  ];
  const at = c.head.sha ? ` for \`${c.head.sha.slice(0, 12)}\`` : "";
  return [
    verdictLine({ workload: c.workload, verdict, report: c.report, heading: "###", sets: c.sets }),
    "",
    `The full report${at} could not be posted here (${mdEscape(reason.slice(0, 200))}). It is in ${where.join(" and in ")}.`,
    "",
    `<sub>perfgate ${mdEscape(c.perfgateVersion.slice(0, 40))}</sub>`,
    "",
  ].join("\n");
}

/** The workload the sets' files recorded (the first that has one; imports record none). */
export function recordedWorkload(sets: readonly MeasurementSet[]): string | null {
  for (const s of sets) {
    const name = s.document?.workload.name;
    if (name) return name;
  }
  return null;
}

/**
 * The comment the action would post for this gate, as a first comment on its pull request, without
 * links (no repository, commits, run or artifact are known outside GitHub Actions):
 * `perfgate compare --format comment`.
 */
export function commentPreview(gate: Pick<GateResult, "report" | "sets">, perfgateVersion: string): string {
  return buildCommentBody({
    workload: recordedWorkload(gate.sets) ?? "comparison",
    report: gate.report,
    sets: gate.sets,
    repoUrl: null,
    base: { sha: null, ref: null },
    head: { sha: null, ref: null },
    runUrl: null,
    artifact: null,
    perfgateVersion,
    previous: null,
  }).body;
}
