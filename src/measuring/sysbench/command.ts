/** Building sysbench command lines (pure) and finding the sysbench binary (side effect). */

import { UserError } from "../../util/errors.js";
import { lastLines, runCommand } from "../../util/processes.js";

/** The account and database sysbench uses: the server instance creates them (src/servers/instance.ts). */
export const SBTEST = { user: "sbtest", password: "sbtest", database: "sbtest" } as const;

export interface Target {
  host: string;
  port: number;
}

export interface SysbenchCall {
  script: string;
  tables: number;
  tableSize: number;
  threads: number;
  options: Record<string, string | number | boolean>;
}

function optionArgs(options: Record<string, string | number | boolean>): string[] {
  return Object.entries(options).map(([k, v]) => `--${k}=${typeof v === "boolean" ? (v ? "on" : "off") : v}`);
}

function common(call: SysbenchCall, target: Target): string[] {
  return [
    call.script,
    "--db-driver=mysql",
    `--mysql-host=${target.host}`,
    `--mysql-port=${target.port}`,
    `--mysql-user=${SBTEST.user}`,
    `--mysql-password=${SBTEST.password}`,
    `--mysql-db=${SBTEST.database}`,
    `--tables=${call.tables}`,
    `--table-size=${call.tableSize}`,
    `--threads=${call.threads}`,
    ...optionArgs(call.options),
  ];
}

export function prepareArgs(call: SysbenchCall, target: Target): string[] {
  return [...common(call, target), "prepare"];
}

export function runArgs(
  call: SysbenchCall,
  target: Target,
  seconds: number,
  reportInterval: number,
): string[] {
  return [...common(call, target), `--time=${seconds}`, `--report-interval=${reportInterval}`, "run"];
}

export const SYSBENCH_INSTALL_HINT =
  "install it with `sudo apt-get install sysbench` (Debian/Ubuntu), or run `bash runner-setup/install-deps.sh`";

/**
 * Finds sysbench on PATH (or $PERFGATE_SYSBENCH) and reads its version; with a client wrapper
 * (the network scenario, src/servers/network.ts) it runs `<wrapper> sysbench --version`, so the
 * sysbench found is the one the wrapper runs (on another host for `ssh`).
 */
export async function findSysbench(
  env: NodeJS.ProcessEnv = process.env,
  clientWrapper: readonly string[] | null = null,
): Promise<{ path: string; version: string }> {
  const path = env.PERFGATE_SYSBENCH || "sysbench";
  if (clientWrapper && clientWrapper.length > 0) return await findWrappedSysbench(path, clientWrapper);
  let r: Awaited<ReturnType<typeof runCommand>>;
  try {
    r = await runCommand(path, ["--version"]);
  } catch {
    throw new UserError(`sysbench not found (${path}); ${SYSBENCH_INSTALL_HINT}`);
  }
  const version = /sysbench\s+(\S+)/.exec(r.stdout)?.[1];
  if (r.code !== 0 || !version) throw new UserError(`${path} --version failed; ${SYSBENCH_INSTALL_HINT}`);
  return { path, version };
}

async function findWrappedSysbench(
  path: string,
  wrapper: readonly string[],
): Promise<{ path: string; version: string }> {
  const shown = wrapper.join(" ");
  let r: Awaited<ReturnType<typeof runCommand>>;
  try {
    r = await runCommand(wrapper[0]!, [...wrapper.slice(1), path, "--version"]);
  } catch (err) {
    throw new UserError(
      `--client-wrapper ${shown}: cannot run it (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  const version = /sysbench\s+(\S+)/.exec(r.stdout)?.[1];
  if (r.code !== 0 || !version) {
    throw new UserError(
      `\`${shown} ${path} --version\` failed (exit ${r.code ?? r.signal}: ${lastLines(`${r.stdout}\n${r.stderr}`, 2) || "no output"}); sysbench must be installed where --client-wrapper runs it: ${SYSBENCH_INSTALL_HINT}`,
    );
  }
  return { path, version };
}
