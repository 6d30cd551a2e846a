/**
 * `perf script` output collapsed into folded stacks (what stackcollapse-perf.pl does): each sample
 * is a header line (`comm pid[/tid] [cpu] time: period event:`) followed by its frames, leaf
 * first, one per line (`address symbol+offset (object)`), and a blank line. The folded stack is
 * the frames from the root to the leaf — with the thread's name first only on request, since
 * versions name their threads differently and a diff would then match nothing; offsets are dropped, unknown
 * symbols become `[unknown]` with their object's file name, kernel frames get a `_[k]` suffix.
 * Pure.
 */
import type { Folded } from "./folded.js";

const FRAME = /^\s+([0-9a-f]+)\s+(.+?)\s+\((.*)\)\s*$/i;

function frameName(symbol: string, object: string): string {
  const kernel = object.startsWith("[kernel") || object.includes("vmlinux");
  let name = symbol.replace(/\+0x[0-9a-f]+$/i, "");
  if (name === "[unknown]" || name === "") {
    const file = object.split("/").pop() || "?";
    name = `[unknown] (${file})`;
  }
  // ';' separates frames and a trailing number would read as a count
  name = name.replaceAll(";", ":");
  return kernel ? `${name}_[k]` : name;
}

/**
 * Collapses `perf script` text (with call chains) into folded stacks, one count per sample; with
 * `event`, only the samples of that event (`cpu-clock`) count and other lines are skipped.
 */
export function collapsePerfScript(
  text: string,
  withThreadName = false,
  event: string | null = null,
): Folded {
  const out: Folded = new Map();
  let comm: string | null = null;
  let frames: string[] = [];
  /** inside a sample of another event, or a switch record: its lines are skipped */
  let skip = false;
  // the event as perf script names it: `cpu-clock:`, or with the terms it was given (`cpu-clock/freq=999/:`)
  const name = event?.replace(/[^\w:-]/g, "");
  const wanted = name === undefined ? null : new RegExp(`:\\s+(?:\\d+\\s+)?${name}(?:/[^/\\s]*/)?:`);
  const flush = () => {
    if (comm !== null) {
      const root = frames.reverse();
      const stack = (withThreadName || root.length === 0 ? [comm, ...root] : root).join(";");
      out.set(stack, (out.get(stack) ?? 0) + 1);
    }
    comm = null;
    frames = [];
  };
  for (const line of text.split("\n")) {
    if (line.trim() === "") {
      flush();
      continue;
    }
    if (line.startsWith("#")) continue;
    const f = FRAME.exec(line);
    if (f && skip) continue;
    if (f && comm !== null) {
      frames.push(frameName(f[2]!, f[3]!));
    } else if (!/^\s/.test(line)) {
      flush();
      skip = wanted !== null && !wanted.test(line);
      if (skip) continue;
      // the thread's name is everything before the pid (it may contain spaces)
      const m = /^(.*?)\s+\d+(?:\/\d+)?\s/.exec(line);
      comm = (m ? m[1]! : line.split(/\s+/)[0]!).trim().replaceAll(";", ":") || "?";
    }
  }
  flush();
  return out;
}
