/**
 * A local HTTP server standing in for api.github.com, driven by GitHub's published OpenAPI
 * description (@octokit/openapi, generated/api.github.com.json). Every request's method and path
 * are matched against the description's (templated) paths; path and query parameters and the JSON
 * body are validated against the operation's schemas (ajv, with $refs resolved into the
 * description's components). Requests the description does not have get a 404 and are recorded as
 * unmatched; invalid ones get a 422 and are recorded as invalid. Issue comments are kept in memory;
 * responses are built from the description's examples and checked against the response schemas
 * too (problems recorded in `responseProblems`), so the stand-in cannot drift from GitHub's shapes.
 *
 * Identities: every comment has an author. A token is an installation token (`ghs_…`, like
 * GITHUB_TOKEN: it writes as github-actions[bot] and gets 403 from `GET /user`) unless `addUser`
 * named it as a user's token. Editing a comment someone else wrote answers 403, as does any edit
 * while `refuseEdits` is set.
 *
 * Pull requests and collaborators: `addPull` sets a pull request's state and head/base SHAs
 * (GET .../pulls/{n} answers with them, else 404) and the merge base of its base branch and head
 * (GET .../compare/{base tip}...{head} answers with it as `merge_base_commit`; else 404); `setPermission` sets a login's access level
 * (GET .../collaborators/{login}/permission; "read" unless set). Workflow dispatches are recorded
 * in `dispatches`, or refused with GitHub's 422 while `refuseDispatches` holds a message. Commit statuses (POST .../statuses/{sha}) are recorded in `statuses`, in order;
 * `addRunArtifact` lists an artifact under a workflow run (GET .../actions/runs/{id}/artifacts).
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import AjvModule from "ajv";
import addFormatsModule from "ajv-formats";

const require = createRequire(import.meta.url);

type Json = Record<string, unknown>;
type AnySchema = Json | boolean;

// ajv and ajv-formats are CommonJS with a `default` export; take whichever the loader hands over.
const Ajv = ((AjvModule as unknown as { default?: unknown }).default ?? AjvModule) as unknown as new (
  o: Json,
) => {
  addSchema(schema: Json, key: string): void;
  compile(schema: AnySchema): ValidateFn;
};
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: unknown,
) => void;

interface ValidateFn {
  (data: unknown): boolean;
  errors?: { instancePath: string; message?: string }[] | null;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** the OpenAPI operationId, null when the description has no such operation */
  operationId: string | null;
  status: number;
}

export interface StoredComment {
  id: number;
  body: string;
  owner: string;
  repo: string;
  issue_number: number;
  /** the login that wrote it */
  author: string;
  created_at: string;
  updated_at: string;
}

interface Operation {
  method: string;
  template: string;
  regex: RegExp;
  names: string[];
  literalSegments: number;
  op: Json;
  pointer: string;
}

let descriptionCache: Json | null = null;

/** GitHub's OpenAPI description of api.github.com (from the @octokit/openapi package). */
export function loadDescription(): Json {
  if (descriptionCache) return descriptionCache;
  const file = require.resolve("@octokit/openapi/generated/api.github.com.json");
  descriptionCache = JSON.parse(readFileSync(file, "utf8")) as Json;
  return descriptionCache;
}

const escapePointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

function deref<T = Json>(doc: Json, x: unknown): T {
  let cur = x as Json;
  for (let i = 0; i < 20 && cur && typeof cur.$ref === "string"; i++) {
    const ref = cur.$ref as string;
    if (!ref.startsWith("#/")) throw new Error(`unsupported $ref ${ref}`);
    cur = ref
      .slice(2)
      .split("/")
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce<Json>((o, k) => o[k] as Json, doc);
  }
  return cur as T;
}

/**
 * OpenAPI 3.0's `nullable: true` beside no `type` (e.g. a `$ref` or an `allOf`, as in
 * commit-comparison) means "this, or null"; ajv only knows `nullable` next to a `type`.
 */
