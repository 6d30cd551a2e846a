/**
 * Posting the pull-request comment: exactly one per PR and workload, found by the hidden marker
 * `<!-- perfgate:<workload> -->` among the comments the action's own identity wrote (never anyone
 * else's) and updated in place. The body and the markers are src/gate/comment.ts (over
 * src/output/report/pr-comment.ts); untrusted text only reaches it through the one escaper
 * (src/output/report/escape.ts); nothing here runs a shell.
 */

import {
  type CommentState,
  commentMarker,
  GITHUB_COMMENT_LIMIT,
  parseCommentState,
} from "../../gate/comment.js";

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
  /**
   * builds the body once the existing comment's state is known, and the short body that replaces
   * it when GitHub refuses the full one (too long, or any other validation failure)
   */
  build: (previous: CommentState | null) => {
    body: string;
    state: CommentState;
    short: (reason: string) => string;
  };
  info: (message: string) => void;
}

export interface UpsertResult {
  /** `shortened`: the full comment was refused, the short one (verdict, where the report is) posted */
  action: "created" | "updated" | "unchanged" | "skipped" | "shortened";
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
  const built = o.build(previous);
  const { state } = built;
  let body = built.body;
  let shortened = false;
  if (body.length > GITHUB_COMMENT_LIMIT) {
    // never the case for a body from buildCommentBody (budgeted below the limit); said and handled anyway
    o.info(
      `comment body is ${body.length} characters, over GitHub's ${GITHUB_COMMENT_LIMIT}: posting the short comment`,
    );
    body = built.short(`${body.length} characters, over GitHub's limit of ${GITHUB_COMMENT_LIMIT}`);
    shortened = true;
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
    const edited = await editComment(api, o, existing, { body, shortened, short: built.short });
    if (edited !== null) return edited;
  }
  return await postComment(api, o, { body, shortened, short: built.short });
}

interface Bodies {
  body: string;
  /** `body` is the short one already */
  shortened: boolean;
  short: (reason: string) => string;
}

/** Why GitHub refused a body, for the short comment: its status and message. */
function refusal(err: unknown): string {
  const status = (err as { status?: unknown }).status;
  const message = err instanceof Error ? err.message.split("\n")[0]!.slice(0, 120) : "refused";
  return `GitHub answered ${typeof status === "number" ? `HTTP ${status}` : "with an error"}: ${message}`;
}

/**
 * Updates the comment; when GitHub refuses the body (422: too long, or invalid), replaces it with
 * the short comment so that the old verdict does not stay up. Null when the edit itself is not
 * allowed (403, or 404 for a comment gone meanwhile): the caller posts a new comment instead.
 */
async function editComment(
  api: IssueCommentsApi,
  o: UpsertOptions,
  existing: ApiComment,
  b: Bodies,
): Promise<UpsertResult | null> {
  const patch = (body: string) =>
    api.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", {
      owner: o.owner,
      repo: o.repo,
      comment_id: existing.id,
      body,
    });
  const done = (r: { data: unknown }, action: UpsertResult["action"]): UpsertResult => ({
    action,
    id: existing.id,
    url: (r.data as ApiComment).html_url ?? existing.html_url ?? null,
  });
  try {
    return done(await patch(b.body), b.shortened ? "shortened" : "updated");
  } catch (err) {
    const status = (err as { status?: unknown }).status;
    if (status === 403 || status === 404) {
      o.info(`could not edit comment ${existing.id} (HTTP ${status}): posting a new comment instead`);
      return null;
    }
    if (b.shortened || status !== 422) throw err;
    o.info(
      `GitHub refused the update of comment ${existing.id} (${refusal(err)}): replacing it with the short comment`,
    );
    return done(await patch(b.short(refusal(err))), "shortened");
  }
}

/** Posts a new comment; the short one when GitHub refuses the full body (422). */
async function postComment(api: IssueCommentsApi, o: UpsertOptions, b: Bodies): Promise<UpsertResult> {
  const post = (body: string) =>
    api.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner: o.owner,
      repo: o.repo,
      issue_number: o.prNumber,
      body,
    });
  const done = (r: { data: unknown }, action: UpsertResult["action"]): UpsertResult => {
    const data = r.data as ApiComment;
    return { action, id: data.id ?? null, url: data.html_url ?? null };
  };
  try {
    return done(await post(b.body), b.shortened ? "shortened" : "created");
  } catch (err) {
    const status = (err as { status?: unknown }).status;
    if (b.shortened || status !== 422) throw err;
    o.info(`GitHub refused the comment (${refusal(err)}): posting the short comment`);
    return done(await post(b.short(refusal(err))), "shortened");
  }
}
