/**
 * Off-CPU time from `perf script --show-switch-events` of a recording with the
 * `sched:sched_switch` tracepoint (with call chains) and `--switch-events` (pure). A thread leaves
 * the CPU at a sched_switch whose `prev_state` says why: R (runnable: preempted, waiting for a CPU)
 * or anything else (blocked: a lock, I/O, a condition, sleep). It is back at its next
 * `PERF_RECORD_SWITCH IN`. Each blocked interval adds its microseconds to the folded stack of the
 * switch (root to leaf, as collapse-perf.ts names frames); runnable intervals are summed apart.
 * An interval still open when the recording ends (a thread idle to the end) is not counted.
 */
import { collapsePerfScript } from "./collapse-perf.js";
import type { Folded } from "./folded.js";

export interface OffCpu {
  /** blocked microseconds by the stack the thread blocked in */
  stacks: Folded;
  /** microseconds blocked (every stack), and runnable but waiting for a CPU */
  blocked_us: number;
  runnable_us: number;
}

const HEADER = /^(.*?)\s+(\d+)\/(\d+)\s+(?:\[\d+\]\s+)?(\d+\.\d+):\s+(.*)$/;

interface Open {
  at: number;
  stack: string | null;
}

/** The off-CPU time of a `perf script --show-switch-events -F comm,pid,tid,time,event,ip,sym,dso,trace` text. */
export function offCpuFromPerfScript(text: string): OffCpu {
  const out: OffCpu = { stacks: new Map(), blocked_us: 0, runnable_us: 0 };
  const open = new Map<string, Open>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const h = HEADER.exec(lines[i]!);
    if (!h) continue;
    const [, , , tid, time, rest] = h as unknown as [string, string, string, string, string, string];
    const at = Number(time) * 1e6;
    if (/^PERF_RECORD_SWITCH(?:_CPU_WIDE)? IN\b/.test(rest)) {
      const o = open.get(tid);
      open.delete(tid);
      if (!o || !(at >= o.at)) continue;
      if (o.stack === null) out.runnable_us += at - o.at;
      else {
        out.blocked_us += at - o.at;
        out.stacks.set(o.stack, (out.stacks.get(o.stack) ?? 0) + (at - o.at));
      }
      continue;
    }
    const sw = /sched:sched_switch:.*\bprev_state=(\S+)/.exec(rest);
    if (!sw) continue;
    // the switch's call chain: the indented frame lines that follow, up to a blank line
    let j = i + 1;
    while (j < lines.length && /^\s+\S/.test(lines[j]!)) j++;
    const runnable = /^R\+?$/.test(sw[1]!);
    const stack = runnable ? null : stackOf(lines.slice(i, j));
    open.set(tid, { at, stack });
    i = j - 1;
  }
  return out;
}

/** The folded stack of one sample's lines (header and frames). */
function stackOf(sample: string[]): string {
  const folded = collapsePerfScript(`${sample.join("\n")}\n`);
  return [...folded.keys()][0] ?? "[unknown]";
}
