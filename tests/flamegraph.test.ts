/**
 * src/flamegraph: folded stacks, `perf script` collapsed, the differential tree with difffolded's
 * semantics (widths from the head, colour by head − base), the functions that changed, and the SVG.
 */
import { describe, expect, it } from "vitest";
import { instructionFlameGraph } from "../src/measuring/profiles/callgrind-flame.js";
import { collapsePerfScript } from "../src/measuring/profiles/collapse-perf.js";
import {
  diffTree,
  functionChanges,
  GRAPH_CAPS,
  OTHER_STACKS,
  selfDelta,
} from "../src/measuring/profiles/diff.js";
import { type Folded, scale, total } from "../src/measuring/profiles/folded.js";
import { diffColor, renderDiffSvg } from "../src/measuring/profiles/svg.js";

const PERF_SCRIPT = `mysqld  1234/1250 [001] 100.000001:   10101010 cpu-clock:pppH:
\t    55d0a1b2c3d4 rec_get_offsets_func+0x44 (/opt/mariadb/bin/mariadbd)
\t    55d0a1b2c000 row_search_mvcc+0x1f0 (/opt/mariadb/bin/mariadbd)
\t    55d0a1b2b000 handle_one_connection+0x10 (/opt/mariadb/bin/mariadbd)
\t    7f0000000000 start_thread+0x97 (/usr/lib/x86_64-linux-gnu/libc.so.6)

my sql thr  1234/1251 [000] 100.010001:   10101010 cpu-clock:pppH:
\t    ffffffff81000000 do_syscall_64+0x5c ([kernel.kallsyms])
\t    7f0000001000 [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)
\t    55d0a1b2b000 handle_one_connection+0x10 (/opt/mariadb/bin/mariadbd)
\t    7f0000000000 start_thread+0x97 (/usr/lib/x86_64-linux-gnu/libc.so.6)

mysqld  1234/1250 [001] 100.020001:   10101010 cpu-clock:pppH:
\t    55d0a1b2c3d4 rec_get_offsets_func+0x48 (/opt/mariadb/bin/mariadbd)
\t    55d0a1b2c000 row_search_mvcc+0x1f4 (/opt/mariadb/bin/mariadbd)
\t    55d0a1b2b000 handle_one_connection+0x10 (/opt/mariadb/bin/mariadbd)
\t    7f0000000000 start_thread+0x97 (/usr/lib/x86_64-linux-gnu/libc.so.6)
`;

/** Folded stacks written one `stack count` per line. */
function parseFolded(text: string): Folded {
  const out: Folded = new Map();
  for (const line of text.split("\n").filter((l) => l.trim() !== "")) {
    const cut = line.lastIndexOf(" ");
    out.set(line.slice(0, cut), (out.get(line.slice(0, cut)) ?? 0) + Number(line.slice(cut + 1)));
  }
  return out;
}

describe("folded stacks", () => {
  it("sum and scale", () => {
    const f = parseFolded("a;b 5\na;c 1\n");
    expect(total(f)).toBe(6);
    expect(total(scale(f, 0.5))).toBe(3);
  });
  it("perf script collapses root first, offsets dropped, kernel frames and unknowns marked", () => {
    const f = collapsePerfScript(PERF_SCRIPT);
    expect([...f]).toEqual([
      ["start_thread;handle_one_connection;row_search_mvcc;rec_get_offsets_func", 2],
      ["start_thread;handle_one_connection;[unknown] (libc.so.6);do_syscall_64_[k]", 1],
    ]);
    const t = collapsePerfScript(PERF_SCRIPT, true);
    expect([...t.keys()][1]).toBe(
      "my sql thr;start_thread;handle_one_connection;[unknown] (libc.so.6);do_syscall_64_[k]",
    );
  });
});

