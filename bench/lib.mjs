// Shared by the bench scripts that time perfgate's own TypeScript modules in-process: the modules
// bundled from src/ with esbuild (as the CLI is), and a seeded generator for synthetic data.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

const root = join(import.meta.dirname, "..");

/**
 * The named exports of perfgate's sources, bundled and imported: `entry` is a module body of
 * `export { name } from "./src/…ts"` lines, resolved from the repository root.
 */
export async function loadSources(entry) {
  const dir = mkdtempSync(join(tmpdir(), "pg-bench-"));
  const outfile = join(dir, "lib.mjs");
  try {
    await build({
      stdin: { contents: entry, resolveDir: root, loader: "ts" },
      bundle: true,
      platform: "node",
      format: "esm",
      outfile,
      logLevel: "error",
      banner: {
        js: "import { createRequire as __c } from 'node:module'; const require = __c(import.meta.url);",
      },
    });
    return await import(outfile);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A seeded uniform generator in [0, 1) (a linear congruential one): the same data every run. */
export function seeded(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}
