/**
 * Version matrices: TPS per engine and thread count, % vs the family's baseline with its interval;
 * only decided differences are heat-coloured (src/output/pages/matrix.ts says what decided means).
 */
import type { MatrixDiff, RelativeTable, VersionMatrix } from "../matrix.js";
import { loadMatrices } from "./data.js";
import { day, el, fmt, nav, param, pct } from "./dom.js";
import { matrixSubText, pinnedCountText } from "./texts.js";

/** Red for slower, green for faster; stronger with the size of the difference (full at 30%). */
export function heat(p: number): string {
  const a = Math.min(1, Math.abs(p) / 30) * 0.75 + 0.08;
  return p < 0 ? `rgba(220,38,38,${a.toFixed(2)})` : `rgba(22,163,74,${a.toFixed(2)})`;
}

/** "−9.0% [−12.1%, −5.8%]", or the estimate and "no interval". */
function withInterval(d: MatrixDiff): string {
  return d.lo === null || d.hi === null
    ? `${pct(d.pct)} (no interval)`
    : `${pct(d.pct)} [${pct(d.lo)}, ${pct(d.hi)}]`;
}

/** A difference cell: coloured only when decided; the interval always shown. */
function diffCell(d: MatrixDiff): HTMLElement {
  const attrs: Record<string, string> = {
    "data-pct": String(d.pct),
    "data-decided": String(d.decided),
    title: d.decided
      ? "decided"
      : "not decided: the interval does not exclude 0, or the change is within the threshold",
  };
  if (d.decided) attrs.style = `background:${heat(d.pct)}`;
  return el("td", attrs, withInterval(d));
}

/** Whether the matrix holds cells of more than one workload: then every cell names its workload. */
function severalWorkloads(m: VersionMatrix): boolean {
  const names = new Set(m.tables.map((t) => t.workload));
  for (const t of m.relative ?? []) for (const r of t.rows) names.add(r.workload);
  return names.size > 1;
}

/** A cell's name in a row header: `oltp_read_only 256M 1t`, after its workload when there are several. */
function cellName(
  m: VersionMatrix,
  c: { workload: string; script: string; tier: string; threads: number },
): string {
  return `${severalWorkloads(m) ? `${c.workload} · ` : ""}${c.script} ${c.tier} ${c.threads}t`;
}

function matrixTables(m: VersionMatrix): HTMLElement[] {
  const several = severalWorkloads(m);
  return m.tables.map((t) => {
    const head = el("tr", {}, el("th", {}, "Engine"), ...t.threads.map((n) => el("th", {}, `${n}t`)));
    const body: HTMLElement[] = [];
    for (const r of t.rows) {
      body.push(el("tr", {}, el("th", {}, `${r.engine} (TPS)`), ...r.tps.map((v) => el("td", {}, fmt(v)))));
      if (r.pct && r.baseline) {
        body.push(
          el(
            "tr",
            { class: "vs" },
            el("th", {}, `vs ${r.baseline}`),
            ...r.pct.map((d) => (d === null ? el("td", {}, "–") : diffCell(d))),
          ),
        );
      }
    }
    return el(
      "section",
      {},
      el("h2", {}, `TPS by thread count — ${several ? `${t.workload}: ` : ""}${t.script}, tier ${t.tier}`),
      el("table", { class: "matrix" }, head, ...body),
    );
  });
}

/** "0.91 [0.88, 0.94]": the engine's value over its baseline's, with the interval when there is one. */
function ratioText(d: MatrixDiff): string {
  const r = (p: number) => (1 + p / 100).toFixed(2);
  return d.lo === null || d.hi === null ? r(d.pct) : `${r(d.pct)} [${r(d.lo)}, ${r(d.hi)}]`;
}

/** A ratio cell: coloured only when decided, red when worse (less QPS, more work per transaction). */
function ratioCell(d: MatrixDiff | null, lowerIsBetter: boolean): HTMLElement {
  if (d === null) return el("td", {}, "–");
  const attrs: Record<string, string> = {
    "data-pct": String(d.pct),
    "data-decided": String(d.decided),
    title: d.decided
      ? `decided: ${pct(d.pct)}`
      : d.lo === null
        ? `${pct(d.pct)}; one value per run, no interval: never coloured`
        : `${pct(d.pct)}; not decided: the interval does not exclude 0, or the change is within the threshold`,
  };
  if (d.decided) attrs.style = `background:${heat(lowerIsBetter ? -d.pct : d.pct)}`;
  return el("td", attrs, ratioText(d));
}

