/**
 * The my.cnf options a stored run set beyond perfgate's own tuning of its server: what `--set`,
 * `--base-set`/`--head-set`, the workload's `server_options` and `binlog`, and `--pin-defaults`
 * pins changed. The store keeps each tier's generated my.cnf (`servers[].tiers[].config`), not
 * where each line came from, so this compares it with what src/servers/config.ts generates for
 * that server, buffer pool and host: an option set to another value, one added, one removed. These
 * are series conditions (conditions.ts). Pure.
 */
import { INSTANCE_KEYS, parseMyCnf } from "../../analysis/compare/fairness.js";
import { type ConfigContext, type Overrides, tunables } from "../../servers/config.js";
import { FLAVORS, type Flavor } from "../../servers/spec.js";
import { normalValue } from "./conditions.js";
import type { HistoryServer } from "./schema.js";

/** One option as the run had it beside perfgate's own value (null: not in that my.cnf), and the tiers it was so in. */
export interface MyCnfOverride {
  name: string;
  value: string | null;
  perfgate: string | null;
  tiers: string[];
}

/** Options perfgate derives from the others and the host's open-files limit (open-files scaling). */
const DERIVED = new Set(["open_files_limit", "table_open_cache", "table_open_cache_instances"]);

type Tier = HistoryServer["tiers"][number];

const same = (a: string | undefined, b: string | undefined) =>
  a === b || (a !== undefined && b !== undefined && normalValue(a) === normalValue(b));

/** Where the recorded options differ from `generated`, the derived ones left out unless `derived`. */
function differences(recorded: Map<string, string>, generated: Map<string, string>, derived: boolean) {
  const names = [...new Set([...recorded.keys(), ...generated.keys()])];
  return names.filter((n) => (derived || !DERIVED.has(n)) && !same(recorded.get(n), generated.get(n)));
}

/** The tier's differing options: [name, the run's value, perfgate's]. */
function tierOverrides(flavor: Flavor, version: string, tier: Tier, hostMemoryBytes: number) {
  const recorded = new Map([...parseMyCnf(tier.config)].filter(([k]) => !INSTANCE_KEYS.has(k)));
  const limit = Number(recorded.get("open_files_limit"));
  const ctx: ConfigContext = {
    flavor,
    version,
    bufferPoolBytes: tier.buffer_pool_bytes,
    hostMemoryBytes,
    // the host's limit as the run recorded it, so the open-files scaling comes out as it did
    openFilesLimit: Number.isSafeInteger(limit) && limit > 0 ? limit : null,
  };
  const stock = new Map(tunables(ctx));
  const names = differences(recorded, stock, false);
  const out = names.map((n) => [n, recorded.get(n) ?? null, stock.get(n) ?? null] as const);
  try {
    // Again with what the run set, so the derived options follow from it (a max_connections set
    // changes the table cache it leaves room for): a derived one that still differs was set too.
    const set: Overrides = Object.fromEntries(names.map((n) => [n, recorded.get(n) ?? null]));
    const derived = new Map(tunables(ctx, set));
    for (const n of differences(recorded, derived, true).filter((x) => DERIVED.has(x))) {
      out.push([n, recorded.get(n) ?? null, derived.get(n) ?? null]);
    }
  } catch {
    // an option this version refuses: the derived ones stay out
  }
  return out;
}

/**
 * The server's options set beyond perfgate's tuning, by name, each with the tiers it was so in
 * (all of them usually); null when perfgate does not generate a my.cnf for its flavor.
 */
export function myCnfOverrides(server: HistoryServer, hostMemoryBytes: number): MyCnfOverride[] | null {
  const flavor = FLAVORS.find((f) => f === server.flavor);
  if (flavor === undefined) return null;
  const out = new Map<string, MyCnfOverride>();
  for (const tier of server.tiers) {
    for (const [name, value, perfgate] of tierOverrides(flavor, server.version, tier, hostMemoryBytes)) {
      const key = JSON.stringify([name, value, perfgate]);
      const known = out.get(key);
      if (known) known.tiers.push(tier.tier);
      else out.set(key, { name, value, perfgate, tiers: [tier.tier] });
    }
  }
  return [...out.values()];
}
