/**
 * Property: random bench names, units, commit links, values and dates go through the path a history
 * takes, in-process on the library: import (gabToHistory) and append's commit-link check and date
 * check, the store's schema, the trend site's data (series, cell and run pages, overview rows, data
 * files, file names) and change detection with its terminal report. Nothing crashes (a refusal is a
 * one-line UserError), no link but http(s) to a host reaches the site's data, data files are named
 * by 16 hex digits, and no raw control character reaches the terminal.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_CHANGE_OPTIONS, detectChanges } from "../src/analysis/changes/index.js";
import { renderChangesText } from "../src/analysis/changes/report.js";
import { runContext } from "../src/output/history/append.js";
import { checkRunDate } from "../src/output/history/folder.js";
import { HistoryRunSchema } from "../src/output/history/schema.js";
import { urlOf } from "../src/output/pages/links.js";
import { metricInfo, metricKeys } from "../src/output/pages/metrics.js";
import { buildSeries, overviewRow } from "../src/output/pages/model.js";
import { cellPageData, dataFile, fileKey, runPageData } from "../src/output/pages/site.js";
import type { GabData } from "../src/results/interop/gab.js";
import { gabToHistory } from "../src/results/interop/gab-history.js";
import { own } from "../src/util/dict.js";
import { safeHref, safeUrl } from "../src/util/safe-url.js";
import { terminalSafe } from "../src/util/terminal.js";
import { RUNS, userErrorOrValue } from "./helpers/fuzz.js";
import { PWN } from "./helpers/hostile-factory.js";

const NAMES = [
  "constructor",
  "__proto__",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "tps",
  "p95_ms",
  "<img src=x onerror=alert(1)>",
  "\u001b[31mred\u001b[0m",
  "../../etc/passwd",
  "a/b\\c",
  "",
];
const name = fc.oneof(
  fc.constantFrom(...NAMES),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.string({ minLength: 200, maxLength: 300 }),
);
const url = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.constantFrom(
    PWN,
    "JaVaScRiPt:alert(1)",
    " javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "//evil.example/x",
    "https://github.com@evil.example/",
    "https://github.com/o/r/commit/0123abcd",
    'https://github.com/o/r"><script>',
    "",
  ),
  fc.string({ maxLength: 30 }),
);
const value = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.double({ min: 1e200, max: 1e300, noNaN: true }),
  fc.integer({ min: -1000, max: 100000 }),
);
/** ms since the epoch: ordinary, far past, future, and beyond what a Date holds. */
const date = fc.oneof(
  { arbitrary: fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2026, 0, 1) }), weight: 30 },
  { arbitrary: fc.integer({ min: -8.64e15, max: 8.64e15 }), weight: 1 },
  { arbitrary: fc.double({ min: -1e17, max: 1e17, noNaN: true }), weight: 1 },
);

const entry = fc.record({
  commit: fc.record({
    id: fc.oneof(
      { arbitrary: fc.stringMatching(/^[0-9a-f]{40}$/), weight: 30 },
      { arbitrary: name, weight: 1 },
    ),
    url: fc.oneof({ arbitrary: fc.constant(undefined), weight: 20 }, { arbitrary: url, weight: 1 }),
  }),
  date,
  tool: fc.constantFrom("customSmallerIsBetter", "customBiggerIsBetter", "go", "cargo", "pytest", "other"),
  benches: fc.array(fc.record({ name: name.filter((n) => n.length > 0), unit: name, value }), {
    minLength: 1,
    maxLength: 2,
  }),
});
const data = fc.record({
  lastUpdate: fc.constant(1),
  repoUrl: fc.oneof(
    { arbitrary: fc.constant("https://github.com/o/r"), weight: 6 },
    { arbitrary: fc.constant(""), weight: 3 },
    { arbitrary: url, weight: 1 },
  ),
  entries: fc.dictionary(
    name.filter((n) => n.length > 0),
    fc.array(entry, { minLength: 1, maxLength: 6 }),
    {
      minKeys: 1,
      maxKeys: 1,
    },
  ),
}) as fc.Arbitrary<GabData>;

// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting them is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function expectLink(u: string | null | undefined, where: string): void {
  if (u === null || u === undefined) return;
  expect(safeUrl(u), `${where}: ${u}`).toBe(u);
  expect(u, where).toMatch(/^https?:\/\/[A-Za-z0-9[]/);
  expect(safeHref(u), where).toBe(u);
}

/** Append's checks, in-process: the commit link of `history append --commit-url`, the date. */
function appended(d: GabData) {
  const imported = userErrorOrValue(() =>
    gabToHistory(d, { file: "d.js", runnerClass: "rc", branch: "main", sha256: "0".repeat(64) }),
  );
  if (imported === null) return null;
  return imported.runs.filter(
    (r) =>
      userErrorOrValue(() => {
        checkRunDate(r);
        return true;
      }) !== null,
  );
}

describe("random names, units, links, values and dates: import/append -> pages -> changes", () => {
  it(`${RUNS} histories: no crash, only http(s) links, hashed file names, no raw control characters`, () => {
    let sites = 0;
    fc.assert(
      fc.property(data, url, (d, commitUrl) => {
        const ctx = userErrorOrValue(() => runContext({ commit: "0123abcd", commitUrl, branch: "b" }, {}));
        if (ctx !== null) expectLink(ctx.commitUrl, "--commit-url");
        const kept = appended(d);
        if (kept === null || kept.length === 0) return;
        // The store's JSON round trip: what `pages` reads back.
        const runs = kept.map((r) => HistoryRunSchema.parse(JSON.parse(JSON.stringify(r))));
        runs.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
        const series = buildSeries(runs, (points) => detectChanges(points));
        sites++;
        for (const s of series) {
          const page = cellPageData(s);
          expect(fileKey("cells", s.id)).toMatch(/^[0-9a-f]{16}$/);
          dataFile(`cells/${fileKey("cells", s.id)}`, page);
          s.run.forEach((_, i) => {
            expectLink(urlOf(s, i), "point");
          });
          for (const c of s.changes) expectLink(c.range_url, "range");
          for (const m of metricKeys(s)) expect(typeof metricInfo(s, m).unit).toBe("string");
          overviewRow(s);
        }
        for (const r of runs) {
          const page = runPageData(r);
          expectLink(page.commit_url, "run page");
          expect(fileKey("runs", r.id)).toMatch(/^[0-9a-f]{16}$/);
        }
        const text = renderChangesText({
          source: "store",
          options: { ...DEFAULT_CHANGE_OPTIONS },
          series: series.flatMap((s) =>
            metricKeys(s).map((m) => ({
              name: `${s.key.workload} ${s.key.script} ${m}`,
              points: s.run.length,
              better: metricInfo(s, m).better,
              changes: detectChanges(
                (own(s.metrics, m)?.v ?? [])
                  .filter((v): v is number => v !== null)
                  .map((v) => ({ value: v })),
              ),
            })),
          ),
        });
        expect(terminalSafe(text)).not.toMatch(RAW_CONTROL);
      }),
      { numRuns: RUNS },
    );
    expect(sites).toBeGreaterThan(RUNS / 5);
  });
});
