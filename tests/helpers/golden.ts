/**
 * Golden files: the expected output of a renderer, kept in tests/golden/ and compared byte for
 * byte. `UPDATE_GOLDEN=1 npx vitest run <test file>` rewrites them (review the diff before
 * committing); a missing golden file fails with that command.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect } from "vitest";
import { ROOT } from "./env.js";

export const GOLDEN_DIR = join(ROOT, "tests", "golden");

export function expectGolden(name: string, actual: string): void {
  const file = join(GOLDEN_DIR, name);
  if (process.env.UPDATE_GOLDEN === "1") {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  if (!existsSync(file)) {
    throw new Error(
      `golden file tests/golden/${name} is missing: create it with UPDATE_GOLDEN=1 npx vitest run <this test file>`,
    );
  }
  expect(actual, `tests/golden/${name} (refresh: UPDATE_GOLDEN=1)`).toBe(readFileSync(file, "utf8"));
}
