#!/usr/bin/env node
// Writes every complete GitHub workflow shown in the docs (a ```yaml block with top-level `on` and
// `jobs`) to a directory, one file per block named after the doc and the block's line
// (docs-action.md-L231.yml), so that .ci/lint-workflows can run actionlint and zizmor on what users
// copy. Fragments (a step, an input list) are not workflows and are left out.
//   node .ci/doc-workflows.mjs <out-dir>
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dirname, "..");

/** The Markdown files whose examples users copy: README.md and docs/ (recursively). */
function docFiles() {
  const out = [join(ROOT, "README.md")];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith(".md")) out.push(join(dir, e.name));
    }
  };
  walk(join(ROOT, "docs"));
  return out.sort();
}

/** The ```yaml / ```yml blocks of a Markdown text: their first line (1-based) and text. */
export function yamlBlocks(markdown) {
  const blocks = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!/^```ya?ml\s*$/.test(lines[i])) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end])) end++;
    blocks.push({ line: start + 1, text: `${lines.slice(start, end).join("\n")}\n` });
    i = end;
  }
  return blocks;
}

/**
 * A block is a whole workflow when it has the top-level keys `on` and `jobs` (a line starting with
 * `on:` and one with `jobs:`; read as text, so the lint job needs no npm install).
 */
export function isWorkflow(text) {
  return /^(on|"on"|'on'):/m.test(text) && /^jobs:/m.test(text);
}

/** Every complete workflow in the docs: { doc, line, name, text }. */
export function docWorkflows() {
  const out = [];
  for (const file of docFiles()) {
    const doc = relative(ROOT, file);
    for (const b of yamlBlocks(readFileSync(file, "utf8"))) {
      if (!isWorkflow(b.text)) continue;
      out.push({ doc, line: b.line, name: `${doc.replaceAll("/", "-")}-L${b.line}.yml`, text: b.text });
    }
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) {
    console.error("usage: node .ci/doc-workflows.mjs <out-dir>");
    process.exitCode = 2;
  } else {
    mkdirSync(dir, { recursive: true });
    const all = docWorkflows();
    for (const w of all) writeFileSync(join(dir, w.name), w.text);
    const byDoc = new Map();
    for (const w of all) byDoc.set(w.doc, (byDoc.get(w.doc) ?? 0) + 1);
    for (const [doc, n] of byDoc) console.log(`doc-workflows: ${doc}: ${n} workflow(s)`);
    if (all.length === 0) console.log("doc-workflows: no workflow in the docs");
  }
}
