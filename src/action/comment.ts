/**
 * The pull-request comment: exactly one per PR and workload, found by the hidden marker
 * `<!-- perfgate:<workload> -->` and updated in place. A second hidden marker keeps the verdict and
 * its digest so that `comment: on-change` can tell whether anything changed, and so that a later
 * run can say that a regression reported earlier is gone. Untrusted text (branch and engine names,
 * scenario names, error messages) only reaches the body through mdEscape; nothing here runs a shell.
 */
import type { ComparisonReport } from "../compare/schema.js";
import { mdEscape } from "../report/markdown.js";
import { overallVerdict, VERDICTS, type Verdict, verdictDigest } from "./verdict.js";

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
  if (!m || !(VERDICTS as readonly string[]).includes(m[1]!)) return null;
  return { verdict: m[1] as Verdict, digest: m[2]!, sha: m[3] ? m[3] : null };
}

export interface CommentInput {
  workload: string;
  report: ComparisonReport;
  /** renderComparisonMarkdown(report, sets) */
  markdown: string;
  headSha: string | null;
  headRef: string | null;
  /** link to the workflow run, when known */
  runUrl: string | null;
  /** the state stored in the existing comment, if any */
  previous: CommentState | null;
  /** where the full report is when the comment had to be shortened */
  fullReportHint: string;
}

const VERDICT_TITLE: Record<Verdict, string> = {
  regression: "🔴 regression",
  inconclusive: "❔ inconclusive",
  improvement: "🟢 improvement",
  unchanged: "✅ unchanged",
};

function shortSha(sha: string | null): string {
  return sha ? sha.slice(0, 12) : "unknown commit";
}

/** Cuts Markdown at a line boundary to at most `max` characters, closing an open <details>. */
export function truncateMarkdown(text: string, max: number, note: string): string {
  if (text.length <= max) return text;
  const room = Math.max(0, max - note.length - 40);
  let cut = text.slice(0, room);
  const nl = cut.lastIndexOf("\n");
  if (nl > 0) cut = cut.slice(0, nl);
  const opened = (cut.match(/<details>/g) ?? []).length;
  const closed = (cut.match(/<\/details>/g) ?? []).length;
  const close = opened > closed ? "\n\n</details>" : "";
  return `${cut}${close}\n\n${note}\n`;
}

/** The comment body: markers, title, the "gone" notice, head and run, then the report. */
export function buildCommentBody(c: CommentInput): { body: string; state: CommentState } {
  const verdict = overallVerdict(c.report);
  const state: CommentState = { verdict, digest: verdictDigest(c.report), sha: c.headSha };
  const head: string[] = [
    commentMarker(c.workload),
    stateMarker(state),
    `### perfgate: ${mdEscape(c.workload)}: ${VERDICT_TITLE[verdict]}`,
    "",
  ];
  if (c.previous?.verdict === "regression" && verdict !== "regression") {
    head.push(`✅ The regression reported earlier is gone as of ${shortSha(c.headSha)}.`, "");
  }
  const where = [
    `Head: ${c.headRef ? `${mdEscape(c.headRef)} at ` : ""}${shortSha(c.headSha)}`,
    c.runUrl ? `[workflow run](${c.runUrl})` : null,
  ]
    .filter((x): x is string => x !== null)
    .join(" · ");
  head.push(where, "");
  const foot = ["", "---", `<sub>perfgate · ${c.fullReportHint}</sub>`, ""];
  const prefix = head.join("\n");
  const suffix = foot.join("\n");
  const budget = BODY_BUDGET - prefix.length - suffix.length;
  const note = `> ✂️ The report was shortened to fit GitHub's comment limit; the full report is in ${c.fullReportHint}.`;
  const report = truncateMarkdown(c.markdown.trimEnd(), budget, note);
  return { body: `${prefix}\n${report}\n${suffix}`, state };
}

/** The subset of Octokit the comment needs (so tests and the action share one code path). */
export interface IssueCommentsApi {
  paginate: <T>(route: string, params: Record<string, unknown>) => Promise<T[]>;
  request: (route: string, params: Record<string, unknown>) => Promise<{ data: unknown }>;
}

export interface UpsertOptions {
  owner: string;
  repo: string;
  prNumber: number;
  workload: string;
  mode: "always" | "on-change";
  /** builds the body once the existing comment's state is known */
  build: (previous: CommentState | null) => { body: string; state: CommentState };
  info: (message: string) => void;
}

export interface UpsertResult {
  action: "created" | "updated" | "unchanged";
  id: number | null;
  url: string | null;
}

interface ApiComment {
  id: number;
  body?: string | null;
  html_url?: string;
}

/** Finds the workload's comment on the PR (all pages) and updates it, or creates one. */
export async function upsertComment(api: IssueCommentsApi, o: UpsertOptions): Promise<UpsertResult> {
  const marker = commentMarker(o.workload);
  const comments = await api.paginate<ApiComment>(
    "GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
    {
      owner: o.owner,
      repo: o.repo,
      issue_number: o.prNumber,
      per_page: 100,
    },
  );
  const existing = comments.find((c) => typeof c.body === "string" && c.body.includes(marker));
  const previous = existing?.body ? parseCommentState(existing.body) : null;
  const { body, state } = o.build(previous);
  if (body.length > GITHUB_COMMENT_LIMIT) {
    throw new Error(`comment body is ${body.length} characters, over GitHub's ${GITHUB_COMMENT_LIMIT}`);
  }
  if (existing) {
    if (o.mode === "on-change" && previous !== null && previous.digest === state.digest) {
      o.info(
        `comment ${existing.id}: verdicts unchanged since the last update (comment: on-change), not updated`,
      );
      return { action: "unchanged", id: existing.id, url: existing.html_url ?? null };
    }
    const r = await api.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", {
      owner: o.owner,
      repo: o.repo,
      comment_id: existing.id,
      body,
    });
    const data = r.data as ApiComment;
    return { action: "updated", id: existing.id, url: data.html_url ?? existing.html_url ?? null };
  }
  const r = await api.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
    owner: o.owner,
    repo: o.repo,
    issue_number: o.prNumber,
    body,
  });
  const data = r.data as ApiComment;
  return { action: "created", id: data.id ?? null, url: data.html_url ?? null };
}
