/**
 * src/measuring/profiles/data.ts: the graph's data beside its SVG, read back on the trend site's run page
 * as a hostile file: it rebuilds the tree the SVG was drawn from (caps and notes included), and a
 * file of the wrong shape, size or caps is refused with one line naming the file and field.
 */
import { describe, expect, it } from "vitest";
import { instructionFlameGraph } from "../src/measuring/profiles/callgrind-flame.js";
import { GRAPH_DATA_MAX_CHARS, graphDataJson, readGraphData } from "../src/measuring/profiles/data.js";
import { graphDataName } from "../src/measuring/profiles/data-name.js";
import { type DiffNode, diffTree, GRAPH_CAPS } from "../src/measuring/profiles/diff.js";

const texts = { title: "t", subtitle: "s", unit: "instructions/txn" };

/** Every node as path, base, head (rounded: self weights are re-summed). */
function shape(t: DiffNode): string[] {
  const out: string[] = [];
  const todo: [DiffNode, string][] = [[t, t.name]];
  while (todo.length > 0) {
    const [n, p] = todo.pop()!;
    out.push(`${p} ${n.base.toFixed(6)} ${n.head.toFixed(6)}`);
    for (const c of n.children) todo.push([c, `${p};${c.name}`]);
  }
  return out.sort();
}

describe("the graph's data file", () => {
  it("is named <graph>.json beside <graph>.svg", () => {
    expect(graphDataName("head.instructions-oltp_point_select-1t-128M.svg")).toBe(
      "head.instructions-oltp_point_select-1t-128M.json",
    );
    expect(graphDataName("ab.oltp-1t-128M.flame.svg")).toBe("ab.oltp-1t-128M.flame.json");
  });

  it("rebuilds the tree the SVG was drawn from, inner frames' own weight included", () => {
    const base = new Map([
      ["a;b;c", 10],
      ["a;b", 3.5],
      ["a;d", 2],
      ["x", 1],
    ]);
    const head = new Map([
      ["a;b;c", 14],
      ["a;b", 3.5],
      ["a;e", 0.25],
    ]);
    const tree = diffTree(base, head);
    const back = readGraphData(graphDataJson(tree, texts), "g.json");
    expect(shape(back.tree)).toEqual(shape(tree));
    expect(back.data).toMatchObject({ ...texts, notes: [] });
  });

  it("keeps what the caps did: the summed rest, the cut frames and names, and their notes", () => {
    const caps = { stacks: 3, frames: 4, nameChars: 10 };
    const base = new Map(Array.from({ length: 8 }, (_, i) => [`r;f${i};g;h;i;j`, i + 1] as [string, number]));
    const head = new Map([...base].map(([k, v]) => [`${k}`.replace("r;f0", `r;${"n".repeat(30)}`), v * 2]));
    const tree = diffTree(base, head, caps);
    expect(tree.notes?.length).toBe(3);
    const back = readGraphData(graphDataJson(tree, texts), "g.json");
    expect(shape(back.tree)).toEqual(shape(tree));
    expect(back.tree.notes).toEqual(tree.notes);
  });

  it("sums frames narrower than a hundred-thousandth under their caller, the kept ones exact, and says so", () => {
    const base = new Map([
      ["a;b", 1_000_000],
      ["a;tiny1;deeper", 1],
      ["a;tiny2", 2],
    ]);
    const head = new Map([
      ["a;b", 1_200_000],
      ["a;tiny1;deeper", 3],
    ]);
    const tree = diffTree(base, head);
    const back = readGraphData(graphDataJson(tree, texts), "g.json").tree;
    const a = back.children[0]!;
    expect(a.children.map((c) => [c.name, c.base, c.head])).toEqual([
      ["[2 narrower frames]", 3, 3],
      ["b", 1_000_000, 1_200_000],
    ]);
    expect([a.base, a.head]).toEqual([tree.base, tree.head]);
    expect(back.notes).toEqual([
      '2 frames narrower than 0.001% of the total summed, with their callees, into one "[n narrower frames]" frame under their caller (the data file beside the SVG keeps to 16 MiB)',
    ]);
  });

  it("is written with each instruction graph", () => {
    const rep = (stacks: Record<string, number>) => ({
      started_at: "",
      transactions: 1,
      instructions: 1,
      per_transaction: 1,
      functions: [],
      stacks,
    });
    const g = instructionFlameGraph(
      {
        script: "s",
        tier: "t",
        threads: 1,
        toggle: "x",
        base: [rep({ "a;b": 1 })],
        head: [rep({ "a;b": 2, a: 1 })],
      },
      "x",
    )!;
    const { data, tree } = readGraphData(g.data, g.name);
    expect(data.title).toContain("Instructions per transaction");
    expect(tree.head).toBe(3);
    expect(tree.name).toBe("all");
    expect(tree.children.map((n) => [n.name, n.children.map((c) => c.name)])).toEqual([["a", ["b"]]]);
  });

  it("refuses what is not its shape, with one line naming the file and field", () => {
    const good = JSON.parse(graphDataJson(diffTree(new Map([["a", 1]]), new Map([["a", 2]])), texts));
    const bad = (edit: (d: Record<string, unknown>) => unknown) => () =>
      readGraphData(JSON.stringify(edit(structuredClone(good))), "g.json");
    expect(() => readGraphData("{", "g.json")).toThrow("g.json: not JSON");
    expect(() => readGraphData(" ".repeat(GRAPH_DATA_MAX_CHARS + 1), "g.json")).toThrow(
      /g\.json: \d+ characters, over/,
    );
    expect(bad((d) => ({ ...d, format: "speedscope" }))).toThrow(/^g\.json: format: /);
    expect(bad((d) => ({ ...d, head: [["a", -1]] }))).toThrow(/^g\.json: head\.0\.1: /);
    // a number JSON reads as Infinity
    const infinite = JSON.stringify({ ...good, head: [["h", 1]] }).replace('["h",1]', '["h",1e999]');
    expect(() => readGraphData(infinite, "g.json")).toThrow(/^g\.json: head\.0\.1: /);
    expect(bad((d) => ({ ...d, head: [["", 1]] }))).toThrow(/^g\.json: head\.0\.0: /);
    expect(bad((d) => ({ ...d, extra: 1 }))).toThrow(/^g\.json: /);
    const long = "x;".repeat(GRAPH_CAPS.frames * 201);
    expect(bad((d) => ({ ...d, base: [[long, 1]] }))).toThrow(/^g\.json: base\.0\.0: /);
  });

  it("refuses more stacks than the cap", () => {
    const many = Array.from({ length: GRAPH_CAPS.stacks + 2 }, (_, i) => [`s${i}`, 1]);
    const d = { format: "perfgate-flame-graph/1", ...texts, notes: [], base: many, head: [] };
    expect(() => readGraphData(JSON.stringify(d), "g.json")).toThrow(/^g\.json: base: /);
  });
});
