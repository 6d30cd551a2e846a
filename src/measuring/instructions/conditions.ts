/**
 * The conditions a count depends on besides the settings (docs/instructions.md, "Counting
 * conditions"): the CPU's model and the flags the C library's ifunc resolvers read (the same binary
 * runs another memcpy on a CPU with AVX-512 or ERMS), the C library the server process mapped, and
 * the server binary's build (.comment, INFO_BIN, its version variables). Read once per side before
 * the server restarts under valgrind; every part is optional in the file, and what cannot be read
 * here is recorded as unknown (null or empty), never guessed.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ServerInstall } from "../../servers/install.js";
import { runCommand, whichCommand } from "../../util/processes.js";
import type { CountedServer, CountingCpu } from "../profiles/callgrind-profile.js";

/** CPU flags glibc's (and other C libraries') ifunc choices of string and memory functions read. */
export const IFUNC_FLAGS: readonly string[] = [
  "sse2",
  "ssse3",
  "sse4_1",
  "sse4_2",
  "popcnt",
  "avx",
  "avx2",
  "fma",
  "bmi1",
  "bmi2",
  "abm",
  "movbe",
  "erms",
  "fsrm",
  "fzrm",
  "avx512f",
  "avx512bw",
  "avx512vl",
  "avx512dq",
  "avx512cd",
  "avx512_vbmi2",
  "rtm",
  "sha_ni",
];

/** The CPU from /proc/cpuinfo text: its model and the IFUNC_FLAGS it has (pure). */
export function cpuOf(cpuinfo: string): CountingCpu {
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1]?.trim() ?? "unknown";
  const flags = new Set((/^flags\s*:(.*)$/m.exec(cpuinfo)?.[1] ?? "").trim().split(/\s+/));
  return { model: model.slice(0, 300), flags: IFUNC_FLAGS.filter((f) => flags.has(f)) };
}

/** This host's CPU (cpuOf of /proc/cpuinfo; "unknown" and no flags where it cannot be read). */
export function countingCpu(): CountingCpu {
  try {
    return cpuOf(readFileSync("/proc/cpuinfo", "utf8"));
  } catch {
    return { model: "unknown", flags: [] };
  }
}

/** The C library's path among a process's mappings (/proc/<pid>/maps text), or null (pure). */
export function libcPath(maps: string): string | null {
  for (const line of maps.split("\n")) {
    const path = /\s(\/\S+)$/.exec(line)?.[1];
    if (path && /\/(libc\.so\.6|libc-[0-9.]+\.so|ld-musl-[^/]+\.so\.1|libc\.musl-[^/]+\.so\.1)$/.test(path))
      return path;
  }
  return null;
}

/** The C library's name and version from its file's text (glibc's banner, musl's loader name) (pure). */
export function libcOf(path: string, banner: string): CountedServer["libc"] {
  const g = /GNU C Library \(([^)\n]{1,120})\) [a-z ]*release version ([0-9]+\.[0-9]+)/.exec(banner);
  if (g) return { name: "glibc", version: g[2]!, release: g[1]! };
  const plain = /GNU C Library [a-z ]*release version ([0-9]+\.[0-9]+)/.exec(banner);
  if (plain) return { name: "glibc", version: plain[1]! };
  if (/musl/.test(path))
    return { name: "musl", version: /\b1\.[0-9]+\.[0-9]+\b/.exec(banner)?.[0] ?? "unknown" };
  return null;
}

/** At most the first `max` bytes of a file as latin1 text (the banner is in libc's read-only data). */
function headOf(path: string, max = 8 * 1024 * 1024): string {
  const size = Math.min(statSync(path).size, max);
  const buf = Buffer.alloc(size);
  const fd = openSync(path, "r");
  try {
    readSync(fd, buf, 0, size, 0);
  } finally {
    closeSync(fd);
  }
  return buf.toString("latin1");
}

/** The C library a running process mapped (null when it cannot be read). */
export function processLibc(pid: number): CountedServer["libc"] {
  try {
    const path = libcPath(readFileSync(`/proc/${pid}/maps`, "utf8"));
    return path ? libcOf(path, headOf(path)) : null;
  } catch {
    return null;
  }
}

/** The newest GLIBC_x.y version `readelf -V` lists as required (pure); null: none. */
export function newestGlibcRequired(readelfV: string): string | null {
  const versions = [...readelfV.matchAll(/Name: GLIBC_([0-9]+)\.([0-9]+)(?:\.([0-9]+))?/g)].map((m) => [
    Number(m[1]),
    Number(m[2]),
    Number(m[3] ?? 0),
  ]);
  if (versions.length === 0) return null;
  versions.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!);
  const [x, y, z] = versions.at(-1)!;
  return `GLIBC_${x}.${y}${z ? `.${z}` : ""}`;
}

/** The distinct `.comment` strings of `readelf -p .comment` output (compiler and version) (pure). */
export function commentLines(readelfP: string): string[] {
  const out: string[] = [];
  for (const line of readelfP.split("\n")) {
    const text = /^\s*\[\s*[0-9a-f]+\]\s+(.*)$/.exec(line)?.[1]?.trim();
    if (text && !out.includes(text)) out.push(text.slice(0, 300));
  }
  return out.slice(0, 8);
}

/** The version variables of SHOW GLOBAL VARIABLES that describe the build (pure). */
export function versionVariables(variables: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(variables).sort()) {
    if (!/^(version(_.+)?|innodb_version)$/.test(name) || Object.keys(out).length >= 24) continue;
    out[name.slice(0, 300)] = variables[name]!.slice(0, 300);
  }
  return out;
}

/** The build type: INFO_BIN's CMAKE_BUILD_TYPE, else "Debug" for a -debug version, else null (pure). */
export function buildTypeOf(infoBin: string | null, version: string | undefined): string | null {
  const cmake = infoBin ? /^CMAKE_BUILD_TYPE(?::STRING)?[=:]\s*(\S{1,60})/m.exec(infoBin)?.[1] : undefined;
  if (cmake) return cmake;
  return version && /-debug\b/i.test(version) ? "Debug" : null;
}

async function readelf(args: string[]): Promise<string> {
  if (whichCommand("readelf") === null) return "";
  const r = await runCommand("readelf", args);
  return r.code === 0 ? r.stdout.slice(0, 1_000_000) : "";
}

function infoBin(install: ServerInstall): string | null {
  try {
    return headOf(join(install.basedir, "docs", "INFO_BIN"), 256 * 1024);
  } catch {
    return null;
  }
}

/** What a running (native) server process runs with: its C library and its build. */
export async function countedServer(
  install: ServerInstall,
  pid: number | null,
  variables: Readonly<Record<string, string>>,
): Promise<CountedServer> {
  return {
    libc: pid === null ? null : processLibc(pid),
    libc_required: newestGlibcRequired(await readelf(["-V", "--wide", install.mysqld])),
    compiler: commentLines(await readelf(["-p", ".comment", install.mysqld])),
    build_type: buildTypeOf(infoBin(install), variables.version),
    version_variables: versionVariables(variables),
  };
}