function nullableWithoutType(_k: string, v: unknown): unknown {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
  const o = v as Json;
  if (o.nullable !== true || "type" in o) return v;
  const { nullable: _, ...rest } = o;
  return { anyOf: [rest, { type: "null" }] };
}

/** Deep copy with local "#/..." refs pointed at the description registered in ajv as "gh". */
function rebase(schema: unknown): AnySchema {
  return JSON.parse(JSON.stringify(schema), (k, v) =>
    k === "$ref" && typeof v === "string" && v.startsWith("#/") ? `gh${v}` : nullableWithoutType(k, v),
  ) as AnySchema;
}

/** A pull request as the stand-in serves it (GET /repos/{owner}/{repo}/pulls/{pull_number}). */
export interface StandInPull {
  owner: string;
  repo: string;
  number: number;
  state: "open" | "closed";
  headSha: string;
  /** the tip of the base branch */
  baseSha: string;
  /** the merge base of the base branch and the head (default baseSha: the head is up to date) */
  mergeBaseSha?: string;
  /** the base branch's name (default: the description's example's) */
  baseRef?: string;
}

/** A workflow_dispatch the stand-in received (POST .../actions/workflows/{id}/dispatches). */
export interface Dispatch {
  repo: string;
  workflow: string;
  ref: string;
  inputs: Record<string, unknown>;
}

/** A commit status the stand-in received (POST /repos/{owner}/{repo}/statuses/{sha}). */
export interface StandInStatus {
  repo: string;
  sha: string;
  state: string;
  context: string;
  description: string | null;
  target_url: string | null;
  /** the login that set it */
  creator: string;
}

/** A just-in-time runner the stand-in registered (POST .../actions/runners/generate-jitconfig). */
export interface JitRunner {
  id: number;
  name: string;
  labels: string[];
  runner_group_id: number;
  /** "repo owner/name" or "org name" */
  scope: string;
  encoded_jit_config: string;
}

