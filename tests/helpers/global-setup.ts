/**
 * One temporary root per test run: every test file, and every perfgate process the tests start,
 * gets TMPDIR pointing inside it, and it is removed when the run ends. A test that forgets its
 * own temp dir, or a server socket dir left by a killed process, no longer accumulates in /tmp.
 *
 * Each vitest project runs this setup; the first one makes the root and the others use it, so the
 * root is never nested (Chromium's socket path, and a server's socket path, must stay short).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const MARK = "PERFGATE_TESTS_TMP_ROOT";

export default function setup(): () => void {
  if (process.env[MARK] && process.env.TMPDIR === process.env[MARK]) return () => {};
  const root = mkdtempSync(join(tmpdir(), "perfgate-tests-"));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  process.env[MARK] = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    delete process.env[MARK];
    rmSync(root, { recursive: true, force: true });
  };
}
