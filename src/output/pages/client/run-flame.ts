/**
 * The run page's interactive flame graph, loaded lazily: a graph linked beside the results file
 * gets a folded "search and zoom" box; opening it loads the renderer's bundle (assets/flame.js and
 * flame.css, d3-flame-graph, only on this page and only then) and the graph's data file (`<graph>.json`
 * beside the SVG, src/measuring/profiles/data.ts). Nothing of either is loaded before.
 */
import { graphDataName } from "../../../measuring/profiles/data-name.js";
import { el } from "./dom.js";

/** What assets/flame.js sets on the window. */
export interface FlameRenderer {
  render(host: HTMLElement, dataUrl: string): Promise<void>;
}

declare global {
  interface Window {
    perfgateFlame?: FlameRenderer;
  }
}

let loading: Promise<FlameRenderer> | null = null;

function renderer(): Promise<FlameRenderer> {
  loading ??= new Promise<FlameRenderer>((resolve, reject) => {
    const s = document.createElement("script");
    s.src = "assets/flame.js";
    s.onload = () =>
      window.perfgateFlame
        ? resolve(window.perfgateFlame)
        : reject(new Error("assets/flame.js set no renderer"));
    s.onerror = () => {
      loading = null;
      reject(new Error("assets/flame.js could not be loaded"));
    };
    // d3-flame-graph's stylesheet, bundled beside the script
    document.head.append(el("link", { rel: "stylesheet", href: "assets/flame.css" }), s);
  });
  return loading;
}

/** The folded box of the graph whose SVG is at `svgHref` (a safe link beside the results file). */
export function interactiveGraph(svgHref: string): HTMLElement {
  const host = el("div", { class: "flame-live-body" });
  const box = el(
    "details",
    { class: "flame-live" },
    el("summary", {}, "Search and zoom this graph here"),
    host,
  );
  let started = false;
  box.addEventListener("toggle", () => {
    if (!box.open || started) return;
    started = true;
    const dataUrl = svgHref.replace(/[^/]+$/, (name) => graphDataName(name));
    host.replaceChildren(el("p", { class: "readout" }, "Loading the graph's data…"));
    renderer()
      .then((r) => r.render(host, dataUrl))
      .catch((e: unknown) => {
        started = false;
        host.replaceChildren(
          el(
            "p",
            { class: "readout flame-error" },
            `The graph's data could not be shown (${e instanceof Error ? e.message : String(e)}); the SVG link above still works.`,
          ),
        );
      });
  });
  return box;
}
