/**
 * The run page's sections on why an A/B's throughput changed (the run's `why`, docs/why.md): the
 * settings that differ (known ones first with their reason, the rest folded), the functions whose
 * share of the CPU samples grew, the functions whose instructions per transaction changed, and
 * links to both differential flame graphs kept beside the results file; for a run's results, the
 * instruction flame graph a compare of it wrote beside it. Every name and value
 * comes from the store and is shown as text; a graph is linked only through besideResultsUrl.
 */
import type { SettingDifference } from "../../../analysis/compare/schema.js";
import { plural } from "../../../util/plural.js";
import type { HistoryRun, WhyCell } from "../../history/schema.js";
import { besideResultsUrl } from "../links.js";
import { el, fmt, pct } from "./dom.js";
import { interactiveGraph } from "./run-flame.js";
import type { RunSection } from "./run-sections.js";

function table(head: string[], rows: (Node | string)[][], cls: string): HTMLTableElement {
  const t = el("table", { class: `cells ${cls}` }, el("tr", {}, ...head.map((h) => el("th", {}, h))));
  for (const r of rows) t.append(el("tr", {}, ...r.map((v) => el("td", {}, v))));
  return t;
}

const side = (v: string | null) => v ?? "(not on this server)";

function settingRows(list: readonly SettingDifference[], withWhy: boolean): (Node | string)[][] {
  return list.map((s) => [
    el("code", {}, s.name),
    side(s.base),
    side(s.head),
    s.configured ? "set by the run" : "server default",
    ...(withWhy ? [s.why ?? ""] : []),
  ]);
}

const settings: RunSection = {
  id: "settings",
  title: "Settings that differ",
  render: (run) => {
    const d = run.why?.settings;
    if (!d) return null;
    const count = d.known.length + d.other.length;
    const nodes: (Node | string)[] = [
      el(
        "p",
        { class: "card-sub" },
        `SHOW GLOBAL VARIABLES read back at start (tier ${d.tier}): ${d.variables.base} on the base, ${d.variables.head} on the head; ${plural(count, "variable")} differ, ${d.left_out} more left out (set equally by the workload, or naming a path, port, id or version).`,
      ),
    ];
    if (count === 0) nodes.push(el("p", { class: "ok" }, "No setting differs between base and head."));
    if (d.known.length > 0)
      nodes.push(
        table(
          ["known performance setting", "base", "head", "origin", "why it matters"],
          settingRows(d.known, true),
          "settings-known",
        ),
      );
    if (d.other.length > 0)
      nodes.push(
        el(
          "details",
          { class: "settings-other" },
          el("summary", {}, `${plural(d.other.length, "other differing setting")}`),
          table(["setting", "base", "head", "origin"], settingRows(d.other, false), "settings-other"),
        ),
      );
    return { nodes };
  },
};

const cellName = (c: WhyCell) =>
  `${c.script} · ${c.tier} · ${plural(c.threads, "thread")}${c.workload ? ` (${c.workload})` : ""}`;

/** The graph's link beside the results file with its search-and-zoom box (run-flame.ts), or its name as text saying why it is not linked. */
function graphLink(run: HistoryRun, name: string | null, what: string): HTMLElement {
  if (name === null) return el("p", { class: "readout" }, `${what}: not kept beside the results file.`);
  const href = besideResultsUrl(run.raw?.url, name);
  if (href === null)
    return el(
      "p",
      { class: "readout graph-unlinked" },
      `${what}: `,
      el("code", {}, name),
      " beside the results file (not linked: no results URL, history append --results-url <url>).",
    );
  return el(
    "div",
    { class: "graph" },
    el("p", { class: "readout" }, `${what}: `, el("a", { href, class: "graph-link" }, name)),
    interactiveGraph(href),
  );
}

