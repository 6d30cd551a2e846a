/**
 * Making programs from a newer Debian suite runnable on an older host: each ELF program under
 * usr/sbin and usr/bin gets the suite's dynamic loader as its interpreter and the suite's library
 * directories as a DT_RPATH (`patchelf --force-rpath`). DT_RPATH, unlike the default DT_RUNPATH,
 * also applies to the dependencies of libraries and of dlopen()ed plugins (libicuuc's own
 * libicudata, the server's plugins), so the whole process resolves against the suite's libraries
 * first and falls back to the host's. Why patching rather than running through the loader:
 * docs/decisions/2026-11-23-deb-suite-binaries.md.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { UserError } from "../../util/errors.js";
import { runCommand } from "../../util/processes.js";

export const PATCHELF_HINT =
  "install patchelf (`sudo apt-get install patchelf`, or run `bash runner-setup/install-deps.sh`)";

function isElf(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head.toString("latin1") === "\x7fELF";
  } finally {
    closeSync(fd);
  }
}

/** The dynamic loader inside an unpacked root (a regular file or a link to one), or null. */
export function findLoader(root: string): string | null {
  for (const dir of ["usr/lib64", "lib64", "usr/lib/x86_64-linux-gnu", "usr/lib/aarch64-linux-gnu"]) {
    const full = join(root, dir);
    if (!existsSync(full)) continue;
    const hit = readdirSync(full).find((f) => /^ld-linux[-\w]*\.so\.\d$/.test(f));
    if (hit) return join(dir, hit);
  }
  return null;
}

/** ELF files that have an interpreter (programs, not libraries) directly in the given dirs. */
async function programs(root: string, dirs: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const dir of dirs) {
    const full = join(root, dir);
    if (!existsSync(full)) continue;
    for (const f of readdirSync(full)) {
      const path = join(full, f);
      if (!statSync(path).isFile() || !isElf(path)) continue;
      const r = await runCommand("patchelf", ["--print-interpreter", path]);
      if (r.code === 0 && r.stdout.trim() !== "") out.push(path);
    }
  }
  return out;
}

/**
 * Patches every program under `tmpRoot`/usr/{sbin,bin} to use the loader and libraries that will
 * live under `finalRoot` (the directory tmpRoot is renamed to; paths are absolute).
 */
export async function patchForSuiteLibc(
  tmpRoot: string,
  finalRoot: string,
  finalLibDirs: string[],
  signal?: AbortSignal,
): Promise<number> {
  const probe = await runCommand("patchelf", ["--version"]).catch(() => null);
  if (probe?.code !== 0) {
    throw new UserError(
      `this server needs a newer C library than the host's, and patchelf is missing: ${PATCHELF_HINT}`,
    );
  }
  const loader = findLoader(tmpRoot);
  if (!loader) throw new UserError(`the fetched C library package has no dynamic loader under ${tmpRoot}`);
  const files = await programs(tmpRoot, ["usr/sbin", "usr/bin"]);
  for (const file of files) {
    const args = [
      "--set-interpreter",
      join(finalRoot, loader),
      "--force-rpath",
      "--set-rpath",
      finalLibDirs.join(":"),
      file,
    ];
    const r = await runCommand("patchelf", args, signal ? { signal } : {});
    if (r.code !== 0) {
      throw new UserError(`patchelf ${relative(tmpRoot, file)} failed (exit ${r.code}): ${r.stderr.trim()}`);
    }
  }
  return files.length;
}
