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

export { graphDataName } from "./data-name.js";

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

/** Each stack's own weight per side, from the tree (no recursion: stacks can be deep). */
function stacksOf(root: DiffNode): { base: [string, number][]; head: [string, number][] } {
  const base: [string, number][] = [];
  const head: [string, number][] = [];
  const todo: [DiffNode, string][] = root.children.map((c) => [c, c.name]);
  while (todo.length > 0) {
    const [n, path] = todo.pop()!;
    let b = n.base;
    let h = n.head;
    for (const c of n.children) {
      b -= c.base;
      h -= c.head;
      todo.push([c, `${path};${c.name}`]);
    }
    // sums of floating-point weights: a self of a billionth of the frame's weight is rounding
    if (b > n.base * 1e-9) base.push([path, b]);
    if (h > n.head * 1e-9) head.push([path, h]);
  }
  return { base, head };
}

/** The data file of a graph drawn from `tree`, with the texts the SVG states. */
export function graphDataJson(tree: DiffNode, o: { title: string; subtitle: string; unit: string }): string {
  const data: GraphData = { format: GRAPH_DATA_FORMAT, ...o, notes: tree.notes ?? [], ...stacksOf(tree) };
  return `${JSON.stringify(data)}\n`;
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
