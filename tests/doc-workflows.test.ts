/**
 * The workflows users copy from the docs are linted like the repository's own (.ci/lint-workflows
 * runs actionlint and zizmor on what .ci/doc-workflows.mjs extracts). This checks the extractor:
 * it finds every complete workflow of docs/action.md, each parses as one, and fragments stay out.
 */
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
// @ts-expect-error: a plain .mjs script without types
import { docWorkflows, isWorkflow, yamlBlocks } from "../.ci/doc-workflows.mjs";

interface Found {
  doc: string;
  line: number;
  name: string;
  text: string;
}

describe("workflows in the docs", () => {
  const found = docWorkflows() as Found[];

  it("finds the complete workflows of docs/action.md, named by doc and line", () => {
    const action = found.filter((w) => w.doc === "docs/action.md");
    expect(action.length).toBeGreaterThanOrEqual(4);
    for (const w of action) expect(w.name).toBe(`docs-action.md-L${w.line}.yml`);
    expect(action.map((w) => w.text.match(/^name: (.+)$/m)?.[1])).toEqual(
      expect.arrayContaining(["perf-pr", "perf-pr-comment", "perf-main", "perf-pr-history"]),
    );
  });

  it("each one parses as a workflow with on and jobs", () => {
    for (const w of found) {
      const doc = parse(w.text) as Record<string, unknown>;
      expect(Object.keys(doc), `${w.doc}:${w.line}`).toEqual(expect.arrayContaining(["on", "jobs"]));
    }
  });

  it("leaves fragments out and reads block lines right", () => {
    const md = [
      "text",
      "```yaml",
      "- uses: ./action",
      "  with: { mode: ab }",
      "```",
      "",
      "```yml",
      "on: push",
      "jobs: {}",
      "```",
    ].join("\n");
    const blocks = yamlBlocks(md) as { line: number; text: string }[];
    expect(blocks.map((b) => b.line)).toEqual([3, 8]);
    expect(blocks.map((b) => isWorkflow(b.text))).toEqual([false, true]);
  });
});
