#!/usr/bin/env node
// Asks GitHub for a fresh just-in-time runner configuration and prints `encoded_jit_config`.
// A JIT runner is registered for exactly one job and removed by GitHub afterwards, so no runner
// credential outlives a job. Run by jit-runner.sh as root, before each job; the token never
// reaches the runner user.
//
// Environment (normally from /etc/perfgate-runner/runner.env):
//   PERFGATE_RUNNER_SCOPE        repo:<owner>/<name>  or  org:<org>
//   PERFGATE_RUNNER_TOKEN_FILE   file holding a token allowed to administer the repo's/org's
//                                runners (default /etc/perfgate-runner/token, mode 600, root)
//   PERFGATE_RUNNER_LABELS       comma-separated custom labels (default bare-metal,perfgate)
//   PERFGATE_RUNNER_GROUP_ID     runner group id (default 1, the default group)
//   PERFGATE_RUNNER_NAME_PREFIX  runner names are <prefix>-<UTC time>-<random> (default: host name)
//   GITHUB_API_URL               default https://api.github.com
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";

const env = process.env;
const fail = (message) => {
  process.stderr.write(`jit-config: ${message}\n`);
  process.exitCode = 1;
};

async function main() {
  const scope = env.PERFGATE_RUNNER_SCOPE ?? "";
  const m = /^(?:repo:([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)|org:([A-Za-z0-9_.-]+))$/.exec(scope);
  if (!m) return fail(`PERFGATE_RUNNER_SCOPE "${scope}": accepted: repo:<owner>/<name> or org:<org>`);
  const tokenFile = env.PERFGATE_RUNNER_TOKEN_FILE || "/etc/perfgate-runner/token";
  let token;
  try {
    token = readFileSync(tokenFile, "utf8").trim();
  } catch (err) {
    return fail(`cannot read the token file ${tokenFile}: ${err.code ?? err.message}`);
  }
  if (!token) return fail(`the token file ${tokenFile} is empty`);
  const labels = (env.PERFGATE_RUNNER_LABELS || "bare-metal,perfgate")
    .split(",")
    .map((l) => l.trim())
    .filter(Boolean);
  const group = Number(env.PERFGATE_RUNNER_GROUP_ID || "1");
  if (!Number.isInteger(group) || group < 1) {
    return fail(
      `PERFGATE_RUNNER_GROUP_ID "${env.PERFGATE_RUNNER_GROUP_ID}": accepted: a runner group id (integer >= 1)`,
    );
  }
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "");
  const name = `${env.PERFGATE_RUNNER_NAME_PREFIX || hostname()}-${stamp}-${randomBytes(3).toString("hex")}`;
  const api = (env.GITHUB_API_URL || "https://api.github.com").replace(/\/$/, "");
  const path = m[3]
    ? `/orgs/${m[3]}/actions/runners/generate-jitconfig`
    : `/repos/${m[1]}/${m[2]}/actions/runners/generate-jitconfig`;
  let res;
  try {
    res = await fetch(`${api}${path}`, {
      method: "POST",
      headers: {
        accept: "application/vnd.github+json",
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "x-github-api-version": "2022-11-28",
        "user-agent": "perfgate-runner-setup",
      },
      body: JSON.stringify({ name, runner_group_id: group, labels, work_folder: "_work" }),
    });
  } catch (err) {
    return fail(`POST ${api}${path}: ${err.cause?.code ?? err.message}`);
  }
  const text = await res.text();
  if (res.status !== 201) {
    let message = text.slice(0, 200);
    try {
      message = JSON.parse(text).message ?? message;
    } catch {}
    return fail(`POST ${api}${path}: HTTP ${res.status}: ${message}`);
  }
  const body = JSON.parse(text);
  if (typeof body.encoded_jit_config !== "string" || body.encoded_jit_config === "") {
    return fail(`POST ${api}${path}: the answer has no encoded_jit_config`);
  }
  process.stderr.write(
    `jit-config: registered runner ${body.runner?.id} "${name}" (labels ${labels.join(", ")})\n`,
  );
  process.stdout.write(`${body.encoded_jit_config}\n`);
}

await main();
