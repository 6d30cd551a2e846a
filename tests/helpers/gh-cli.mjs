#!/usr/bin/env node
/**
 * The `gh` commands the workflows' scripts use, sent to the GitHub stand-in
 * (tests/helpers/github-standin.ts) at $GH_STANDIN_URL with $GH_TOKEN, the way the GitHub CLI sends
 * them to api.github.com (which tests cannot reach):
 *
 *   gh api <path> [--jq <filter>]                            GET <path>; the filter runs in jq -r
 *   gh api --method <M> <path> [-f k=v…] [--silent]          <M> <path> with the fields as a JSON body
 *   gh workflow run <file> --repo <o/r> --ref <ref> -f k=v…  POST …/actions/workflows/<file>/dispatches
 *
 * Like gh, an HTTP error prints "gh: <message> (HTTP <status>)" on stderr and exits 1; anything
 * else it does not know exits 2, so a workflow that starts using more of gh fails its test loudly.
 */
import { execFileSync } from "node:child_process";

const base = process.env.GH_STANDIN_URL;
const token = process.env.GH_TOKEN;
if (!base || !token) {
  process.stderr.write("gh (test stand-in): GH_STANDIN_URL and GH_TOKEN must be set\n");
  process.exit(2);
}

async function call(method, path, body) {
  const res = await fetch(`${base}/${path.replace(/^\//, "")}`, {
    method,
    headers: {
      authorization: `token ${token}`,
      accept: "application/vnd.github+json",
      ...(body ? { "content-type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 400) {
    let message = text;
    try {
      message = JSON.parse(text).message ?? text;
    } catch {}
    process.stderr.write(`gh: ${message} (HTTP ${res.status})\n`);
    process.exit(1);
  }
  return text;
}

function usage(args) {
  process.stderr.write(`gh (test stand-in): unsupported command: gh ${args.join(" ")}\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
if (args[0] === "api" && args[1] === "--method" && args[2] && args[3]) {
  const fields = {};
  let silent = false;
  for (let i = 4; i < args.length; i++) {
    if (args[i] === "--silent") silent = true;
    else if (args[i] === "-f" && args[i + 1]?.includes("=")) {
      const f = args[++i];
      fields[f.slice(0, f.indexOf("="))] = f.slice(f.indexOf("=") + 1);
    } else usage(args);
  }
  const text = await call(args[2], args[3], fields);
  if (!silent) process.stdout.write(text);
} else if (args[0] === "api" && (args.length === 2 || (args.length === 4 && args[2] === "--jq"))) {
  const text = await call("GET", args[1]);
  if (args.length === 4) {
    process.stdout.write(execFileSync("jq", ["-r", args[3]], { input: text, encoding: "utf8" }));
  } else {
    process.stdout.write(text);
  }
} else if (args[0] === "workflow" && args[1] === "run" && args[2]) {
  let repo = "";
  let ref = "";
  const inputs = {};
  for (let i = 3; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (value === undefined) usage(args);
    if (flag === "--repo") repo = value;
    else if (flag === "--ref") ref = value;
    else if (flag === "-f" && value.includes("="))
      inputs[value.slice(0, value.indexOf("="))] = value.slice(value.indexOf("=") + 1);
    else usage(args);
  }
  if (!repo || !ref) usage(args);
  await call("POST", `repos/${repo}/actions/workflows/${args[2]}/dispatches`, { ref, inputs });
  process.stderr.write(`✓ Created workflow_dispatch event for ${args[2]} at ${ref}\n`);
} else {
  usage(args);
}