/** Mark Callaghan's layout: per metric, a row per cell and a column per engine, relative to its baseline. */
function relativeTables(m: VersionMatrix): HTMLElement[] {
  return (m.relative ?? []).map((t: RelativeTable) => {
    const head = el(
      "tr",
      {},
      el("th", {}, "Cell"),
      ...t.engines.map((e, i) => el("th", {}, `${e} / ${t.baselines[i] ?? ""}`)),
    );
    const rows = t.rows.map((r) =>
      el(
        "tr",
        {},
        el("th", {}, cellName(m, r)),
        ...r.values.map((d, i) => {
          const n = r.notes?.[i];
          // a side's count misleads: the note says why, in place of the ratio
          return n
            ? el("td", { "data-note": String(n), title: t.notes?.[n - 1] ?? "" }, `⚠ note ${n}`)
            : ratioCell(d, t.lower_is_better);
        }),
      ),
    );
    return el(
      "section",
      { "data-metric": t.metric },
      el("h2", {}, t.label),
      el("table", { class: "matrix relative" }, head, ...rows),
      ...(t.notes ?? []).map((text, i) =>
        el("p", { class: "note", "data-note": String(i + 1) }, `⚠ ${i + 1}. ${text} (docs/metrics.md)`),
      ),
    );
  });
}

function overList(m: VersionMatrix): HTMLElement {
  const title = el("h2", {}, `All differences greater than ${m.threshold_pct}% vs baseline`);
  if (m.over.length === 0) return el("section", {}, title, el("p", {}, "None."));
  const t = el(
    "table",
    { class: "over" },
    el(
      "tr",
      {},
      ...[
        "Engines compared",
        "Workload",
        "Script",
        "Tier",
        "Threads",
        "Difference vs baseline",
        "Decided",
      ].map((h) => el("th", {}, h)),
    ),
  );
  for (const o of m.over) {
    t.append(
      el(
        "tr",
        {},
        el("td", {}, `${o.engine} vs ${o.baseline}`),
        el("td", {}, o.workload),
        el("td", {}, o.script),
        el("td", {}, o.tier),
        el("td", {}, String(o.threads)),
        diffCell(o),
        el("td", {}, o.decided ? "yes" : "no"),
      ),
    );
  }
  return el("section", {}, title, t);
}

/** One line per engine measured with pinned defaults (its name says whose): how many, and which. */
function pinLines(m: VersionMatrix): HTMLElement[] {
  return (m.pins ?? []).map((p) =>
    el(
      "p",
      { class: "card-sub pins-line" },
      `${p.engine}: ${pinnedCountText(p.pinned.length, p.not_pinned)}${p.pinned.length > 0 ? ` (pinned: ${p.pinned.map((x) => `${x.name}=${x.value}`).join(", ")})` : ""}.`,
    ),
  );
}

export async function matrixPage(main: HTMLElement): Promise<void> {
  const { matrices } = await loadMatrices();
  main.replaceChildren(el("h1", {}, "Version matrix"), nav("matrix.html"));
  if (matrices.length === 0) {
    main.append(el("p", {}, "No version matrix in the store (append runs with --matrix <name>)."));
    return;
  }
  const name = param("name");
  const m = matrices.find((x) => x.name === name) ?? matrices[0]!;
  const pick = el("select", { "aria-label": "matrix" });
  for (const x of matrices) pick.append(el("option", { value: x.name }, `${x.name} (${day(x.date)})`));
  pick.value = m.name;
  pick.addEventListener("change", () => {
    location.search = `?name=${encodeURIComponent(pick.value)}`;
  });
  const bases = Object.values(m.baselines).join(", ");
  main.append(
    pick,
    el("p", { class: "card-sub" }, matrixSubText(m.workload, m.runner_class, m.engines.length, bases)),
    el(
      "p",
      { class: "card-sub" },
      `Intervals: ${Math.round((m.confidence ?? 0.95) * 100)}% simultaneous over every TPS difference shown. Coloured: decided (interval on one side of 0, change beyond ${m.threshold_pct}%). Relative tables: each engine's value over its baseline's (QPS above 1 is faster; work per transaction above 1 is more work); CPU, context switches, KB read and written and fsyncs are one value per run, without an interval, so never coloured.`,
    ),
    ...pinLines(m),
    ...relativeTables(m),
    ...matrixTables(m),
    overList(m),
  );
}
