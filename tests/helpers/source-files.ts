import { readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * The TypeScript source files under `dir` (recursively; `.d.ts` left out), or `dir` itself when it
 * names one `.ts` file: what the structure tests (layers, function length, core without I/O,
 * metric names) read.
 */
export function sourceFiles(dir: string): string[] {
  if (dir.endsWith(".ts")) return [dir];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}
