/**
 * A mistyped workload field through the built CLI, the way a user meets it: one line on stderr
 * naming the file, the missing field and the near name, exit 1, nothing written or fetched.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { ROOT, requireBuild } from "./helpers/env.js";

let dir: string;
beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), "pg-wl-cli-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** workloads/smoke.yml with each `from` replaced by its `to`. */
function smokeWith(name: string, edits: [RegExp, string][]): string {
  let text = readFileSync(join(ROOT, "workloads/smoke.yml"), "utf8");
  for (const [from, to] of edits) {
    const next = text.replace(from, to);
    expect(next, String(from)).not.toBe(text);
    text = next;
  }
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe("a mistyped workload field (CLI)", () => {
  it("perfgate run: `thread:` is named as the missing threads, with the guess; exit 1", async () => {
    const wl = smokeWith("thread.yml", [[/^threads:/m, "thread:"]]);
    const out = join(dir, "run-out");
    const res = await runCli([
      "run",
      "--workload",
      wl,
      "--server",
      "maven:mariadb@11.4.5",
      "--out",
      join(out, "r.json"),
      "--work-dir",
      join(out, "work"),
    ]);
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toBe(
      `perfgate: ${wl}: missing required field threads (a list); field thread is not accepted (did you mean threads?)\n`,
    );
    expect(existsSync(out)).toBe(false);
  });

  it("perfgate workload validate: a typo in a warmup phase and one at the top, each named", async () => {
    const wl = smokeWith("duraton.yml", [
      [/^duration:/m, "duraton:"],
      [/duration: 15/, "duraton: 15"],
    ]);
    const res = await runCli(["workload", "validate", wl]);
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toBe(
      `perfgate: ${wl}: missing required field duration (a number); field duraton is not accepted (did you mean duration?); missing required field warmup[0].duration (a number); field warmup[0].duraton is not accepted (did you mean duration?)\n`,
    );
  });
});
