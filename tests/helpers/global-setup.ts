/**
 * One temporary root per test run: every test file, and every perfgate process the tests start,
 * gets TMPDIR pointing inside it, and it is removed when the run ends. A test that forgets its
 * own temp dir, or a server socket dir left by a killed process, no longer accumulates in /tmp.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "perfgate-tests-"));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true });
  };
}