describe("differential", () => {
  const base = parseFolded("main;parse 50\nmain;exec;scan 40\nmain;exec;sort 10\n");
  const head = parseFolded("main;parse 50\nmain;exec;scan 40\nmain;exec;sort 10\nmain;exec;pfs_start 20\n");
  it("the tree holds both sides per frame", () => {
    const t = diffTree(base, head);
    expect([t.base, t.head]).toEqual([100, 120]);
    const exec = t.children[0]!.children.find((c) => c.name === "exec")!;
    expect([exec.base, exec.head]).toEqual([50, 70]);
    expect(exec.children.find((c) => c.name === "pfs_start")).toMatchObject({ base: 0, head: 20 });
  });
  it("functions sorted by the growth of their share; inclusive counted once per stack", () => {
    const c = functionChanges(base, head);
    expect(c[0]).toMatchObject({ name: "pfs_start", base: 0, head: 20, delta: 20, head_self: 20 });
    expect(c[1]!.name).toBe("exec");
    expect(functionChanges(parseFolded("a;a;b 2\n"), parseFolded("a;a;b 2\n"))[0]).toMatchObject({
      name: "a",
      base: 2,
    });
    expect(c.at(-1)!.name).toBe("parse"); // same samples, smaller share of a larger total
  });
  it("the SVG: red grew, blue shrank, grey unchanged; names escaped; no script", () => {
    expect(diffColor(10, 10)).toBe("rgb(255,0,0)");
    expect(diffColor(-5, 10)).toBe("rgb(105,105,255)");
    expect(diffColor(0, 10)).toBe("rgb(220,220,220)");
    const svg = renderDiffSvg(diffTree(base, parseFolded("main;exec;<b>&'\" 5\nmain;parse 30\n")), {
      title: "t <x>",
      unit: "samples/txn",
    });
    expect(svg).toContain("&lt;b&gt;&amp;&#39;&quot;");
    expect(svg).toContain("t &lt;x&gt;");
    expect(svg).not.toMatch(/<script|<b>/);
    expect(svg).toContain('fill="rgb(');
    expect((svg.match(/<g>/g) ?? []).length).toBe((svg.match(/<\/g>/g) ?? []).length);
    expect(svg).toMatch(/parse: base 50 → head 30 samples\/txn \(-40\.0%\)/);
  });
  it("colours a frame by the change of its own (self) weight: callers of the growth stay grey", () => {
    const svg = renderDiffSvg(diffTree(base, head), { title: "t", unit: "u" });
    const fill = (name: string) =>
      new RegExp(`<title>${name}: [^<]*</title><rect [^>]*fill="([^"]+)"`).exec(svg)?.[1];
    expect(fill("pfs_start")).toBe("rgb(255,0,0)"); // new own work: the largest change
    expect(fill("exec")).toBe("rgb(220,220,220)"); // inclusive 50 → 70, own 0 → 0
    expect(fill("main")).toBe("rgb(220,220,220)");
    expect(svg).toMatch(/exec: base 50 → head 70 u \(\+40\.0%\)/);
    expect(svg).toMatch(/pfs_start: [^<]*own \(self\) \+20/);
    // sums of per-transaction weights differ by rounding only: no change, grey, no "own" in the tooltip
    const leaf = { name: "b", base: 42135, head: 44797 - 50.0000000000147, children: [] };
    const rounding = { name: "a", base: 42185, head: 44797, children: [leaf] };
    expect(selfDelta(rounding)).toBe(0);
    const all = { name: "all", base: 42185, head: 44797, children: [rounding] };
    expect(renderDiffSvg(all, { title: "t" })).not.toMatch(/a: [^<]*own \(self\)/);
  });
});

/** One counted cell whose sides' last repetitions hold these stacks. */
const cellOf = (base: Record<string, number>, head: Record<string, number>) => {
  const rep = (stacks: Record<string, number>) => ({
    started_at: "",
    transactions: 1,
    instructions: 1,
    per_transaction: 1,
    functions: [],
    stacks,
  });
  return { script: "s", tier: "t", threads: 1, toggle: "x", base: [rep(base)], head: [rep(head)] };
};

describe("graphs of hostile sizes (bench/flamegraph-scale.mjs times the large ones)", () => {
  it("a 20,000-frame stack renders (no recursion) and the frames cap is stated", () => {
    const deep = Array.from({ length: 20_000 }, (_, i) => `f${i}`).join(";");
    const g = instructionFlameGraph(cellOf({ [deep]: 5, "a;b": 1 }, { [deep]: 7, "a;b": 1 }), "x")!;
    expect(g.svg).toContain(
      `Capped: 2 stacks (both sides counted) deeper than ${GRAPH_CAPS.frames.toLocaleString("en-US")} frames`,
    );
    expect(g.svg).toContain("[19,001 deeper frames]");
    // the tree itself is walked without recursion too, whatever the cap
    const t = diffTree(new Map([[deep, 1]]), new Map([[deep, 2]]), { ...GRAPH_CAPS, frames: 50_000 });
    expect(renderDiffSvg(t, { title: "deep" })).toContain("f19999");
  });
  it("many distinct stacks render; over the stacks cap the lightest are summed and it is stated", () => {
    const many = new Map(Array.from({ length: 3_000 }, (_, i) => [`root;m${i % 40};n${i}`, 1 + (i % 7)]));
    const t = diffTree(many, many, { ...GRAPH_CAPS, stacks: 1_000 });
    expect(t.notes).toEqual([
      `the lightest stacks summed into ${OTHER_STACKS}, 2,000 of the base and 2,000 of the head (at most 1,000 stacks per side)`,
    ]);
    expect(t.base).toBe(total(many)); // nothing lost
    expect(t.children.find((c) => c.name === OTHER_STACKS)).toBeDefined();
    expect(renderDiffSvg(t, { title: "many" })).toContain("Capped: the lightest stacks summed into");
    const full = diffTree(many, many);
    expect(full.notes).toBeUndefined();
    expect(full.children).toHaveLength(1); // shared prefixes share nodes
    expect(full.children[0]!.children).toHaveLength(40);
  });
  it("long names are cut and the cap is stated; a NUL in a name cannot merge frames", () => {
    const long = "x".repeat(GRAPH_CAPS.nameChars + 50);
    const t = diffTree(new Map([[`a;${long}`, 1]]), new Map([["a\u0000;b", 1]]));
    expect(t.notes).toEqual([`1 frame names longer than ${GRAPH_CAPS.nameChars} characters cut`]);
    expect(t.children.map((c) => c.name)).toEqual(["a"]);
    expect(t.children[0]!.children.map((c) => [c.name.length, c.base, c.head])).toEqual([
      [1, 0, 1],
      [GRAPH_CAPS.nameChars, 1, 0],
    ]);
  });
});
