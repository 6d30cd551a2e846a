/**
 * `--pin-defaults`: a like-for-like comparison sets the performance-relevant defaults of a server
 * (the newer version of an A/B, or a run's server) to those of a reference server (the older
 * version, or a named server spec). Each server is started once with the workload's options at its
 * first tier and its SHOW GLOBAL VARIABLES read back (a probe); src/analysis/compare/pins.ts chooses the
 * pins; the target is started again with them, and a pin it refuses (does not start with, or does
 * not read back) is dropped and reported as not pinned. docs/comparisons.md, "Like for like".
 */
import { resolve } from "node:path";
import { dropRefused, type PinPlan, pinOptions, planPins } from "../../analysis/compare/pins.js";
import type { PinnedDefaults } from "../../results/schema.js";
import type { ServerInstall } from "../../servers/install.js";
import { resolveServer } from "../../servers/resolve.js";
import { compareVersions } from "../../servers/spec.js";
import { errorMessage } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import type { Workload } from "../../workloads/schema.js";
import { sideOverrides } from "./engine.js";
import { startTierServer } from "./tier-server.js";

/** `--pin-defaults older` (an A/B's newer side to the older's) or a server spec to pin to. */
export const PIN_OLDER = "older";

export interface ProbeContext {
  workload: Workload;
  /** where results go: the probes' datadirs go in its work dir */
  out: string;
  workDir?: string | undefined;
  cacheDir?: string | undefined;
  hostMemoryBytes: number;
  log: Logger;
  signal: AbortSignal;
}

/** The pins of one side: its spec, the reference's, and the plan (pins and what was not pinned). */
export interface SidePins {
  target: string;
  reference: string;
  plan: PinPlan;
}

function workRootOf(c: ProbeContext): string {
  return resolve(c.workDir ?? resolve(resolve(c.out), "..", ".perfgate", "work"));
}

/** Starts a server with the workload's options (and `set`) at its first tier; its variables. */
async function probe(install: ServerInstall, set: Record<string, string>, c: ProbeContext) {
  const { instance, start } = await startTierServer({
    install,
    label: "probe",
    tier: c.workload.tiers[0]!,
    workRoot: workRootOf(c),
    hostMemoryBytes: c.hostMemoryBytes,
    overrides: sideOverrides(c.workload, set),
    binlog: c.workload.binlog,
    log: c.log,
    signal: c.signal,
  });
  await instance.dispose();
  return start.tier.variables;
}

/** Why the target does not start with these options (or does not read them back); null if it does. */
async function refusal(install: ServerInstall, set: Record<string, string>, c: ProbeContext) {
  try {
    await probe(install, set, c);
    return null;
  } catch (err) {
    if (c.signal.aborted) throw err;
    return errorMessage(err).split("\n")[0]!.slice(0, 300);
  }
}

/** Checks the pins on the target: all at once, then (when refused) one by one. */
async function checkPins(
  install: ServerInstall,
  given: Record<string, string>,
  plan: PinPlan,
  c: ProbeContext,
) {
  if (plan.pinned.length === 0) return plan;
  c.log.info(`${install.spec}: starting it with ${plan.pinned.length} pinned defaults to check them`);
  if ((await refusal(install, { ...given, ...pinOptions(plan) }, c)) === null) return plan;
  const refused = new Map<string, string>();
  for (const [i, p] of plan.pinned.entries()) {
    c.log.info(
      `${install.spec}: refused a pinned default; checking ${p.name} alone (${i + 1} of ${plan.pinned.length})`,
    );
    const why = await refusal(install, { ...given, [p.name]: p.value }, c);
    if (why !== null) refused.set(p.name, why);
  }
  return dropRefused(plan, refused);
}

/** The pins that give `target` the reference's performance-relevant defaults, checked on the target. */
export async function pinsFor(
  reference: ServerInstall,
  target: ServerInstall,
  given: Record<string, string>,
  c: ProbeContext,
): Promise<SidePins> {
  c.log.info(`like for like: reading the defaults of ${reference.spec} and ${target.spec}`);
  const refVars = await probe(reference, {}, c);
  const tgtVars = await probe(target, given, c);
  const plan = planPins({
    reference: refVars,
    target: tgtVars,
    given,
    referenceName: reference.spec,
    targetName: target.spec,
  });
  const checked = await checkPins(target, given, plan, c);
  return { target: target.spec, reference: reference.spec, plan: checked };
}

/** The installs of the specs (cached ones answer without network). */
export async function installsOf(specs: readonly string[], c: ProbeContext): Promise<ServerInstall[]> {
  const opts = { log: c.log, signal: c.signal, ...(c.cacheDir ? { cacheDir: c.cacheDir } : {}) };
  const out: ServerInstall[] = [];
  for (const s of specs) out.push(await resolveServer(s, opts));
  return out;
}

/** Of an A/B's two servers, which is pinned to which: the newer to the older (the base on a tie). */
export function olderAndNewer(base: ServerInstall, head: ServerInstall): { older: "base" | "head" } {
  if (base.flavor === head.flavor && compareVersions(head.version, base.version) < 0)
    return { older: "head" };
  return { older: "base" };
}

/** One line per pin and per variable left as it was, for logs and reports. */
export function describePins(p: SidePins): string[] {
  return [
    `${p.target} pinned to the defaults of ${p.reference}: ${p.plan.pinned.length} set, ${p.plan.not_pinned.length} not`,
    ...p.plan.pinned.map((x) => `  pinned ${x.name}=${x.value} (its default: ${x.target})`),
    ...p.plan.not_pinned.map(
      (x) => `  not pinned ${x.name} (${x.reference ?? "absent"} vs ${x.target ?? "absent"}): ${x.reason}`,
    ),
  ];
}

/** `perfgate run --pin-defaults <spec>`: the run's server pinned to the defaults of `from`. */
export async function pinRunServer(
  server: string,
  from: string,
  set: Record<string, string>,
  c: ProbeContext,
): Promise<PinnedDefaults> {
  const [ref, target] = await installsOf([from, server], c);
  const p = await pinsFor(ref!, target!, set, c);
  for (const line of describePins(p)) c.log.info(line);
  return {
    from,
    stock: null,
    sides: [{ label: "server", target: p.target, reference: p.reference, ...p.plan }],
  };
}
