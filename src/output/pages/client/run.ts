/**
 * A run's page: a list of sections (RUN_SECTIONS), each rendering what the run holds for it —
 * summary with the raw results file, noise and warnings, doctor findings, the per-second timeline,
 * base vs head of an A/B, the pinned defaults of a like-for-like one, why it changed (settings that differ, profiles, functions whose
 * instruction counts changed, flame graph links), thread scaling, cells, server counters per transaction, host, sysbench
 * and server configuration. A new section is one entry in the list.
 */
import { loadRun } from "./data.js";
import { el, nav, param } from "./dom.js";
import { scalingSection, timelineSection } from "./run-charts.js";
import { importedRun } from "./run-imported.js";
import { pinsSection } from "./run-pins.js";
import { type RunSection, TEXT_SECTIONS as T } from "./run-sections.js";
import { WHY_SECTIONS as W } from "./run-why.js";

export const RUN_SECTIONS: RunSection[] = [
  T.summary,
  T.noise,
  timelineSection,
  T.abSides,
  pinsSection,
  W.settings,
  W.profiles,
  W.instructions,
  scalingSection,
  T.cells,
  T.counters,
  T.doctor,
  T.host,
  T.sysbench,
  T.servers,
];

export async function runPage(main: HTMLElement): Promise<void> {
  const id = param("id");
  if (!id) throw new Error("no run given (run.html?id=…)");
  const run = await loadRun(id);
  if (run.source === "gab") {
    main.replaceChildren(...importedRun(run));
    return;
  }
  document.title = `run ${run.id} · perfgate`;
  main.replaceChildren(el("h1", {}, `Run ${run.id}`), nav(""));
  const draws: (() => void)[] = [];
  for (const s of RUN_SECTIONS) {
    const out = s.render(run);
    if (!out) continue;
    const heading = s.id === "summary" ? null : el("h2", {}, s.title);
    main.append(el("section", { id: `run-${s.id}`, class: "run-section" }, heading, ...out.nodes));
    if (out.draw) draws.push(out.draw);
  }
  for (const d of draws) d();
}
