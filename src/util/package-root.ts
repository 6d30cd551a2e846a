/**
 * perfgate's own checkout or install: the nearest folder above this module with a package.json.
 * The same answer from the bundles (dist/cli.mjs, action/dist/index.mjs) and from src/ in tests.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}
