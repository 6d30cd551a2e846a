/**
 * src/measuring/profiles/callgrind-folded.ts on a real callgrind dump (MariaDB 11.4.5, 2,000 point selects): the
 * stacks cap keeps every instruction and gives no kept frame its callees' cost as its own, so the
 * differential graph's self colouring is not moved onto callers.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { foldedStacks, OTHER_CALLEES } from "../src/measuring/profiles/callgrind-folded.js";
import { parseCallgrind } from "../src/measuring/profiles/callgrind-parse.js";

const text = gunzipSync(
  readFileSync(join(import.meta.dirname, "fixtures/callgrind/mariadb-11.4.5-point-select-2000.out.gz")),
).toString("utf8");
const profile = parseCallgrind(text, "cg.out");
const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

describe("folded stacks under the stacks cap", () => {
  it("keeps the total and each kept stack's own weight; the lighter rest goes under [other callees]", () => {
    const all = foldedStacks(profile, { minShare: 0.0005 });
    const few = foldedStacks(profile, { minShare: 0.0005, maxStacks: 20 });
    expect(Object.keys(all).length).toBeGreaterThan(40);
    expect(sum(few)).toBeCloseTo(sum(all), 3);
    const top = Object.entries(all)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20)
      .map(([k]) => k);
    for (const k of top) expect(few[k]).toBeCloseTo(all[k]!, 6); // no kept stack gained weight
    // the rest: the lighter stacks under [other callees], and one-frame stacks as they were
    for (const k of Object.keys(few).filter((x) => !top.includes(x)))
      expect(k.endsWith(OTHER_CALLEES) || (!k.includes(";") && few[k] === all[k])).toBe(true);
    expect(Object.keys(few).some((k) => k.endsWith(`;${OTHER_CALLEES}`))).toBe(true);
  });
});
