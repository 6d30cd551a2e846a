/**
 * Server options checked before anything is downloaded, written or started (run and ab): every
 * user option is data (src/servers/options.ts), options the requested flavor/version must not
 * get are refused when the spec names the version, and the buffer pools fit the host.
 */
import { forbiddenReason } from "../../servers/config.js";
import { checkServerOptions, effectiveBufferPool, type OptionValue } from "../../servers/options.js";
import { parseServerSpec, type ServerSpec } from "../../servers/spec.js";
import { UsageError, UserError } from "../../util/errors.js";
import type { Workload } from "../../workloads/schema.js";
import { checkTiersFitHost } from "./plan.js";

export interface PlannedServer {
  /** server spec, e.g. mariadb@11.4.5 */
  spec: string;
  /** the options given for it besides the workload's (--set, --base-set, --head-set) */
  set: Readonly<Record<string, OptionValue>>;
  /** where `set` came from, for errors: "--set", "--base-set", ... */
  where: string;
}

/**
 * Parses every server spec a run was given, all before any is resolved, downloaded or built: a
 * typo in the second spec fails before the first is fetched. Throws the parser's one-line error.
 */
export function parseServerSpecs(specs: readonly string[]): ServerSpec[] {
  return specs.map((spec) => parseServerSpec(spec));
}

export function preflightServers(
  w: Workload,
  file: string,
  hostMemory: number,
  servers: readonly PlannedServer[],
): void {
  checkServerOptions(w.server_options, `${file}: server_options`);
  // Refusals of what a flag gave are usage errors (exit 2), like the flag's own checks.
  const usage = (m: string) => new UsageError(m);
  for (const s of servers) checkServerOptions(s.set, s.where, usage);
  for (const s of servers) {
    checkForSpec(s.spec, s.set, s.where, usage);
    checkForSpec(s.spec, w.server_options, `${file}: server_options`, (m) => new UserError(m));
  }
  const fromFlags = servers.some((s) => effectiveBufferPool(0, s.set) !== 0);
  try {
    checkTiersFitHost(
      w,
      file,
      hostMemory,
      servers.map((s) => ({ ...w.server_options, ...s.set })),
    );
  } catch (err) {
    if (fromFlags && err instanceof UserError) throw usage(err.message);
    throw err;
  }
}

/** Flavor/version refusals (config.ts FORBIDDEN) when the spec names them; others wait for the install. */
function checkForSpec(
  spec: string,
  options: Readonly<Record<string, OptionValue>>,
  where: string,
  make: (message: string) => Error,
): void {
  const parsed = parseServerSpec(spec);
  if (parsed.kind !== "versioned") return;
  for (const [name, value] of Object.entries(options)) {
    if (value === null) continue;
    const why = forbiddenReason(name, parsed);
    if (why) {
      throw make(
        `${where}: server option ${JSON.stringify(name)}: not accepted for ${parsed.flavor} ${parsed.version}: ${why}`,
      );
    }
  }
}
