/** The trend site's client: one bundle for every page; the page's <body data-page> picks the view. */
import "uplot/dist/uPlot.min.css";
import "./style.css";
import { cellPage } from "./cell.js";
import { fail } from "./dom.js";
import { matrixPage } from "./matrix.js";
import { overviewPage } from "./overview.js";
import { runPage } from "./run.js";

declare global {
  interface Window {
    /** set when the page has drawn its data: ms since navigation start (read by tests and the benchmark) */
    perfgateReady?: number;
  }
}

const PAGES: Record<string, (main: HTMLElement) => Promise<void>> = {
  overview: overviewPage,
  cell: cellPage,
  run: runPage,
  matrix: matrixPage,
};

const main = document.querySelector("main")!;
const page = PAGES[document.body.dataset.page ?? "overview"] ?? overviewPage;
page(main).then(
  () => {
    window.perfgateReady = performance.now();
  },
  (err: unknown) => fail(err),
);