const share = (x: number) => `${(x * 100).toFixed(1)}%`;
const per = (x: number) => (x >= 1 ? x.toFixed(2) : x.toPrecision(2));
const points = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)}`;

function profileCell(run: HistoryRun, c: WhyCell): (Node | string)[] {
  const p = c.profile!;
  const why = p.reason === "requested" ? "on request" : `because TPS is a ${p.reason}`;
  const spt = (s: number, t: number) => (t > 0 ? per(s / t) : "–");
  const out: (Node | string)[] = [
    el("h3", {}, cellName(c)),
    el(
      "p",
      { class: "card-sub" },
      `Profiled ${why}: ${fmt(p.samples.base)} / ${fmt(p.samples.head)} samples (${spt(p.samples.base, p.transactions.base)} / ${spt(p.samples.head, p.transactions.head)} per transaction), base / head; `,
      el("code", {}, p.command),
    ),
    graphLink(
      run,
      p.graph,
      "Differential flame graph (CPU samples; width: head; red: a frame's own samples grew, blue: shrank)",
    ),
  ];
  if (p.off_cpu) out.push(...offCpuNodes(p.off_cpu));
  const self = p.grown.map((f) => {
    const sh = selfShares(p, f);
    return [
      el("code", {}, f.name),
      `${per(f.base_self)} → ${per(f.head_self)}`,
      `${share(sh.base)} → ${share(sh.head)}`,
      points(sh.head - sh.base),
    ];
  });
  const inclusive = (p.grown_inclusive ?? []).map((f) => [
    el("code", {}, f.name),
    `${per(f.base)} → ${per(f.head)}`,
    `${share(f.base_share)} → ${share(f.head_share)}`,
    points(f.head_share - f.base_share),
  ]);
  if (self.length === 0 && inclusive.length === 0) {
    out.push(el("p", {}, "No function's share of the samples grew by 0.1 point or more."));
    return out;
  }
  if (self.length > 0)
    out.push(
      table(
        [
          "function (self share grew most)",
          "self samples/txn base → head",
          "self share base → head",
          "Δ self share (points)",
        ],
        self,
        "profile-grown",
      ),
    );
  if (inclusive.length > 0)
    out.push(
      table(
        [
          "function (inclusive share grew most)",
          "samples/txn on the stack base → head",
          "inclusive share base → head",
          "Δ inclusive share (points)",
        ],
        inclusive,
        "profile-grown-inclusive",
      ),
    );
  return out;
}

type ProfileWhy = NonNullable<WhyCell["profile"]>;

/** A function's self share per side: stored, or (older stores) from the side's samples per transaction. */
function selfShares(p: ProfileWhy, f: ProfileWhy["grown"][number]): { base: number; head: number } {
  const of = (self: number, samples: number, txns: number) =>
    samples > 0 && txns > 0 ? self / (samples / txns) : 0;
  return {
    base: f.base_self_share ?? of(f.base_self, p.samples.base, p.transactions.base),
    head: f.head_self_share ?? of(f.head_self, p.samples.head, p.transactions.head),
  };
}

type OffCpu = NonNullable<NonNullable<WhyCell["profile"]>["off_cpu"]>;

/** Off-CPU time per transaction and where the blocked time grew most. */
function offCpuNodes(o: OffCpu): (Node | string)[] {
  const us = (x: number) => fmt(x, 3);
  return [
    el(
      "p",
      { class: "off-cpu" },
      `Off-CPU per transaction (sched:sched_switch), base → head: blocked ${us(o.base.blocked_us)} → ${us(o.head.blocked_us)} µs; runnable, waiting for a CPU ${us(o.base.runnable_us)} → ${us(o.head.runnable_us)} µs.`,
    ),
    ...(o.grown.length > 0
      ? [
          table(
            ["where threads blocked (caller > callee)", "blocked µs/txn base → head"],
            o.grown.map((g) => [el("code", {}, g.name), `${us(g.base)} → ${us(g.head)}`]),
            "off-cpu-grown",
          ),
        ]
      : []),
  ];
}

const profiles: RunSection = {
  id: "profiles",
  title: "Where the CPU went (sampled profiles)",
  render: (run) => {
    const cells = run.why?.cells.filter((c) => c.profile) ?? [];
    if (cells.length === 0) return null;
    return { nodes: cells.flatMap((c) => profileCell(run, c)) };
  },
};

function instructionsCell(run: HistoryRun, c: WhyCell): (Node | string)[] {
  const i = c.instructions!;
  const graph = graphLink(
    run,
    i.graph,
    "Differential flame graph (instructions; width: head; red: a frame's own count grew, blue: shrank)",
  );
  const how = `Instructions per transaction (callgrind, collection inside ${i.toggle})`;
  // a run's results: its base was another file, compared by perfgate compare (which drew the graph)
  if (i.base === null)
    return [
      el("h3", {}, cellName(c)),
      el(
        "p",
        { class: "card-sub" },
        `${how}: ${fmt(i.head)} in this run. The graph is perfgate compare's of this run, as the head, against its base; the verdict and the functions that changed most are in that comparison's report.`,
      ),
      graph,
    ];
  const base = i.base;
  const change = base > 0 ? ` (${pct((i.head / base - 1) * 100)})` : "";
  const tables = [
    { rows: i.functions, title: "function (self changed most)", kind: "instructions-functions" },
    { rows: i.inclusive ?? [], title: "function (inclusive changed most)", kind: "instructions-inclusive" },
  ].filter((t) => t.rows.length > 0);
  const below = tables.some((t) => t.rows.some((f) => f.base === null || f.head === null));
  return [
    el("h3", {}, cellName(c)),
    el(
      "p",
      { class: "card-sub" },
      `${how}: ${fmt(base)} → ${fmt(i.head)}${change}, base → head. The verdict is perfgate compare's; these are the functions whose self, then inclusive, instructions per transaction changed most.`,
    ),
    graph,
    ...(tables.length === 0
      ? [el("p", {}, "No function's instructions per transaction changed.")]
      : tables.map((t) =>
          table(
            [t.title, "object", "base/txn", "head/txn", "Δ/txn", "share of the change"],
            t.rows.map(functionRow),
            t.kind,
          ),
        )),
    ...(below
      ? [
          el(
            "p",
            { class: "readout below-kept" },
            "≤ n: below that side's kept list of functions, not measured there; at most n, so the change is at least the one shown.",
          ),
        ]
      : []),
  ];
}

