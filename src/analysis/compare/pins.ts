/**
 * Like-for-like comparisons: which performance-relevant defaults of one server (the target, e.g.
 * the newer version) to set to another's (the reference, e.g. the older version), so that the
 * comparison measures the code and not the change of defaults. The candidates are the maintained
 * list of performance-relevant variables (src/analysis/compare/known-settings.ts); a variable is pinned when
 * both servers have it, their values differ, the user did not set it, and the value can be given as
 * a server option. Everything else that differs is listed as not pinned, with the reason. Pure: the
 * variables come in as read back from each server (SHOW GLOBAL VARIABLES).
 */
import { refusedReason } from "../../servers/options.js";
import {
  KNOWN_SETTINGS,
  type KnownSetting,
  namesOfVariable,
  ownName,
  variableValue,
} from "./known-settings.js";

export interface Pin {
  name: string;
  /** the target's own default */
  target: string;
  /** the value it is pinned to (the reference's) */
  value: string;
}

export interface NotPinned {
  name: string;
  /** null: that server does not have the variable */
  reference: string | null;
  target: string | null;
  reason: string;
}

export interface PinPlan {
  pinned: Pin[];
  not_pinned: NotPinned[];
}

export interface PinInput {
  reference: Readonly<Record<string, string>>;
  target: Readonly<Record<string, string>>;
  /** options the user set on the target side: theirs win */
  given: Readonly<Record<string, string>>;
  /** names for the two servers in reasons, e.g. "mysql@8.0.15" */
  referenceName: string;
  targetName: string;
}

/** Why a differing known variable cannot be pinned; null when it can. */
function unpinnable(
  k: KnownSetting,
  name: string,
  ref: string | undefined,
  tgt: string | undefined,
  i: PinInput,
): string | null {
  if (ref === undefined) return `${i.referenceName} does not have it`;
  if (tgt === undefined) return `${i.targetName} does not have it`;
  if (ref === k.ignored) return `${i.referenceName} ignores it (it reads ${ref})`;
  if (tgt === k.ignored) return `${i.targetName} ignores it (it reads ${tgt})`;
  if (name in i.given) return `set by the user to ${i.given[name]}`;
  if (ref === "") return "the reference's value is empty: not expressible as a server option";
  const refused = refusedReason(name, ref);
  return refused ? `refused as a server option: ${refused}` : null;
}

/** The pins that make `target` run with `reference`'s performance-relevant defaults. */
export function planPins(i: PinInput): PinPlan {
  const out: PinPlan = { pinned: [], not_pinned: [] };
  const seen = new Set<string>();
  for (const k of KNOWN_SETTINGS) {
    for (const known of k.names) {
      // a renamed variable is one variable: pinned (or not) once, under the target's own name
      const name = ownName(i.target, known);
      if (seen.has(name)) continue;
      for (const n of namesOfVariable(name)) seen.add(n);
      const ref = variableValue(i.reference, name);
      const tgt = i.target[name];
      if (ref === undefined && tgt === undefined) continue;
      if (ref !== undefined && tgt !== undefined && ref === tgt) continue;
      const why = unpinnable(k, name, ref, tgt, i);
      if (why === null) out.pinned.push({ name, target: tgt!, value: ref! });
      else out.not_pinned.push({ name, reference: ref ?? null, target: tgt ?? null, reason: why });
    }
  }
  return out;
}

/** Moves pins the target refused to start with (or did not read back) to not pinned. */
export function dropRefused(plan: PinPlan, refused: ReadonlyMap<string, string>): PinPlan {
  return {
    pinned: plan.pinned.filter((p) => !refused.has(p.name)),
    not_pinned: [
      ...plan.not_pinned,
      ...plan.pinned
        .filter((p) => refused.has(p.name))
        .map((p) => ({
          name: p.name,
          reference: p.value,
          target: p.target,
          reason: `the server did not accept ${p.value}: ${refused.get(p.name)}`,
        })),
    ],
  };
}

/** The pins as server options. */
export function pinOptions(plan: PinPlan): Record<string, string> {
  return Object.fromEntries(plan.pinned.map((p) => [p.name, p.value]));
}
