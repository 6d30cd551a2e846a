/**
 * A differential flame graph's data for the trend site's interactive renderer (pure): the folded
 * stacks of both sides as the graph drew them (already within GRAPH_CAPS, with the cap notes),
 * written beside the SVG as `<graph>.json`, and read back on the run page, where the file is
 * hostile: its size, the number of stacks, frames per stack and name lengths are checked against
 * the same caps before the tree is rebuilt with diffTree, so the page shows the tree the SVG shows.
 * docs/decisions/2026-11-27-interactive-flame-graphs.md.
 */
// zod/mini: the same checks as zod, tree-shaken, so the run page's lazy bundle stays small
import * as z from "zod/mini";
import { type DiffNode, diffTree, GRAPH_CAPS } from "./diff.js";

/** The data file's format tag. */
export const GRAPH_DATA_FORMAT = "perfgate-flame-graph/1";

/** The largest data file the run page reads (characters). */
export const GRAPH_DATA_MAX_CHARS = 64 * 1024 * 1024;

const weight = z.number().check(z.nonnegative());
// one stack: frames joined with ';' (a folded stack's frames never hold ';'), within the caps
const stack = z.string().check(z.minLength(1), z.maxLength(GRAPH_CAPS.frames * (GRAPH_CAPS.nameChars + 1)));
// the stacks cap plus the one frame the lighter rest was summed into
const side = z.array(z.tuple([stack, weight])).check(z.maxLength(GRAPH_CAPS.stacks + 1));
const text = (max: number) => z.string().check(z.maxLength(max));

export const GraphDataSchema = z.strictObject({
  format: z.literal(GRAPH_DATA_FORMAT),
  title: text(1_000),
  subtitle: text(2_000),
  unit: text(100),
  notes: z.array(text(1_000)).check(z.maxLength(10)),
  base: side,
  head: side,
});
export type GraphData = z.infer<typeof GraphDataSchema>;

type Stacks = { base: [string, number][]; head: [string, number][] };

/** The largest data file perfgate writes (characters): narrower frames are summed until it fits. */
export const GRAPH_DATA_BUDGET = 16 * 1024 * 1024;

/** The widths below which frames are summed, tried in turn, with how the note states them. */
const SHARES: [number, string][] = [
  [1e-5, "0.001%"],
  [1e-4, "0.01%"],
  [1e-3, "0.1%"],
  [1e-2, "1%"],
  [1e-1, "10%"],
];

const own = (x: number, of: number) => x > of * 1e-9;

/**
 * Each stack's own weight per side, from the tree, depth first with the path kept as a list and
 * joined only where a frame has weight of its own (no recursion: stacks can be deep). A frame
 * narrower than `min` on both sides is not descended: it and its callees are summed into one
 * "[n narrower frames]" frame under their caller, so every kept frame keeps its own and its
 * inclusive weight exactly.
 */
function stacksOf(root: DiffNode, min: number, budget: number): (Stacks & { summed: number }) | null {
  const out: Stacks = { base: [], head: [] };
  const path: string[] = [];
  let summed = 0;
  // the file's size so far, within a few characters per stack: past the budget, stop early
  let chars = 0;
  const todo: [DiffNode, number][] = [[root, -1]];
  while (todo.length > 0) {
    const [n, depth] = todo.pop()!;
    if (depth >= 0) {
      path.length = depth;
      path.push(n.name);
    }
    let b = n.base;
    let h = n.head;
    const narrow = { n: 0, base: 0, head: 0 };
    for (const c of n.children) {
      b -= c.base;
      h -= c.head;
      if (Math.max(c.base, c.head) >= min) todo.push([c, depth + 1]);
      else {
        narrow.n++;
        narrow.base += c.base;
        narrow.head += c.head;
      }
    }
    const at = depth >= 0 ? path.join(";") : "";
    chars += at.length + 60;
    if (chars > budget) return null;
    if (depth >= 0 && own(b, n.base)) out.base.push([at, b]);
    if (depth >= 0 && own(h, n.head)) out.head.push([at, h]);
    if (narrow.n > 0) {
      summed += narrow.n;
      const name = `${at}${at ? ";" : ""}[${narrow.n.toLocaleString("en-US")} narrower frames]`;
      if (narrow.base > 0) out.base.push([name, narrow.base]);
      if (narrow.head > 0) out.head.push([name, narrow.head]);
    }
  }
  return { ...out, summed };
}

/**
 * The data file of a graph drawn from `tree`, with the texts the SVG states. Frames narrower than a
 * hundred-thousandth of the total are summed under their caller, and wider ones (by tens, up to a
 * tenth) while the file would exceed GRAPH_DATA_BUDGET; stated in its notes.
 */
export function graphDataJson(tree: DiffNode, o: { title: string; subtitle: string; unit: string }): string {
  const total = Math.max(tree.base, tree.head);
  let json = "";
  for (const [i, [share, percent]] of SHARES.entries()) {
    // the last width is kept whatever the size (the run page refuses what is over its own cap)
    const kept = stacksOf(tree, total * share, i === SHARES.length - 1 ? Infinity : GRAPH_DATA_BUDGET);
    if (kept === null) continue;
    const { summed, ...stacks } = kept;
    const notes = [...(tree.notes ?? [])];
    if (summed > 0)
      notes.push(
        `${summed.toLocaleString("en-US")} frames narrower than ${percent} of the total summed, with their callees, into one "[n narrower frames]" frame under their caller (the data file beside the SVG keeps to ${GRAPH_DATA_BUDGET / 1024 / 1024} MiB)`,
      );
    const data: GraphData = { format: GRAPH_DATA_FORMAT, ...o, notes, ...stacks };
    json = `${JSON.stringify(data)}\n`;
    if (json.length <= GRAPH_DATA_BUDGET) break;
  }
  return json;
}

/**
 * A data file read back: checked (size, schema, caps) and rebuilt into the tree. Throws one
 * sentence naming what is wrong.
 */
export function readGraphData(text: string, where: string): { data: GraphData; tree: DiffNode } {
  if (text.length > GRAPH_DATA_MAX_CHARS)
    throw new Error(`${where}: ${text.length} characters, over the ${GRAPH_DATA_MAX_CHARS} accepted`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${where}: not JSON`);
  }
  const parsed = GraphDataSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${where}: ${issue.path.join(".") || "(top)"}: ${issue.message}`);
  }
  const data = parsed.data;
  // diffTree applies the caps again (frames per stack, name lengths); the summed rest is one stack
  const caps = { ...GRAPH_CAPS, stacks: GRAPH_CAPS.stacks + 1 };
  const tree = diffTree(new Map(data.base), new Map(data.head), caps);
  if (data.notes.length > 0) tree.notes = [...data.notes, ...(tree.notes ?? [])];
  return { data, tree };
}