type FunctionRow = NonNullable<WhyCell["instructions"]>["functions"][number];

/** One function's row: a side below its kept list shows "≤ cut-off", never a value it did not measure. */
function functionRow(f: FunctionRow): (Node | string)[] {
  const side = (v: number | null, bound: number | undefined) =>
    v !== null ? fmt(v, 4) : `≤ ${fmt(bound ?? 0, 4)}`;
  const sign = (x: number) => (x >= 0 ? "+" : "−");
  let delta: string;
  if (f.delta !== null) delta = `${sign(f.delta)}${fmt(Math.abs(f.delta), 4)}`;
  else {
    const least = f.base === null ? f.head! - (f.base_below ?? 0) : (f.head_below ?? 0) - f.base!;
    delta = `${least >= 0 ? "≥ +" : "≤ −"}${fmt(Math.abs(least), 4)}`;
  }
  return [
    el("code", {}, f.name),
    f.object,
    side(f.base, f.base_below),
    side(f.head, f.head_below),
    delta,
    f.share === null ? "–" : share(f.share),
  ];
}

const instructions: RunSection = {
  id: "instructions",
  title: "Functions that changed (instruction counts)",
  render: (run) => {
    const cells = run.why?.cells.filter((c) => c.instructions) ?? [];
    if (cells.length === 0) return null;
    return { nodes: cells.flatMap((c) => instructionsCell(run, c)) };
  },
};

export const WHY_SECTIONS = { settings, profiles, instructions };
