/** Building sysbench command lines (pure) and finding the sysbench binary (side effect). */

import { SBTEST } from "../servers/instance.js";
import { UserError } from "../util/errors.js";
import { runCommand } from "../util/processes.js";

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

/** Finds sysbench on PATH (or $PERFGATE_SYSBENCH) and reads its version. */
export async function findSysbench(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ path: string; version: string }> {
  const path = env.PERFGATE_SYSBENCH || "sysbench";
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
