/**
 * The interactive differential flame graph (assets/flame.js, loaded by run-flame.ts only when a
 * run page's graph box is opened): d3-flame-graph draws the tree that the SVG beside the results
 * draws, rebuilt from the graph's data file after it is checked (src/measuring/profiles/data.ts: size,
 * schema, caps). Width: the head's weight; colour: the change of a frame's own weight, red grew,
 * blue shrank, with the SVG's palette (diffColor). A search box (plain text, case-insensitive,
 * never a regular expression), click to zoom, reset. d3-flame-graph writes names with
 * textContent (labels, the <title> tooltip, the details line); no HTML tooltip is configured.
 */
import flamegraph from "d3-flame-graph";
import { select } from "d3-selection";
import { GRAPH_DATA_MAX_CHARS, readGraphData } from "../../../measuring/profiles/data.js";
import { type DiffNode, selfDelta } from "../../../measuring/profiles/diff.js";
import { diffColor } from "../../../measuring/profiles/svg.js";
import { el, fmt } from "./dom.js";
import type { FlameRenderer } from "./run-flame.js";

interface Frame {
  name: string;
  /** inclusive weight per side; d3-flame-graph sizes frames by `value` (the head) */
  value: number;
  base: number;
  /** the change of the frame's own weight, head − base */
  delta: number;
  children: Frame[];
}

/** The tree in d3-flame-graph's shape, and the largest change of a frame's own weight (no recursion). */
function framesOf(root: DiffNode): { top: Frame; max: number } {
  const frame = (n: DiffNode): Frame => ({
    name: n.name,
    value: n.head,
    base: n.base,
    delta: selfDelta(n),
    children: [],
  });
  const top = frame(root);
  let max = Math.abs(top.delta);
  const todo: [DiffNode, Frame][] = [[root, top]];
  while (todo.length > 0) {
    const [n, f] = todo.pop()!;
    for (const c of n.children) {
      const g = frame(c);
      if (Math.abs(g.delta) > max) max = Math.abs(g.delta);
      f.children.push(g);
      todo.push([c, g]);
    }
  }
  return { top, max };
}

/** The data file's text, refused past the size cap before it is read whole where the server says its size. */
async function fetchData(url: string): Promise<string> {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  const size = Number(r.headers.get("content-length") ?? "0");
  if (size > GRAPH_DATA_MAX_CHARS)
    throw new Error(`${url}: ${size} bytes, over the ${GRAPH_DATA_MAX_CHARS} accepted`);
  return r.text();
}

const signed = (x: number) => `${x > 0 ? "+" : x < 0 ? "−" : "±"}${fmt(Math.abs(x), 4)}`;

async function render(host: HTMLElement, dataUrl: string): Promise<void> {
  const { data, tree } = readGraphData(await fetchData(dataUrl), dataUrl.replace(/^.*\//, ""));
  const { top, max } = framesOf(tree);
  const details = el("p", { class: "readout flame-details" });
  const search = el("input", { type: "search", class: "flame-search", placeholder: "function name" });
  const reset = el("button", { type: "button", class: "flame-reset" }, "Reset zoom");
  const form = el(
    "form",
    { class: "flame-tools" },
    search,
    el("button", { type: "submit" }, "Search"),
    reset,
  );
  const chartBox = el("div", { class: "flame-chart" });
  const chart = flamegraph<Frame>()
    .width(Math.max(320, host.clientWidth || 960))
    .cellHeight(18)
    .minFrameSize(1)
    .transitionDuration(250)
    .setColorMapper((d, original) => (d.highlight ? original : diffColor(d.data.delta, max)))
    .setLabelHandler(
      (d) =>
        `${d.data.name}: ${fmt(d.data.value, 4)} ${data.unit} on the head, ${fmt(d.data.base, 4)} on the base; own ${signed(d.data.delta)}`,
    )
    .setSearchMatch((d, term) => term !== "" && d.data.name.toLowerCase().includes(term.toLowerCase()))
    .setSearchHandler((results, sum, total) => {
      details.textContent = `search: ${results.length} frames, ${fmt(sum, 4)} of ${fmt(total, 4)} ${data.unit} on the head (${total > 0 ? ((100 * sum) / total).toFixed(1) : "0"}%)`;
    })
    .setDetailsElement(details);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (search.value.trim() === "") chart.clear();
    else chart.search(search.value.trim());
  });
  reset.addEventListener("click", () => chart.resetZoom());
  host.replaceChildren(
    el("p", { class: "card-sub" }, `${data.title}: ${data.subtitle}`),
    ...data.notes.map((n) => el("p", { class: "readout flame-note" }, `Capped: ${n}.`)),
    ...(tree.notes ?? [])
      .slice(data.notes.length)
      .map((n) => el("p", { class: "readout flame-note" }, `Capped: ${n}.`)),
    form,
    details,
    chartBox,
  );
  select(chartBox).datum(top).call(chart);
}

const renderer: FlameRenderer = { render };
window.perfgateFlame = renderer;
