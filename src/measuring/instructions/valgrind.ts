/**
 * Valgrind's side of counting instructions: finding valgrind and callgrind_control, checking that a
 * server binary has the function collection is switched on in, the argv prefix that starts a server
 * under callgrind, and asking a running callgrind to switch instrumentation on, zero or dump.
 */
import { UserError } from "../../util/errors.js";
import { lastLines, runCommand, whichCommand } from "../../util/processes.js";

export const VALGRIND_INSTALL_HINT =
  "install it with `sudo apt-get install valgrind` (Debian/Ubuntu), or run `bash runner-setup/install-deps.sh`";

/** Valgrind's version (`valgrind-3.19.0` → "3.19.0"); one line naming what is missing otherwise. */
export async function findValgrind(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  for (const tool of ["valgrind", "callgrind_control"]) {
    if (whichCommand(tool, env) === null) {
      throw new UserError(`instruction counts need ${tool}, which is not on PATH; ${VALGRIND_INSTALL_HINT}`);
    }
  }
  const r = await runCommand("valgrind", ["--version"], { env });
  const version = /valgrind-(\S+)/.exec(r.stdout)?.[1];
  if (r.code !== 0 || !version) {
    throw new UserError(
      `valgrind --version failed (${lastLines(r.stdout + r.stderr, 1)}); ${VALGRIND_INSTALL_HINT}`,
    );
  }
  return version;
}

/** A callgrind toggle pattern (`*` any text, `?` one character) as a regular expression on a demangled name. */
export function toggleRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}

/** The demangled names `nm -D -C` lists as defined in a binary's dynamic symbol table (pure). */
export function definedDynamicNames(nmOutput: string): string[] {
  const out: string[] = [];
  for (const line of nmOutput.split("\n")) {
    const m = /^[0-9a-fA-F]*\s+[A-Za-z]\s+(.+)$/.exec(line);
    if (m) out.push(m[1]!);
  }
  return out;
}

/**
 * The binary must define a function the toggle pattern matches, in its dynamic symbol table (what
 * a stripped binary still has): otherwise callgrind would collect nothing and every count be 0.
 */
export async function checkToggleSymbol(binary: string, pattern: string, spec: string): Promise<void> {
  if (whichCommand("nm") === null) {
    throw new UserError(
      "instruction counts check the server binary with nm, which is not on PATH; install binutils (`sudo apt-get install binutils`)",
    );
  }
  const r = await runCommand("nm", ["-D", "-C", "--defined-only", binary]);
  if (r.code !== 0) throw new UserError(`nm -D ${binary} failed: ${lastLines(r.stderr, 1)}`);
  const re = toggleRegExp(pattern);
  if (!definedDynamicNames(r.stdout).some((n) => re.test(n))) {
    throw new UserError(
      `${spec}: ${binary} defines no function matching the instructions toggle '${pattern}' in its dynamic symbol table; set instructions.toggle in the workload to a function that runs each statement`,
    );
  }
}

/** The argv prefix that starts a server under callgrind, instrumentation off until `on()`. */
export function callgrindWrapper(outFilePattern: string, toggle: string): string[] {
  return [
    "valgrind",
    "--tool=callgrind",
    "--instr-atstart=no",
    `--callgrind-out-file=${outFilePattern}`,
    `--toggle-collect=${toggle}`,
    "--dump-instr=no",
    "--quiet",
  ];
}

/** `callgrind_control <flag> <pid>`: -i on (instrument), -z (zero), -d (dump). */
export async function callgrindControl(pid: number, args: string[], signal?: AbortSignal): Promise<void> {
  const r = await runCommand("callgrind_control", [...args, String(pid)], signal ? { signal } : {});
  if (r.code !== 0 || !/OK/.test(r.stdout)) {
    throw new UserError(
      `callgrind_control ${args.join(" ")} ${pid} failed: ${lastLines(`${r.stdout}\n${r.stderr}`, 2) || `exit ${r.code}`}`,
    );
  }
}
