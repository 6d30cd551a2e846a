/**
 * Reads the host's sysfs/procfs under a root directory: `/` normally, a fake tree in tests
 * (`PERFGATE_HOST_ROOT`). The only side effects of the doctor's host checks live here.
 */
import { existsSync, readdirSync, readFileSync, statfsSync } from "node:fs";
import { dirname, join } from "node:path";

export const HOST_ROOT_ENV = "PERFGATE_HOST_ROOT";

export interface HostReader {
  /** the root every path is read under */
  root: string;
  /** a file's text, or null when it is absent or unreadable */
  text(path: string): string | null;
  /** a directory's entries (sorted), empty when absent */
  list(path: string): string[];
  /** free and total bytes of the filesystem holding `path` (the nearest existing parent), or null */
  diskSpace(path: string): { freeBytes: number; totalBytes: number } | null;
}

export function hostRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env[HOST_ROOT_ENV] || "/";
}

export function hostReader(root: string = hostRoot()): HostReader {
  const at = (path: string) => join(root, path);
  return {
    root,
    text(path) {
      try {
        return readFileSync(at(path), "utf8");
      } catch {
        return null;
      }
    },
    list(path) {
      try {
        return readdirSync(at(path)).sort();
      } catch {
        return [];
      }
    },
    diskSpace(path) {
      let p = at(path);
      while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
      try {
        const s = statfsSync(p);
        return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
      } catch {
        return null;
      }
    },
  };
}
