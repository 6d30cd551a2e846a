/**
 * The page scripts' counted texts agree in number with their counts ("1 run", not "1 runs"), and
 * no page script writes a count before a plural noun of its own instead of going through them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  allGroupsText,
  cardLastText,
  cellSubText,
  cpuText,
  datasetText,
  matrixSubText,
  missingLinesText,
  newestOfText,
  overviewCountText,
  pinnedCountText,
  pinnedText,
  sparkScaleTitle,
  sparkValueTitle,
  threadsHeading,
} from "../src/output/pages/client/texts.js";
import { ROOT } from "./helpers/env.js";

describe("page texts", () => {
  it("say 1 run, 1 point, 1 cell, 1 table, 1 row, 1 core, 1 engine, 1 thread", () => {
    expect(overviewCountText(1, 1, 1, "")).toBe("1 of 1 cell · 1 run");
    expect(overviewCountText(2, 12, 34, " from a to b")).toBe("2 of 12 cells · 34 runs from a to b");
    expect(cardLastText("2,400", "tps", 1)).toBe("2,400 tps · 1 run");
    expect(cardLastText("2,400", "tps", 2)).toBe("2,400 tps · 2 runs");
    expect(sparkScaleTitle(1)).toBe("range of the last 1 point");
    expect(sparkScaleTitle(20)).toBe("range of the last 20 points");
    expect(sparkValueTitle(1)).toBe("the only point's value");
    expect(sparkValueTitle(20)).toBe("the value of each of the last 20 points");
    expect(threadsHeading("oltp · 256M · 1", 1)).toBe("oltp · 256M · 1 thread");
    expect(threadsHeading("oltp · 256M · 8", 8)).toBe("oltp · 256M · 8 threads");
    expect(cellSubText("mariadb", "w", "c", 1)).toBe("mariadb · workload w · runner class c · 1 run");
    expect(datasetText(1, 1)).toBe("1 table × 1 row");
    expect(datasetText(20, 100000)).toBe("20 tables × 100,000 rows");
    expect(cpuText("Xeon", 1, "x86_64")).toBe("Xeon (1 core, x86_64)");
    expect(cpuText("Xeon", 2, "x86_64")).toBe("Xeon (2 cores, x86_64)");
    expect(matrixSubText("w", "c", 1, "b")).toBe("w · runner class c · 1 engine · baseline per family: b");
    expect(missingLinesText(1)).toBe("1 report line missing");
    expect(missingLinesText(3)).toBe("3 report lines missing");
    expect(allGroupsText(1)).toBe("all 1 group");
    expect(newestOfText(1, 2)).toBe(" · the 1 newest of 2 versions");
    expect(pinnedText("maven:mysql@8.0.15", 1, 0)).toBe(
      "pinned to maven:mysql@8.0.15: 1 setting, 0 left as they were",
    );
    expect(pinnedCountText(1, 1)).toBe("1 setting, 1 left as they were");
    expect(pinnedText("maven:mysql@8.0.15", 5, 6)).toBe(
      "pinned to maven:mysql@8.0.15: 5 settings, 6 left as they were",
    );
  });

  it("no page script puts a count before a plural noun itself", () => {
    const dir = join(ROOT, "src", "output", "pages", "client");
    const nouns =
      "runs|points|cells|tables|rows|cores|engines|groups|threads|versions|pairs|metrics|scripts|lines";
    const counted = new RegExp(`\\$\\{[^}]*\\}\\)? (?:${nouns})\\b`);
    const found: string[] = [];
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".ts") && n !== "texts.ts")) {
      readFileSync(join(dir, f), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (counted.test(line)) found.push(`${f}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });
});
