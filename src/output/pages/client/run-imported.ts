/**
 * The run page of an imported entry (a github-action-benchmark data.js entry, source "gab"): the
 * commit as the action recorded it and every bench's metrics with unit, direction, range and extra
 * text. There is no host, sysbench or server configuration to show.
 */

import { safeUrl } from "../../../util/safe-url.js";
import type { HistoryRun } from "../../history/schema.js";
import { el, fmt, nav } from "./dom.js";

function kv(rows: [string, Node | string][]): HTMLTableElement {
  return el(
    "table",
    { class: "kv" },
    ...rows.map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, v))),
  );
}

function benches(run: HistoryRun): HTMLTableElement {
  const head = ["bench", "metric", "value", "unit", "better", "range", "extra"];
  const t = el("table", { class: "cells" }, el("tr", {}, ...head.map((h) => el("th", {}, h))));
  for (const c of run.cells) {
    for (const m of c.other_metrics ?? []) {
      const vals = [c.script, m.name, fmt(m.value, 4), m.unit, m.better, m.range ?? "–", m.extra ?? ""];
      t.append(el("tr", {}, ...vals.map((v) => el("td", {}, v))));
    }
  }
  return t;
}

export function importedRun(run: HistoryRun): HTMLElement[] {
  const info = run.commit_info ?? {};
  const url = safeUrl(run.commit_url);
  const commit = url ? el("a", { href: url }, run.commit) : run.commit;
  const tool = run.servers[0]?.flavor ?? "?";
  return [
    el("h1", {}, `Run ${run.id}`),
    nav(""),
    kv([
      ["commit", commit],
      ["message", el("pre", {}, info.message ?? "–")],
      ["author / committer", `${info.author ?? "–"} / ${info.committer ?? "–"}`],
      ["commit time", info.timestamp ?? "–"],
      ["measured", run.date],
      ["source", `github-action-benchmark, tool ${tool}`],
      ["benchmark suite", run.workload.name],
      ["runner class", run.runner_class],
    ]),
    el("h2", {}, "Benches"),
    benches(run),
  ];
}
