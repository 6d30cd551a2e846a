/**
 * Property tests (fast-check), RUNS generated inputs each (tests/helpers/fuzz.ts: 1,000 in the unit project, 10,000 with `npm run test:fuzz`), for every reader of outside input.
 * The property: a reader returns a valid value or throws the documented one-line UserError,
 * nothing else; writes happen only after every check passed. Inputs are built from real
 * documents with random changes, plus raw random text. This file: sysbench output (parser, log
 * import) and the Markdown escaper; tests/fuzz-inputs.test.ts: the other readers.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSysbenchOutput } from "../src/measuring/sysbench/parse.js";
import { mdEscape } from "../src/output/report/escape.js";
import { sysbenchLogToResults } from "../src/results/import/sysbench-log.js";
import { IntervalSchema, ResultsSchema, SummarySchema } from "../src/results/schema.js";
import { mutatedLines, RUNS, read, userErrorOrValue } from "./helpers/fuzz.js";

describe("fuzz: sysbench output", () => {
  const samples = [
    "sysbench/oltp_write_only-16t.txt",
    "sysbench/fault-duplicate-seconds.txt",
    "sysbench/fault-stall.txt",
    "sysbench/fault-fatal-2013.txt",
    "sysbench/oltp_point_select-2t-rate500.txt",
  ].map((f) => read(...f.split("/")));
  const text = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...samples).chain(mutatedLines) },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  );

  it("the parser never throws; what it returns is valid and in time order", () => {
    fc.assert(
      fc.property(text, (t) => {
        const out = parseSysbenchOutput(t);
        for (let k = 0; k < out.intervals.length; k++) {
          const i = out.intervals[k]!;
          const values = [i.t, i.tps, i.qps, i.reads_ps, i.writes_ps, i.other_ps, i.err_ps, i.reconn_ps];
          if (!values.every((v) => Number.isFinite(v) && v >= 0) || !Number.isSafeInteger(i.threads)) {
            expect(IntervalSchema.safeParse(i).success).toBe(true); // says which field
          }
          if (k > 0 && !(i.t > out.intervals[k - 1]!.t)) expect(i.t).toBeGreaterThan(out.intervals[k - 1]!.t);
        }
        if (out.summary) expect(SummarySchema.safeParse(out.summary).success).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it("log import gives a valid results file or a UserError", () => {
    fc.assert(
      fc.property(text, fc.option(fc.constantFrom("oltp_write_only", "x y", "")), (t, script) => {
        const r = userErrorOrValue(() =>
          sysbenchLogToResults(t, "in.log", script === null ? {} : { script }),
        );
        if (r) expect(ResultsSchema.safeParse(JSON.parse(JSON.stringify(r))).success).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});

describe("fuzz: Markdown escaping of table cells", () => {
  const text = fc.oneof(
    fc.string({
      unit: fc.constantFrom("|", "\\", "\n", "\r", "`", "*", "_", "<", ">", "[", "]", "a", " ", "#"),
      maxLength: 30,
    }),
    fc.string({ unit: "binary", maxLength: 30 }),
  );

  it("never throws, never a raw line break, every pipe escaped", () => {
    fc.assert(
      fc.property(text, (t) => {
        const out = mdEscape(t);
        expect(out).not.toMatch(/[\r\n]/);
        // every "|" is preceded by an odd run of backslashes (escaped; backslashes are escaped too)
        for (let i = out.indexOf("|"); i >= 0; i = out.indexOf("|", i + 1)) {
          let n = 0;
          while (i - 1 - n >= 0 && out[i - 1 - n] === "\\") n++;
          expect(n % 2).toBe(1);
        }
        expect(`| ${out} |`.split(/(?<!\\)\|/).length).toBe(3 + (out.match(/(?<!\\)\|/g)?.length ?? 0));
      }),
      { numRuns: RUNS },
    );
  });
});
