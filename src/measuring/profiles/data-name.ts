/** The data file beside a flame graph (pure, no imports: the run page's small bundle uses it). */

/** `<graph>.json` in place of `<graph>.svg`: what src/measuring/profiles/data.ts writes and the run page reads. */
export function graphDataName(svgName: string): string {
  return svgName.replace(/\.svg$/, ".json");
}
