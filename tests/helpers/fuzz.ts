/** Shared pieces of the property tests (tests/fuzz-*.test.ts). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { UserError } from "../../src/util/errors.js";

/**
 * Cases per property. 1,000 in the unit project, where a run must take under a minute on a 2-core
 * host; `npm run test:fuzz` runs the same properties with 10,000 each (PERFGATE_FUZZ_RUNS), as the
 * scheduled CI job does. fast-check draws a new seed each run, so the cases add up across runs;
 * a failure prints its seed and path to replay it.
 */
export const RUNS = fuzzRuns(process.env.PERFGATE_FUZZ_RUNS);

function fuzzRuns(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 1_000;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`PERFGATE_FUZZ_RUNS: ${raw} is not a positive whole number`);
  return n;
}
const FIX = join(import.meta.dirname, "..", "fixtures");
export const read = (...p: string[]) => readFileSync(join(FIX, ...p), "utf8");

/** Runs `f`; a throw must be a UserError with a one-line message. */
export function userErrorOrValue<T>(f: () => T): T | null {
  try {
    return f();
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    if (err.message.includes("\n") || err.message.length === 0)
      throw new Error(`bad message: ${err.message}`);
    return null;
  }
}

/** Random edits of a text's lines: drop, duplicate, swap, cut, or replace one with random text. */
export function mutatedLines(base: string): fc.Arbitrary<string> {
  const lines = base.split("\n");
  const edit = fc.oneof(
    fc.record({ op: fc.constant("drop" as const), at: fc.nat() }),
    fc.record({ op: fc.constant("dup" as const), at: fc.nat() }),
    fc.record({ op: fc.constant("swap" as const), at: fc.nat() }),
    fc.record({ op: fc.constant("cut" as const), at: fc.nat(), keep: fc.nat() }),
    fc.record({ op: fc.constant("put" as const), at: fc.nat(), text: fc.string({ maxLength: 40 }) }),
    fc.record({
      op: fc.constant("digit" as const),
      at: fc.nat(),
      text: fc.constantFrom("-1", "1e999", "NaN", "0", "99999999999999999999", "", "1.5"),
    }),
  );
  return fc.array(edit, { maxLength: 6 }).map((edits) => {
    const out = [...lines];
    for (const e of edits) {
      const i = out.length === 0 ? 0 : e.at % out.length;
      if (e.op === "drop") out.splice(i, 1);
      else if (e.op === "dup") out.splice(i, 0, out[i] ?? "");
      else if (e.op === "swap" && i + 1 < out.length) [out[i], out[i + 1]] = [out[i + 1]!, out[i]!];
      else if (e.op === "cut") out[i] = (out[i] ?? "").slice(0, e.keep % 80);
      else if (e.op === "put") out[i] = e.text;
      else if (e.op === "digit") out[i] = (out[i] ?? "").replace(/\d+(\.\d+)?/, e.text);
    }
    return out.join("\n");
  });
}
