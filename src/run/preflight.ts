/**
 * Server options checked before anything is downloaded, written or started (run and ab): every
 * user option is data (src/servers/options.ts), options the requested flavor/version must not
 * get are refused when the spec names the version, and the buffer pools fit the host.
 */
import { forbiddenReason } from "../servers/config.js";
import { checkServerOptions, type OptionValue } from "../servers/options.js";
import { parseServerSpec } from "../servers/spec.js";
import { UserError } from "../util/errors.js";
import type { Workload } from "../workloads/schema.js";
import { checkTiersFitHost } from "./plan.js";

export interface PlannedServer {
  /** server spec, e.g. mariadb@11.4.5 */
  spec: string;
  /** the options given for it besides the workload's (--set, --base-set, --head-set) */
  set: Readonly<Record<string, OptionValue>>;
  /** where `set` came from, for errors: "--set", "--base-set", ... */
  where: string;
}

export function preflightServers(
  w: Workload,
  file: string,
  hostMemory: number,
  servers: readonly PlannedServer[],
): void {
  checkServerOptions(w.server_options, `${file}: server_options`);
  for (const s of servers) checkServerOptions(s.set, s.where);
  for (const s of servers) checkForSpec(s.spec, { ...w.server_options, ...s.set });
  checkTiersFitHost(
    w,
    file,
    hostMemory,
    servers.map((s) => ({ ...w.server_options, ...s.set })),
  );
}

/** Flavor/version refusals (config.ts FORBIDDEN) when the spec names them; others wait for the install. */
function checkForSpec(spec: string, options: Readonly<Record<string, OptionValue>>): void {
  const parsed = parseServerSpec(spec);
  if (parsed.kind !== "versioned") return;
  for (const [name, value] of Object.entries(options)) {
    if (value === null) continue;
    const why = forbiddenReason(name, parsed);
    if (why) {
      throw new UserError(
        `server option ${name.replaceAll("-", "_")}: not accepted for ${parsed.flavor} ${parsed.version}: ${why}`,
      );
    }
  }
}
