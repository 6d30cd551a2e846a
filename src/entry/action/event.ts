/**
 * What the action needs from the workflow event: the pull request to comment on and the head
 * commit. Read from GITHUB_EVENT_NAME / GITHUB_EVENT_PATH (the webhook payload the runner stores).
 * Payload fields are untrusted text: branch names are only ever escaped into Markdown; the sha is
 * kept only when it looks like one.
 */
import { readFileSync } from "node:fs";
import { safeUrl } from "../../util/safe-url.js";

export const PR_EVENTS = ["pull_request", "pull_request_target", "workflow_run"] as const;

export interface EventInfo {
  name: string;
  /** owner/repo the comment goes to (GITHUB_REPOSITORY) */
  owner: string | null;
  repo: string | null;
  /** null when the event has no pull request (then commenting is skipped) */
  prNumber: number | null;
  /** why there is no pull request number */
  noPrReason: string | null;
  headSha: string | null;
  headRef: string | null;
  /** the pull request's base commit and branch (pull_request events only) */
  baseSha: string | null;
  baseRef: string | null;
  /** workflow_run: the page of the run that triggered this one (where its artifacts are) */
  triggeringRunUrl: string | null;
}

type Json = Record<string, unknown>;

function obj(x: unknown): Json | null {
  return typeof x === "object" && x !== null && !Array.isArray(x) ? (x as Json) : null;
}

function str(x: unknown): string | null {
  return typeof x === "string" && x !== "" ? x : null;
}

function sha(x: unknown): string | null {
  return typeof x === "string" && /^[0-9a-f]{7,64}$/i.test(x) ? x.toLowerCase() : null;
}

function prNumberOf(x: unknown): number | null {
  return typeof x === "number" && Number.isInteger(x) && x > 0 ? x : null;
}

/** Reads the payload file; a missing or unreadable file is an empty payload. */
export function readPayload(path: string | undefined): Json {
  if (!path) return {};
  try {
    return obj(JSON.parse(readFileSync(path, "utf8"))) ?? {};
  } catch {
    return {};
  }
}

/**
 * The repository's default branch, from the event payload (every event GitHub sends about a
 * repository carries `repository.default_branch`); null when the payload has none.
 */
export function defaultBranch(env: Record<string, string | undefined>): string | null {
  const name = str(obj(readPayload(env.GITHUB_EVENT_PATH).repository)?.default_branch);
  // only the plain names branches have (a hostile payload's text goes no further)
  return name !== null && /^[A-Za-z0-9_][A-Za-z0-9._/-]{0,254}$/.test(name) ? name : null;
}

/**
 * The event as the action sees it. `prOverride` (input pr-number) is used when the payload has no
 * pull request: a workflow_run triggered from a fork's pull request has an empty `pull_requests`.
 */
export function eventInfo(
  env: Record<string, string | undefined>,
  prOverride: number | null = null,
): EventInfo {
  const name = env.GITHUB_EVENT_NAME ?? "";
  const payload = readPayload(env.GITHUB_EVENT_PATH);
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? "").split("/", 2);
  let prNumber: number | null = null;
  let headSha: string | null = sha(env.GITHUB_SHA);
  let headRef: string | null = str(env.GITHUB_HEAD_REF) ?? str(env.GITHUB_REF_NAME);
  let noPrReason: string | null = null;
  let baseSha: string | null = null;
  let baseRef: string | null = null;
  let triggeringRunUrl: string | null = null;
  if (name === "pull_request" || name === "pull_request_target") {
    const pr = obj(payload.pull_request);
    prNumber = prNumberOf(pr?.number) ?? prNumberOf(payload.number);
    const head = obj(pr?.head);
    headSha = sha(head?.sha) ?? headSha;
    headRef = str(head?.ref) ?? headRef;
    const base = obj(pr?.base);
    baseSha = sha(base?.sha);
    baseRef = str(base?.ref);
    if (prNumber === null) noPrReason = `the ${name} payload has no pull request number`;
  } else if (name === "workflow_run") {
    const run = obj(payload.workflow_run);
    const prs = Array.isArray(run?.pull_requests) ? run.pull_requests : [];
    prNumber = prNumberOf(obj(prs[0])?.number);
    headSha = sha(run?.head_sha) ?? headSha;
    headRef = str(run?.head_branch) ?? headRef;
    triggeringRunUrl = runPage(env, run?.html_url);
    if (prNumber === null) {
      noPrReason =
        "the workflow_run payload lists no pull request (runs from forks have none: pass pr-number)";
    }
  } else {
    noPrReason = `event ${JSON.stringify(name)} is not a pull request event (${PR_EVENTS.join(", ")})`;
  }
  if (prNumber === null && prOverride !== null) {
    prNumber = prOverride;
    noPrReason = null;
  }
  return {
    name,
    owner: str(owner),
    repo: str(repo),
    prNumber,
    noPrReason,
    headSha,
    headRef,
    baseSha,
    baseRef,
    triggeringRunUrl,
  };
}

/** A run page URL from the payload, kept only when it is a run of this repository on this server. */
function runPage(env: Record<string, string | undefined>, url: unknown): string | null {
  const repo = repositoryUrl(env);
  if (typeof url !== "string" || repo === null) return null;
  const prefix = `${repo}/actions/runs/`;
  return url.startsWith(prefix) && /^\d+$/.test(url.slice(prefix.length)) ? url : null;
}

/** https://github.com/owner/repo from GITHUB_SERVER_URL and GITHUB_REPOSITORY, when both look right. */
export function repositoryUrl(env: Record<string, string | undefined>): string | null {
  const server = env.GITHUB_SERVER_URL ?? "";
  const repo = env.GITHUB_REPOSITORY ?? "";
  if (safeUrl(server) === null || !/^[\w.-]+\/[\w.-]+$/.test(repo)) return null;
  return safeUrl(`${server.replace(/\/+$/, "")}/${repo}`);
}

/** The page of this workflow run, when the environment names it. */
export function runUrl(env: Record<string, string | undefined>): string | null {
  const repo = repositoryUrl(env);
  const id = env.GITHUB_RUN_ID ?? "";
  return repo !== null && /^\d+$/.test(id) ? `${repo}/actions/runs/${id}` : null;
}
