/**
 * `perfgate ab --pin-defaults`: a like-for-like A/B. The stock A/B runs first (its results beside
 * the like-for-like ones, `<out>.stock.json`); then the performance-relevant defaults of the newer
 * side are pinned to the older's (or both sides' to a named server's: src/measuring/run/pin-defaults.ts) and
 * the A/B runs again with them. Both comparisons are reported side by side (src/output/report/like-for-like.ts).
 */
import { totalmem } from "node:os";
import { pinOptions } from "../../analysis/compare/pins.js";
import type { PinnedDefaults } from "../../results/schema.js";
import { loadWorkload } from "../../workloads/schema.js";
import { installsOf, olderAndNewer, PIN_OLDER, type ProbeContext, pinsFor } from "../run/pin-defaults.js";
import { type AbOptions, type AbOutcome, runAb } from "./runner.js";

export interface LikeForLikeOutcome {
  stock: AbOutcome & { out: string };
  /** null when the stock A/B did not complete (nothing pinned then) */
  pinned: (AbOutcome & { out: string }) | null;
}

/** `results/x.json` → `results/x.stock.json`. */
export function stockPath(out: string): string {
  return /\.json$/.test(out) ? out.replace(/\.json$/, ".stock.json") : `${out}.stock.json`;
}

type Label = "base" | "head";

/** The pins of each pinned side, checked on its server. */
async function pinsOfSides(opts: AbOptions, from: string, c: ProbeContext): Promise<PinnedDefaults["sides"]> {
  const [base, head] = await installsOf([opts.base, opts.head], c);
  const given = (l: Label) => (l === "base" ? opts.baseSet : opts.headSet) ?? {};
  const install = { base: base!, head: head! };
  const sides: PinnedDefaults["sides"] = [];
  if (from === PIN_OLDER) {
    const { older } = olderAndNewer(install.base, install.head);
    const newer: Label = older === "base" ? "head" : "base";
    const p = await pinsFor(install[older], install[newer], given(newer), c);
    sides.push({ label: newer, target: p.target, reference: p.reference, ...p.plan });
    return sides;
  }
  const [ref] = await installsOf([from], c);
  for (const label of ["base", "head"] as const) {
    const p = await pinsFor(ref!, install[label], given(label), c);
    sides.push({ label, target: p.target, reference: p.reference, ...p.plan });
  }
  return sides;
}

/** The stock A/B, then the pinned one; `from` is `older` or a server spec. */
export async function runAbLikeForLike(opts: AbOptions, from: string): Promise<LikeForLikeOutcome> {
  if (opts.resume !== undefined) throw new Error("--pin-defaults cannot resume an A/B: run it again");
  const stockOut = stockPath(opts.out);
  opts.log.info(`like for like: the stock A/B first (${stockOut}), then the pinned one (${opts.out})`);
  const stock = { ...(await runAb({ ...opts, out: stockOut })), out: stockOut };
  if (stock.exitCode !== 0 || stock.results.status !== "complete") return { stock, pinned: null };
  const c: ProbeContext = {
    workload: loadWorkload(opts.workloadFile).workload,
    out: opts.out,
    workDir: opts.workDir,
    cacheDir: opts.cacheDir,
    hostMemoryBytes: totalmem(),
    log: opts.log,
    signal: opts.signal,
  };
  const sides = await pinsOfSides(opts, from, c);
  const set = (l: Label) => {
    const s = sides.find((x) => x.label === l);
    return { ...(l === "base" ? opts.baseSet : opts.headSet), ...(s ? pinOptions(s) : {}) };
  };
  const pinnedDefaults: PinnedDefaults = { from, stock: stockOut, sides };
  const pinned = await runAb({ ...opts, baseSet: set("base"), headSet: set("head"), pinnedDefaults });
  return { stock, pinned: { ...pinned, out: opts.out } };
}
