/** A run's page: commit, server configuration per tier, host fingerprint, sysbench options, cells. */
import type { HistoryRun } from "../../history/schema.js";
import { loadRun } from "./data.js";
import { el, fmt, nav, param } from "./dom.js";
import { importedRun } from "./run-imported.js";

function table(rows: [string, Node | string][]): HTMLTableElement {
  return el(
    "table",
    { class: "kv" },
    ...rows.map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, v))),
  );
}

function servers(run: HistoryRun): HTMLElement[] {
  return run.servers.map((s) =>
    el(
      "section",
      { class: "server" },
      el("h2", {}, `Server ${s.label}: ${s.version_string}`),
      table([
        ["spec", s.spec],
        ["flavor / version", `${s.flavor} ${s.version}`],
      ]),
      ...s.tiers.map((t) =>
        el(
          "details",
          {},
          el("summary", {}, `tier ${t.tier} (buffer pool ${fmt(t.buffer_pool_bytes / 1024 ** 2)} MiB)`),
          el("h3", {}, "configuration file"),
          el("pre", {}, t.config),
          el("h3", {}, "variables read back"),
          table(Object.entries(t.variables).map(([k, v]) => [k, v])),
        ),
      ),
    ),
  );
}

function cells(run: HistoryRun): HTMLTableElement {
  const head = ["server", "workload", "script", "tier", "threads", "tps [95%]", "qps", "p95 ms", "n"];
  const t = el("table", { class: "cells" }, el("tr", {}, ...head.map((h) => el("th", {}, h))));
  for (const c of run.cells) {
    const m = c.metrics;
    const tps = m.tps
      ? `${fmt(m.tps.value)}${m.tps.lo !== null ? ` [${fmt(m.tps.lo)}, ${fmt(m.tps.hi)}]` : ""}`
      : "–";
    const vals = [
      c.server,
      c.workload,
      c.script,
      c.tier,
      String(c.threads),
      tps,
      fmt(m.qps?.value),
      fmt(m.p95_ms?.value),
      String(m.tps?.n ?? "–"),
    ];
    t.append(el("tr", {}, ...vals.map((v) => el("td", {}, v))));
  }
  return t;
}

export async function runPage(main: HTMLElement): Promise<void> {
  const id = param("id");
  if (!id) throw new Error("no run given (run.html?id=…)");
  const run = await loadRun(id);
  if (run.source === "gab") {
    main.replaceChildren(...importedRun(run));
    return;
  }
  const h = run.host;
  document.title = `run ${run.id} · perfgate`;
  const commit = run.commit_url ? el("a", { href: run.commit_url }, run.commit) : run.commit;
  main.replaceChildren(
    el("h1", {}, `Run ${run.id}`),
    nav(""),
    table([
      ["commit", commit],
      ["date", run.date],
      ["branch", run.branch],
      ["runner class", run.runner_class],
      ["version matrix", run.matrix ?? "–"],
      ["source", run.source === "ab" ? "A/B run (head side)" : "run"],
      ["perfgate", run.perfgate_version],
      ["workload", `${run.workload.name} (sha256 ${run.workload.sha256.slice(0, 12)})`],
      ["dataset", `${run.dataset.tables} tables × ${run.dataset.table_size.toLocaleString("en-US")} rows`],
    ]),
    el("h2", {}, "Host fingerprint"),
    table([
      ["hostname", h.hostname],
      ["CPU", `${h.cpu_model} (${h.cores} cores, ${h.arch})`],
      ["memory", `${fmt(h.memory_bytes / 1024 ** 3)} GiB`],
      ["OS / kernel", `${h.os} / ${h.kernel}`],
    ]),
    el("h2", {}, "sysbench"),
    table([
      ["version", run.sysbench.version],
      ["options", el("code", {}, run.sysbench.options.join(" ") || "–")],
    ]),
    ...servers(run),
    el("h2", {}, "Cells"),
    cells(run),
  );
}
