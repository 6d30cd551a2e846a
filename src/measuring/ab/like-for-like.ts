/**
 * `perfgate ab --pin-defaults`: a like-for-like A/B. The stock A/B runs first (its results beside
 * the like-for-like ones, `<out>.stock.json`); then the performance-relevant defaults of the newer
 * side are pinned to the older's (or both sides' to a named server's: src/measuring/run/pin-defaults.ts) and
 * the A/B runs again with them. Both comparisons are reported side by side (src/output/report/like-for-like.ts).
 * An interrupted one is continued (`--resume <out>`) in whichever half it stopped.
 */
import { existsSync } from "node:fs";
import { totalmem } from "node:os";
import { basename, dirname, join } from "node:path";
import { pinOptions } from "../../analysis/compare/pins.js";
import type { PinnedDefaults } from "../../results/schema.js";
import { readAbResults } from "../../results/store.js";
import { UsageError } from "../../util/errors.js";
import { loadWorkload } from "../../workloads/schema.js";
import { installsOf, olderAndNewer, PIN_OLDER, type ProbeContext, pinsFor } from "../run/pin-defaults.js";
import { resumedPins } from "../run/resume.js";
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

/**
 * The stock A/B's results file of a pinned A/B: `ab` writes it beside the pinned one as
 * `<name>.stock.json` and records the path it was given, so the file beside `file` is looked for
 * first (the pair moved or read from another directory), then the recorded path. null: neither exists.
 */
export function stockFileOf(file: string, p: PinnedDefaults): string | null {
  if (p.stock === null) return null;
  const beside = join(dirname(file), basename(p.stock));
  for (const candidate of [beside, p.stock]) if (existsSync(candidate)) return candidate;
  return null;
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

/**
 * Where a resumed like-for-like A/B stands (`--resume <out>` with its pins): the pinned A/B's file
 * exists (interrupted in the pinned half: its pins are kept, its stock A/B is complete), or only
 * the stock A/B's beside it (interrupted in the stock half: it is continued, then pinned as new).
 */
interface LikeForLikeResume {
  /** the stock A/B's file */
  stock: string;
  /** the pinned A/B's recorded pins; null: it has not started */
  pins: PinnedDefaults | null;
}

/** Where the like-for-like A/B in `file` (the pinned one's results path) stands; refused if it is not one. */
export function likeForLikeResume(file: string, from: string): LikeForLikeResume {
  if (!existsSync(file)) {
    const stock = stockPath(file);
    if (!existsSync(stock))
      throw new UsageError(`--resume ${file}: no such file, nor its stock A/B ${stock}`);
    return { stock, pins: null };
  }
  // a file without pins, or with other ones, is refused: `from` is given
  const pins = resumedPins(file, readAbResults(file).pinned_defaults, from)!;
  const stock = stockFileOf(file, pins);
  if (stock === null) {
    throw new UsageError(`--resume ${file}: its stock A/B ${pins.stock ?? stockPath(file)} is not found`);
  }
  return { stock, pins };
}

/** What the two halves will do: both measured, or (resuming) continued or kept. */
function halvesText(out: string, resumed: LikeForLikeResume | null): string {
  if (resumed === null) return `the stock A/B first (${stockPath(out)}), then the pinned one (${out})`;
  if (resumed.pins === null)
    return `continuing the stock A/B (${resumed.stock}), then the pinned one (${out})`;
  return `the stock A/B (${resumed.stock}) is kept; continuing the pinned one (${out}) with its recorded pins`;
}

/** The stock half: measured, continued (resuming, when it was interrupted), or kept as it is (complete). */
async function stockHalf(
  opts: AbOptions,
  resumed: LikeForLikeResume | null,
): Promise<AbOutcome & { out: string }> {
  const out = stockPath(opts.out);
  if (resumed === null) return { ...(await runAb({ ...opts, out, resume: undefined })), out };
  const results = readAbResults(resumed.stock);
  if (results.status === "complete") return { results, exitCode: 0, out: resumed.stock };
  if (resumed.pins !== null) {
    throw new UsageError(`--resume ${opts.resume}: its stock A/B ${resumed.stock} is ${results.status}`);
  }
  return { ...(await runAb({ ...opts, out, resume: resumed.stock })), out };
}

/**
 * The stock A/B, then the pinned one; `from` is `older` or a server spec. Resuming (`opts.resume`,
 * the pinned A/B's results path), each half continues where it stopped and kept pins stay as recorded.
 */
export async function runAbLikeForLike(opts: AbOptions, from: string): Promise<LikeForLikeOutcome> {
  const resumed = opts.resume === undefined ? null : likeForLikeResume(opts.resume, from);
  opts.log.info(`like for like: ${halvesText(opts.out, resumed)}`);
  const stock = await stockHalf(opts, resumed);
  if (stock.exitCode !== 0 || stock.results.status !== "complete") return { stock, pinned: null };
  const pinnedDefaults = resumed?.pins ?? {
    from,
    stock: stock.out,
    sides: await pinsOfSides(opts, from, probeContext(opts)),
  };
  const set = (l: Label) => {
    const s = pinnedDefaults.sides.find((x) => x.label === l);
    return { ...(l === "base" ? opts.baseSet : opts.headSet), ...(s ? pinOptions(s) : {}) };
  };
  const pinned = await runAb({
    ...opts,
    baseSet: set("base"),
    headSet: set("head"),
    pinnedDefaults,
    resume: resumed?.pins ? opts.resume : undefined,
  });
  return { stock, pinned: { ...pinned, out: opts.out } };
}

/** What probing each server's defaults needs: the workload, where to work, the host's memory. */
function probeContext(opts: AbOptions): ProbeContext {
  return {
    workload: loadWorkload(opts.workloadFile).workload,
    out: opts.out,
    workDir: opts.workDir,
    cacheDir: opts.cacheDir,
    hostMemoryBytes: totalmem(),
    log: opts.log,
    signal: opts.signal,
  };
}