export class GitHubStandIn {
  readonly requests: RecordedRequest[] = [];
  /** JIT runners handed out, in order (each config is fresh and single-use) */
  readonly jitRunners: JitRunner[] = [];
  readonly unmatched: RecordedRequest[] = [];
  readonly invalid: { request: RecordedRequest; problems: string[] }[] = [];
  /** matched operations the stand-in has no handler for (answered with the description's example) */
  readonly unhandled: RecordedRequest[] = [];
  readonly responseProblems: string[] = [];
  readonly comments: StoredComment[] = [];
  readonly pulls: StandInPull[] = [];
  readonly dispatches: Dispatch[] = [];
  readonly statuses: StandInStatus[] = [];
  private readonly runArtifacts: { repo: string; runId: number; id: number; name: string }[] = [];
  url = "";
  /** answer every comment edit with 403 (a token that may create but not edit) */
  refuseEdits = false;
  /**
   * refuse every workflow dispatch with GitHub's 422 and this message (e.g. a copied perf-pr.yml
   * that lacks an input the approval sends: `Unexpected inputs provided: ["workload"]`)
   */
  refuseDispatches: string | null = null;
  /**
   * the longest comment body accepted, in characters: GitHub's 65,536; a longer one, created or
   * edited, gets GitHub's 422 "body is too long" (a test may lower it to refuse a body perfgate
   * budgeted, as GitHub may where it counts some characters differently)
   */
  commentBodyLimit = 65_536;
  private readonly users = new Map<string, string>();
  private readonly permissions = new Map<string, string>();
  private nextId = 1000;
  private readonly doc: Json;
  private readonly ops: Operation[] = [];
  private readonly ajv: InstanceType<typeof Ajv>;
  private readonly compiled = new Map<string, ValidateFn>();
  private server = createServer((req, res) => {
    this.handle(req, res).catch((err: unknown) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ message: String(err) }));
    });
  });

  constructor() {
    this.doc = loadDescription();
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(
      { components: JSON.parse(JSON.stringify(this.doc.components), nullableWithoutType) as Json },
      "gh",
    );
    for (const [template, item] of Object.entries(this.doc.paths as Record<string, Json>)) {
      const names: string[] = [];
      const segs = template.split("/");
      const regex = new RegExp(
        `^${segs
          .map((s) =>
            s.replace(/\{([^}]+)\}|[^{]+/g, (m, name?: string) => {
              if (name) {
                names.push(name);
                return "([^/]+)";
              }
              return m.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
            }),
          )
          .join("/")}$`,
      );
      const literalSegments = segs.filter((s) => !s.includes("{")).length;
      for (const method of ["get", "post", "put", "patch", "delete", "head"]) {
        const op = item[method] as Json | undefined;
        if (!op) continue;
        this.ops.push({
          method: method.toUpperCase(),
          template,
          regex,
          names,
          literalSegments,
          op,
          pointer: `/paths/${escapePointer(template)}/${method}`,
        });
      }
    }
    // Literal paths win over templated ones (/issues/comments before /issues/{issue_number}).
    this.ops.sort((a, b) => b.literalSegments - a.literalSegments);
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this.url;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Operation ids of all requests, in order. */
  operations(): (string | null)[] {
    return this.requests.map((r) => r.operationId);
  }

  /** Makes `token` a personal access token of `login` (GET /user answers with it). */
  addUser(token: string, login: string): void {
    this.users.set(token, login);
  }

  /** Adds (or replaces) a pull request the API serves. */
  addPull(pull: StandInPull): void {
    const i = this.pulls.findIndex(
      (p) => p.owner === pull.owner && p.repo === pull.repo && p.number === pull.number,
    );
    if (i >= 0) this.pulls.splice(i, 1);
    this.pulls.push(pull);
  }

  /** Gives `login` an access level on every repository ("admin", "write", "read", "none", …). */
  /** An artifact of a workflow run, listed by GET .../actions/runs/{run_id}/artifacts. */
  addRunArtifact(repo: string, runId: number, name: string): number {
    const id = this.nextId++;
    this.runArtifacts.push({ repo, runId, id, name });
    return id;
  }

  /** The statuses of one commit as GitHub shows them: the latest per context. */
  latestStatuses(repo: string, sha: string): Map<string, StandInStatus> {
    const out = new Map<string, StandInStatus>();
    for (const st of this.statuses) if (st.repo === repo && st.sha === sha) out.set(st.context, st);
    return out;
  }

  setPermission(login: string, permission: string): void {
    this.permissions.set(login, permission);
  }

  /** The login a request's token writes as, and whether it is an installation (GITHUB_TOKEN-like). */
  identityOf(req: IncomingMessage): { login: string; installation: boolean } {
    const token = (req.headers.authorization ?? "").replace(/^\S+\s+/, "");
    const user = this.users.get(token);
    return user ? { login: user, installation: false } : { login: "github-actions[bot]", installation: true };
  }

  /** Adds a comment as if `author` (by default someone else) had written it. */
  /** GitHub's 422 for a comment body over `commentBodyLimit` characters; true when sent. */
  private tooLong(body: unknown, send: (status: number, data: unknown) => void): boolean {
    if (typeof body !== "string" || body.length <= this.commentBodyLimit) return false;
    send(422, {
      message: "Validation Failed",
      errors: [
        {
          resource: "IssueComment",
          code: "custom",
          field: "body",
          message: `body is too long (maximum is ${this.commentBodyLimit} characters)`,
        },
      ],
      documentation_url: "https://docs.github.com/rest/issues/comments#update-an-issue-comment",
    });
    return true;
  }

  seedComment(
    owner: string,
    repo: string,
    issue: number,
    body: string,
    author = "someone-else",
  ): StoredComment {
    const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    const c: StoredComment = {
      id: this.nextId++,
      body,
      owner,
      repo,
      issue_number: issue,
      author,
      created_at: now,
      updated_at: now,
    };
    this.comments.push(c);
    return c;
  }

  commentsOn(owner: string, repo: string, issue: number): StoredComment[] {
    return this.comments.filter((c) => c.owner === owner && c.repo === repo && c.issue_number === issue);
  }

  private validator(key: string, schema: unknown): ValidateFn {
    let v = this.compiled.get(key);
    if (!v) {
      v = this.ajv.compile(rebase(schema));
      this.compiled.set(key, v);
    }
    return v;
  }

  private check(key: string, schema: unknown, data: unknown, what: string): string[] {
    const v = this.validator(key, schema);
    if (v(data)) return [];
    return (v.errors ?? []).map((e) => `${what}${e.instancePath}: ${e.message ?? "invalid"}`);
  }

  private match(method: string, path: string): { op: Operation; params: Record<string, string> } | null {
    for (const op of this.ops) {
      if (op.method !== method) continue;
      const m = op.regex.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      op.names.forEach((n, i) => {
        params[n] = decodeURIComponent(m[i + 1]!);
      });
      return { op, params };
    }
    return null;
  }

  /** Coerces a path/query string to the parameter schema's type before validating. */
  private coerce(schema: Json, value: string): unknown {
    const type = schema.type;
    if (type === "integer" || type === "number") return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    if (type === "boolean") return value === "true" ? true : value === "false" ? false : value;
    return value;
  }

  private validateRequest(
    op: Operation,
    params: Record<string, string>,
    query: Record<string, string>,
    body: unknown,
    rawBody: string,
  ): string[] {
    const problems: string[] = [];
    const declared = ((op.op.parameters as unknown[]) ?? []).map((p) => deref<Json>(this.doc, p));
    const known = new Set<string>();
    declared.forEach((p, i) => {
      const name = p.name as string;
      const where = p.in as string;
      const schema = (p.schema ?? {}) as Json;
      const source = where === "path" ? params : where === "query" ? query : null;
      if (source === null) return;
      if (where === "query") known.add(name);
      const value = source[name];
      if (value === undefined) {
        if (p.required) problems.push(`${where} parameter ${name} is required`);
        return;
      }
      problems.push(
        ...this.check(`${op.pointer}#param${i}`, schema, this.coerce(schema, value), `${where} ${name}`),
      );
    });
    for (const q of Object.keys(query)) {
      if (!known.has(q)) problems.push(`query parameter ${q} is not in the description`);
    }
    const rb = op.op.requestBody ? deref<Json>(this.doc, op.op.requestBody) : null;
    const jsonSchema = (rb?.content as Json | undefined)?.["application/json"] as Json | undefined;
    if (rawBody !== "") {
      if (!jsonSchema) problems.push("a request body was sent, the operation takes none");
      else if (body === undefined) problems.push("the request body is not JSON");
      else problems.push(...this.check(`${op.pointer}#body`, jsonSchema.schema, body, "body"));
    } else if (rb?.required) {
      problems.push("the request body is required");
    }
    return problems;
  }

  /** The description's example for a response, as a fresh copy. */
  private example(op: Operation, status: number): unknown {
    const resp = deref<Json>(this.doc, (op.op.responses as Json)[String(status)]);
    const media = (resp.content as Json | undefined)?.["application/json"] as Json | undefined;
    // The "default" example, else the first one (GET /user names its two examples).
    const examples = (media?.examples as Json | undefined) ?? {};
    const ex = deref<Json>(this.doc, examples.default ?? Object.values(examples)[0]);
    return ex && "value" in ex ? JSON.parse(JSON.stringify(ex.value)) : (media?.example ?? {});
  }

  private checkResponse(op: Operation, status: number, data: unknown): void {
    const resp = deref<Json>(this.doc, (op.op.responses as Json)[String(status)]);
    const media = (resp?.content as Json | undefined)?.["application/json"] as Json | undefined;
    if (!resp) {
      this.responseProblems.push(`${op.op.operationId}: status ${status} is not a documented response`);
      return;
    }
    if (!media?.schema) return;
    const problems = this.check(`${op.pointer}#resp${status}`, media.schema, data, "response");
    for (const p of problems) this.responseProblems.push(`${op.op.operationId} ${status}: ${p}`);
  }

  private commentJson(op: Operation, c: StoredComment): Json {
    const base = (this.example(op, op.method === "POST" ? 201 : 200) as Json) ?? {};
    const item = (Array.isArray(base) ? base[0] : base) as Json;
    const api = `${this.url}/repos/${c.owner}/${c.repo}`;
    const user = item.user as Json;
    return {
      ...item,
      user: {
        ...user,
        login: c.author,
        id: loginId(c.author),
        type: c.author.endsWith("[bot]") ? "Bot" : "User",
      },
      id: c.id,
      node_id: Buffer.from(`IssueComment${c.id}`).toString("base64"),
      url: `${api}/issues/comments/${c.id}`,
      html_url: `https://github.com/${c.owner}/${c.repo}/pull/${c.issue_number}#issuecomment-${c.id}`,
      issue_url: `${api}/issues/${c.issue_number}`,
      body: c.body,
      created_at: c.created_at,
      updated_at: c.updated_at,
    };
  }

  /** Collaborator permissions, pull requests and workflow dispatches. */
  /** Commit statuses and a run's artifacts. */
  private handleChecks(
    op: Operation,
    id: string,
    params: Record<string, string>,
    body: Json,
    login: string,
    send: Send,
  ) {
    const repo = `${params.owner}/${params.repo}`;
    if (id === "repos/create-commit-status") {
      const st: StandInStatus = {
        repo,
        sha: params.sha ?? "",
        state: body.state as string,
        context: (body.context as string | undefined) ?? "default",
        description: (body.description as string | null | undefined) ?? null,
        target_url: (body.target_url as string | null | undefined) ?? null,
        creator: login,
      };
      this.statuses.push(st);
      const example = this.example(op, 201) as Json;
      const data = {
        ...example,
        id: this.nextId++,
        state: st.state,
        context: st.context,
        description: st.description,
        target_url: st.target_url,
        creator: { ...(example.creator as Json), login, id: loginId(login) },
      };
      this.checkResponse(op, 201, data);
      send(201, data);
      return;
    }
    const example = this.example(op, 200) as Json;
    const template = ((example.artifacts as Json[] | undefined) ?? [])[0] ?? {};
    const artifacts = this.runArtifacts
      .filter((a) => a.repo === repo && a.runId === Number(params.run_id))
      .map((a) => ({ ...template, id: a.id, name: a.name }));
    const data = { total_count: artifacts.length, artifacts };
    this.checkResponse(op, 200, data);
    send(200, data);
  }

  private handleRepoState(op: Operation, id: string, params: Record<string, string>, body: Json, send: Send) {
    const owner = params.owner ?? "";
    const repo = params.repo ?? "";
    if (id === "actions/create-workflow-dispatch") {
      if (this.refuseDispatches !== null) {
        send(422, {
          message: this.refuseDispatches,
          documentation_url:
            "https://docs.github.com/rest/actions/workflows#create-a-workflow-dispatch-event",
        });
        return;
      }
      const inputs = (body.inputs as Record<string, unknown> | undefined) ?? {};
      this.dispatches.push({
        repo: `${owner}/${repo}`,
        workflow: params.workflow_id ?? "",
        ref: String(body.ref),
        inputs,
      });
      send(204, undefined);
      return;
    }
    if (id === "repos/get-collaborator-permission-level") {
      const login = params.username ?? "";
      const example = this.example(op, 200) as Json;
      const permission = this.permissions.get(login) ?? "read";
      // (the description's example lacks user.role_name, which its schema requires)
      const user = { ...(example.user as Json), login, id: loginId(login), role_name: permission };
      const data = { ...example, permission, role_name: permission, user };
      this.checkResponse(op, 200, data);
      send(200, data);
      return;
    }
    const pull = this.pulls.find(
      (p) => p.owner === owner && p.repo === repo && p.number === Number(params.pull_number),
    );
    if (!pull) {
      send(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
      return;
    }
    const example = this.example(op, 200) as Json;
    const side = (key: "head" | "base", sha: string) => ({ ...(example[key] as Json), sha });
    const data = {
      ...example,
      number: pull.number,
      state: pull.state,
      // (the description's example team lacks `type`, which its schema requires)
      requested_teams: [],
      head: side("head", pull.headSha),
      base: { ...side("base", pull.baseSha), ...(pull.baseRef === undefined ? {} : { ref: pull.baseRef }) },
    };
    this.checkResponse(op, 200, data);
    send(200, data);
  }

  /** GET .../compare/{base}...{head} for a pull request's base tip and head. */
  private handleCompare(op: Operation, params: Record<string, string>, send: Send) {
    const m = /^(.+)\.\.\.(.+)$/.exec(params.basehead ?? "");
    const pull = this.pulls.find(
      (p) =>
        p.owner === params.owner &&
        p.repo === params.repo &&
        m !== null &&
        m[1] === p.baseSha &&
        m[2] === p.headSha,
    );
    if (!pull || !m) {
      send(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
      return;
    }
    const example = this.example(op, 200) as Json;
    const mergeBase = pull.mergeBaseSha ?? pull.baseSha;
    const commit = (key: "base_commit" | "merge_base_commit", sha: string) => ({
      ...(example[key] as Json),
      sha,
      url: `${this.url}/repos/${pull.owner}/${pull.repo}/commits/${sha}`,
      html_url: `https://github.com/${pull.owner}/${pull.repo}/commit/${sha}`,
    });
    const data = {
      ...example,
      base_commit: commit("base_commit", pull.baseSha),
      merge_base_commit: commit("merge_base_commit", mergeBase),
      status: mergeBase === pull.baseSha ? "ahead" : "diverged",
      // (the commits and files of the comparison are not modelled)
      commits: [],
      files: [],
    };
    this.checkResponse(op, 200, data);
    send(200, data);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString("utf8");
    let body: unknown;
    if (rawBody !== "") {
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
    }
    const url = new URL(req.url ?? "/", "http://standin");
    const query = Object.fromEntries(url.searchParams.entries());
    const method = (req.method ?? "GET").toUpperCase();
    const record: RecordedRequest = {
      method,
      path: url.pathname,
      query,
      headers: req.headers,
      body,
      operationId: null,
      status: 0,
    };
    this.requests.push(record);
    const send = (status: number, data: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
      res.end(data === undefined ? "" : JSON.stringify(data));
    };

    const found = this.match(method, url.pathname);
    if (!found) {
      this.unmatched.push(record);
      send(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
      return;
    }
    const { op, params } = found;
    record.operationId = op.op.operationId as string;
    const problems = this.validateRequest(op, params, query, body, rawBody);
    const auth = req.headers.authorization ?? "";
    if (!/^(token|bearer) \S+$/i.test(auth)) problems.push("no Authorization header");
    if (problems.length > 0) {
      this.invalid.push({ request: record, problems });
      send(422, { message: "Validation Failed", errors: problems });
      return;
    }

    const owner = params.owner ?? "";
    const repo = params.repo ?? "";
    switch (record.operationId) {
      case "issues/list-comments": {
        const issue = Number(params.issue_number);
        const perPage = Math.min(100, Number(query.per_page ?? 30));
        const page = Number(query.page ?? 1);
        const all = this.commentsOn(owner, repo, issue);
        const items = all.slice((page - 1) * perPage, page * perPage).map((c) => this.commentJson(op, c));
        const last = Math.max(1, Math.ceil(all.length / perPage));
        const link = (p: number) => {
          const u = new URL(`${this.url}${url.pathname}`);
          u.searchParams.set("per_page", String(perPage));
          u.searchParams.set("page", String(p));
          return u.toString();
        };
        const rels: string[] = [];
        if (page < last) rels.push(`<${link(page + 1)}>; rel="next"`, `<${link(last)}>; rel="last"`);
        if (page > 1) rels.push(`<${link(1)}>; rel="first"`, `<${link(page - 1)}>; rel="prev"`);
        this.checkResponse(op, 200, items);
        send(200, items, rels.length > 0 ? { link: rels.join(", ") } : {});
        return;
      }
      case "users/get-authenticated": {
        const who = this.identityOf(req);
        if (who.installation) {
          send(403, {
            message: "Resource not accessible by integration",
            documentation_url: "https://docs.github.com/rest/users/users#get-the-authenticated-user",
          });
          return;
        }
        const data = { ...(this.example(op, 200) as Json), login: who.login, id: loginId(who.login) };
        this.checkResponse(op, 200, data);
        send(200, data);
        return;
      }
      case "issues/create-comment": {
        if (this.tooLong((body as Json).body, send)) return;
        const c = this.seedComment(
          owner,
          repo,
          Number(params.issue_number),
          (body as Json).body as string,
          this.identityOf(req).login,
        );
        const data = this.commentJson(op, c);
        this.checkResponse(op, 201, data);
        send(201, data, { location: data.url as string });
        return;
      }
      case "issues/update-comment": {
        const c = this.comments.find(
          (x) => x.id === Number(params.comment_id) && x.owner === owner && x.repo === repo,
        );
        if (!c) {
          send(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
          return;
        }
        if (this.refuseEdits || c.author !== this.identityOf(req).login) {
          send(403, {
            message: "Resource not accessible by integration",
            documentation_url: "https://docs.github.com/rest",
          });
          return;
        }
        if (this.tooLong((body as Json).body, send)) return;
        c.body = (body as Json).body as string;
        c.updated_at = new Date().toISOString().replace(/\.\d+Z$/, "Z");
        const data = this.commentJson(op, c);
        this.checkResponse(op, 200, data);
        send(200, data);
        return;
      }
      case "repos/create-commit-status":
      case "actions/list-workflow-run-artifacts":
        this.handleChecks(op, record.operationId, params, body as Json, this.identityOf(req).login, send);
        return;
      case "repos/compare-commits-with-basehead":
        this.handleCompare(op, params, send);
        return;
      case "repos/get-collaborator-permission-level":
      case "pulls/get":
      case "actions/create-workflow-dispatch":
        this.handleRepoState(op, record.operationId, params, body as Json, send);
        return;
      case "actions/generate-runner-jitconfig-for-repo":
      case "actions/generate-runner-jitconfig-for-org": {
        const b = body as { name: string; labels: string[]; runner_group_id: number };
        if (this.jitRunners.some((r) => r.name === b.name)) {
          send(409, {
            message: "Already exists - A runner with the name already exists.",
            documentation_url: "https://docs.github.com/rest",
          });
          return;
        }
        const id = this.nextId++;
        const scope = params.org ? `org ${params.org}` : `repo ${owner}/${repo}`;
        const encoded = Buffer.from(
          JSON.stringify({ runner_id: id, name: b.name, scope, nonce: `${id}-${Date.now()}` }),
        ).toString("base64");
        this.jitRunners.push({
          id,
          name: b.name,
          labels: b.labels,
          runner_group_id: b.runner_group_id,
          scope,
          encoded_jit_config: encoded,
        });
        const data = {
          runner: {
            id,
            name: b.name,
            os: "unknown",
            status: "offline",
            busy: false,
            runner_group_id: b.runner_group_id,
            labels: [
              { id: 1, name: "self-hosted", type: "read-only" },
              ...b.labels.map((name, i) => ({ id: 100 + i, name, type: "custom" })),
            ],
          },
          encoded_jit_config: encoded,
        };
        this.checkResponse(op, 201, data);
        send(201, data);
        return;
      }
      default: {
        // A real operation the stand-in does not model: answer with the documented example.
        this.unhandled.push(record);
        const responses = Object.keys(op.op.responses as Json).filter((s) => /^2\d\d$/.test(s));
        const status = Number(responses[0] ?? 200);
        send(status, status === 204 ? undefined : this.example(op, status));
      }
    }
  }
}

type Send = (status: number, data: unknown, headers?: Record<string, string>) => void;
/** A stable numeric id for a login (user ids in responses). */
function loginId(login: string): number {
  let h = 7;
  for (const ch of login) h = (h * 31 + ch.charCodeAt(0)) % 1_000_000_007;
  return h + 1;
}

/** Starts a stand-in on a free port of 127.0.0.1. */
export async function startGitHubStandIn(): Promise<GitHubStandIn> {
  const s = new GitHubStandIn();
  await s.start();
  return s;
}
