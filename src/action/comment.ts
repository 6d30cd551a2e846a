/**
 * The pull-request comment: exactly one per PR and workload, found by the hidden marker
 * `<!-- perfgate:<workload> -->` among the comments the action's own identity wrote (never anyone
 * else's) and updated in place. A second hidden marker keeps the verdict and its digest so that
 * `comment: on-change` can tell whether anything changed, and so that a later run can say that a
 * regression reported earlier is gone. The body is src/report/pr-comment.ts; untrusted text only
 * reaches it through the one escaper (src/report/escape.ts); nothing here runs a shell.
 */

import { overallVerdict, VERDICTS, type Verdict, verdictDigest } from "../gate/verdict.js";
import { type PrReportInput, renderPrReport } from "../report/pr-comment.js";

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

export interface CommentInput extends Omit<PrReportInput, "verdict" | "heading" | "notices" | "budget"> {
  /** the state stored in the action's own existing comment, if any */
  previous: CommentState | null;
  /** logins (validated, without @) to mention when the verdict is a regression: trusted config */
  ccUsers?: readonly string[];
}

/** The comment body: the two hidden markers, then the report a reviewer reads in ten seconds. */
export function buildCommentBody(c: CommentInput): { body: string; state: CommentState } {
  const { previous, ccUsers, ...rest } = c;
  const verdict = overallVerdict(c.report);
  const state: CommentState = { verdict, digest: verdictDigest(c.report), sha: c.head.sha };
  const prefix = `${commentMarker(c.workload)}\n${stateMarker(state)}\n`;
  const notices: string[] = [];
  if (previous?.verdict === "regression" && verdict !== "regression") {
    const at = c.head.sha ? `\`${c.head.sha.slice(0, 12)}\`` : "this run";
    notices.push(`✅ The regression reported earlier is gone as of ${at}.`);
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
  return { body: `${prefix}${report}`, state };
}

/** The subset of Octokit the comment needs (so tests and the action share one code path). */
export interface IssueCommentsApi {
  paginate: <T>(route: string, params: Record<string, unknown>) => Promise<T[]>;
  request: (route: string, params: Record<string, unknown>) => Promise<{ data: unknown }>;
}

/** The login GITHUB_TOKEN (an installation token of GitHub Actions) writes comments as. */
export const ACTIONS_BOT = "github-actions[bot]";

/**
 * Who this token writes comments as: the `comment-author` input when set; else the authenticated
 * user (`GET /user`, which answers for personal access tokens); an installation token such as
 * GITHUB_TOKEN gets 401/403 there, and its comments are by github-actions[bot].
 */
export async function resolveIdentity(api: IssueCommentsApi, override: string | null): Promise<string> {
  if (override !== null) return override;
  try {
    const r = await api.request("GET /user", {});
    const login = (r.data as { login?: unknown }).login;
    if (typeof login === "string" && login !== "") return login;
  } catch (err) {
    const status = (err as { status?: unknown }).status;
    if (status !== 401 && status !== 403) throw err;
  }
  return ACTIONS_BOT;
}

export interface UpsertOptions {
  owner: string;
  repo: string;
  prNumber: number;
  workload: string;
  /** on-regression: create a comment only for a regression (an existing one is still updated) */
  mode: "always" | "on-change" | "on-regression";
  /** the login this token writes as (resolveIdentity): only its comments are edited or trusted */
  identity: string;
  /** builds the body once the existing comment's state is known */
  build: (previous: CommentState | null) => { body: string; state: CommentState };
  info: (message: string) => void;
}

export interface UpsertResult {
  action: "created" | "updated" | "unchanged" | "skipped";
  id: number | null;
  url: string | null;
}

interface ApiComment {
  id: number;
  body?: string | null;
  html_url?: string;
  user?: { login?: string } | null;
}

const sameLogin = (a: string | undefined, b: string) =>
  a !== undefined && a.toLowerCase() === b.toLowerCase();

/**
 * Finds the workload's comment written by `identity` on the PR (all pages) and updates it, or
 * creates one. A comment by anyone else carrying perfgate's markers is neither edited nor read for
 * state (it could forge `perfgate-state`). An edit GitHub refuses (403, or 404 for a comment gone
 * meanwhile) falls back to a new comment.
 */
export async function upsertComment(api: IssueCommentsApi, o: UpsertOptions): Promise<UpsertResult> {
  const marker = commentMarker(o.workload);
  const comments = await api.paginate<ApiComment>(
    "GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
    { owner: o.owner, repo: o.repo, issue_number: o.prNumber, per_page: 100 },
  );
  const marked = comments.filter((c) => typeof c.body === "string" && c.body.includes(marker));
  for (const c of marked.filter((x) => !sameLogin(x.user?.login, o.identity))) {
    o.info(
      `ignoring comment ${c.id} by ${JSON.stringify(c.user?.login ?? "unknown")}: it carries perfgate's marker but was not written by ${o.identity}`,
    );
  }
  // The newest of the action's own: after a refused edit fell back to a new comment, later runs
  // update that one instead of adding another each time.
  const own = marked.filter((c) => sameLogin(c.user?.login, o.identity));
  const existing = own[own.length - 1];
  const previous = existing?.body ? parseCommentState(existing.body) : null;
  const { body, state } = o.build(previous);
  if (body.length > GITHUB_COMMENT_LIMIT) {
    throw new Error(`comment body is ${body.length} characters, over GitHub's ${GITHUB_COMMENT_LIMIT}`);
  }
  if (!existing && o.mode === "on-regression" && state.verdict !== "regression") {
    o.info(`no regression and no comment yet (comment: on-regression): not commenting`);
    return { action: "skipped", id: null, url: null };
  }
  if (existing) {
    if (o.mode === "on-change" && previous !== null && previous.digest === state.digest) {
      o.info(
        `comment ${existing.id}: verdicts unchanged since the last update (comment: on-change), not updated`,
      );
      return { action: "unchanged", id: existing.id, url: existing.html_url ?? null };
    }
    try {
      const r = await api.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", {
        owner: o.owner,
        repo: o.repo,
        comment_id: existing.id,
        body,
      });
      const data = r.data as ApiComment;
      return { action: "updated", id: existing.id, url: data.html_url ?? existing.html_url ?? null };
    } catch (err) {
      const status = (err as { status?: unknown }).status;
      if (status !== 403 && status !== 404) throw err;
      o.info(`could not edit comment ${existing.id} (HTTP ${status}): posting a new comment instead`);
    }
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
