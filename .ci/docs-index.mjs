#!/usr/bin/env node
// Writes docs/README.md, the documentation index: every page of docs/ by group, with its title,
// and every decision record with a short form of its Status line. Run it after adding a page or a
// record; tests/docs-index.test.ts fails when the committed index differs from what this writes.
//   node .ci/docs-index.mjs           write docs/README.md
//   node .ci/docs-index.mjs --check   exit 1 when docs/README.md is out of date
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const DOCS = join(import.meta.dirname, "..", "docs");

/** Pages in the order a reader meets them; a page not listed lands in "Other". */
const GROUPS = [
  [
    "Using perfgate",
    [
      "guide.md",
      "glossary.md",
      "workloads.md",
      "servers.md",
      "datasets.md",
      "doctor.md",
      "robustness.md",
      "robustness-input.md",
    ],
  ],
  [
    "Verdicts and why",
    ["comparisons.md", "statistics.md", "instructions.md", "why.md", "metrics.md", "comparison-json.md"],
  ],
  [
    "Pull requests, history, bisect",
    [
      "action.md",
      "runner-security.md",
      "workflows-under-act.md",
      "history.md",
      "bisect.md",
      "interop.md",
      "scale-out.md",
    ],
  ],
  ["Reference", ["results-schema.md", "measured.md", "development.md"]],
];

const title = (text) =>
  text
    .split("\n", 1)[0]
    .replace(/^#+\s*/, "")
    .trim();

/** The Status line of a record, with its continuation lines, links reduced to their text. */
function statusOf(text) {
  const lines = text.split("\n");
  const i = lines.findIndex((l) => l.startsWith("Status:"));
  if (i < 0) return "";
  let st = lines[i].slice("Status:".length).trim();
  for (let j = i + 1; j < lines.length; j++) {
    const l = lines[j];
    if (!l.trim() || l.startsWith("**") || l.startsWith("#")) break;
    st += ` ${l.trim()}`;
  }
  return st.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
}

/** The index column: a few words, the whole line being in the record. */
function shortStatus(st) {
  const low = st.toLowerCase();
  const by = /superseded by ([\w.-]+\.md)/.exec(st);
  if (low.startsWith("superseded") && by) return `superseded by ${by[1]}`;
  if (low.includes("superseded by") && by) return `accepted; partly superseded by ${by[1]}`;
  if (low.startsWith("open")) return "open: the goal is not reached yet";
  if (low.includes("amended")) return "accepted, amended";
  if (low.includes("out of date")) return "accepted, one detail out of date";
  return st.split(";")[0].split(":")[0].trim() || "(none)";
}

export function docsIndex() {
  const pages = readdirSync(DOCS)
    .filter((f) => f.endsWith(".md") && f !== "README.md")
    .sort();
  const listed = new Set(GROUPS.flatMap(([, l]) => l));
  const groups = GROUPS.map(([g, l]) => [g, l.filter((f) => pages.includes(f))]);
  const others = pages.filter((f) => !listed.has(f));
  if (others.length) groups.push(["Other", others]);
  const out = [
    "# perfgate's documentation",
    "",
    "Start with the [README](../README.md); this page lists every document and every decision record.",
    "",
  ];
  for (const [g, l] of groups) {
    out.push(`## ${g}`, "");
    for (const f of l) out.push(`- [${f}](${f}): ${title(readFileSync(join(DOCS, f), "utf8"))}`);
    out.push("");
  }
  out.push(
    "## Decision records",
    "",
    "Each record says what was decided, why, and what was rejected. Its `Status` line says whether it still holds: *accepted*, *amended* (with what changed) or *superseded by* a later record.",
    "",
    "| record | status |",
    "|---|---|",
  );
  const records = readdirSync(join(DOCS, "decisions"))
    .filter((f) => f.endsWith(".md"))
    .sort();
  for (const f of records) {
    const text = readFileSync(join(DOCS, "decisions", f), "utf8");
    const st = statusOf(text);
    const short = shortStatus(st);
    const more = st.length > short.length + 1 ? " (see the record)" : "";
    out.push(`| [${title(text).replaceAll("|", "\\|")}](decisions/${f}) | ${short}${more} |`);
  }
  return `${out.join("\n")}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const want = docsIndex();
  const path = join(DOCS, "README.md");
  if (process.argv.includes("--check")) {
    if (readFileSync(path, "utf8") !== want) {
      console.error("docs/README.md is out of date: run node .ci/docs-index.mjs");
      process.exit(1);
    }
  } else writeFileSync(path, want);
}
