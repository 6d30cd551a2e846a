/**
 * The trend site's client: one small bundle per page (build.mjs), so the overview, run and matrix
 * pages do not load the chart library only the cell page draws with. Each entry calls start().
 */
import { fail } from "./dom.js";

declare global {
  interface Window {
    /** set when the page has drawn its data: ms since navigation start (read by tests and the benchmark) */
    perfgateReady?: number;
  }
}

export function start(page: (main: HTMLElement) => Promise<void>): void {
  const main = document.querySelector("main")!;
  page(main).then(
    () => {
      window.perfgateReady = performance.now();
    },
    (err: unknown) => fail(err),
  );
}
