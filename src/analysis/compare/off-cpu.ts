/**
 * Off-CPU time of a profiled A/B cell, per transaction (pure): how long the server's threads were
 * blocked (a lock, I/O, a condition) and runnable but waiting for a CPU, and where the blocked time
 * grew most. "Where" is the two deepest user-space frames of the stack a thread blocked in (the
 * kernel frames below them, `__schedule_[k]` and its callers, are the same for every wait), so a
 * redo-log flush and a row-lock wait come apart. From `cells[].profile.*.off_cpu`
 * (src/measuring/profiles/off-cpu.ts).
 */
import type { ProfileSide } from "../../results/schema.js";
import type { ProfileEntry } from "./schema.js";

const GROWN = 5;

/** The two deepest user-space frames of a folded stack, "caller > callee". */
export function waitSite(stack: string): string {
  const user = stack.split(";").filter((f) => !f.endsWith("_[k]"));
  return user.slice(-2).join(" > ") || "[kernel]";
}

function bySite(stacks: Record<string, number>, transactions: number): Map<string, number> {
  const out = new Map<string, number>();
  if (!(transactions > 0)) return out;
  for (const [stack, us] of Object.entries(stacks)) {
    const k = waitSite(stack);
    out.set(k, (out.get(k) ?? 0) + us / transactions);
  }
  return out;
}

/** The off-CPU part of a profile entry; null unless both sides recorded off-CPU time. */
export function offCpuOf(base: ProfileSide, head: ProfileSide): ProfileEntry["off_cpu"] | null {
  const b = base.off_cpu;
  const h = head.off_cpu;
  if (!b || !h || !(base.transactions > 0) || !(head.transactions > 0)) return null;
  const per = (x: number, t: number) => x / t;
  const sb = bySite(b.stacks, base.transactions);
  const sh = bySite(h.stacks, head.transactions);
  const grown = [...new Set([...sb.keys(), ...sh.keys()])]
    .map((name) => ({ name, base: sb.get(name) ?? 0, head: sh.get(name) ?? 0 }))
    .filter((x) => x.head > x.base)
    .sort((x, y) => y.head - y.base - (x.head - x.base) || (x.name < y.name ? -1 : 1))
    .slice(0, GROWN);
  return {
    base: {
      blocked_us: per(b.blocked_us, base.transactions),
      runnable_us: per(b.runnable_us, base.transactions),
    },
    head: {
      blocked_us: per(h.blocked_us, head.transactions),
      runnable_us: per(h.runnable_us, head.transactions),
    },
    grown,
  };
}
