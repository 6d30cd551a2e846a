/** The hand-rolled number formatter must write exactly what Intl.NumberFormat("en-US") writes. */
import { describe, expect, it } from "vitest";
import type { ComparisonReport } from "../src/analysis/compare/schema.js";
import { mdCode, mdEscape } from "../src/output/report/escape.js";
import { functionChangesMarkdown } from "../src/output/report/function-changes.js";
import { fmtNumber } from "../src/output/report/markdown.js";

describe("fmtNumber", () => {
  const intl = [0, 1, 2].map(
    (d) => new Intl.NumberFormat("en-US", { minimumFractionDigits: d, maximumFractionDigits: d }),
  );
  it("matches Intl.NumberFormat on ties, carries, signs and large values", () => {
    const values = [
      0, -0, 0.5, 1.5, 2.5, -2.5, 1.005, 0.045, 1.255, 26.555, 492.45, 999.5, 999.995, 9999.95, 999999.5,
      -1234.5, -0.001, 1e15, 123456789.125, 1234567.891,
    ];
    let seed = 11;
    const rand = () => {
      seed = (seed * 1664525 + 1013904223) >>> 0;
      return seed / 4294967296;
    };
    for (let i = 0; i < 20000; i++) {
      values.push((rand() - 0.3) * 10 ** Math.floor(rand() * 10), Math.round(rand() * 1e6) / 1000 + 0.0005);
      values.push(Math.round(rand() * 1e5) / 200);
    }
    for (const v of values) {
      for (const d of [0, 1, 2])
        expect(`${v}/${d}: ${fmtNumber(v, d)}`).toBe(`${v}/${d}: ${intl[d]!.format(v)}`);
    }
  });
});

describe("mdEscape", () => {
  it("escapes Markdown specials and flattens newlines, repeatedly the same way", () => {
    for (let i = 0; i < 3; i++) {
      expect(mdEscape("oltp_read_write")).toBe("oltp_read_write");
      expect(mdEscape("a|b\n<c>")).toBe("a\\|b \\<c\\>");
      // "@" never stays live (name@host.tld is an e-mail autolink): a zero-width space follows it.
      expect(mdEscape("mariadb@11.4.5")).toBe("mariadb@\u200b11.4.5");
    }
  });
});

describe("mdCode: names as code spans, exactly as they are", () => {
  it("keeps C++ and versioned symbol names whole: no backslashes, no zero-width spaces", () => {
    expect(mdCode("Field::make_send_field(Send_field*)")).toBe("`Field::make_send_field(Send_field*)`");
    expect(mdCode("pthread_getspecific@@GLIBC_2.34")).toBe("`pthread_getspecific@@GLIBC_2.34`");
    expect(mdCode("std::vector<int, Alloc<int>>::~vector() [clone .cold]")).toBe(
      "`std::vector<int, Alloc<int>>::~vector() [clone .cold]`",
    );
    for (const name of ["a\\b", "x_y_", "*p", "https://x.y", "www.x.org", "@team"]) {
      expect(mdCode(name)).toBe(`\`${name}\``);
      expect(mdCode(name)).not.toContain("\u200b");
    }
  });

  it("cannot end the span or the table cell, and carries no control characters", () => {
    expect(mdCode("operator|(a, b)")).toBe("`operator\\|(a, b)`");
    expect(mdCode("a`b")).toBe("``a`b``");
    expect(mdCode("`x``")).toBe("``` `x`` ```");
    expect(mdCode("f\n| injected | row\u202e")).toBe("`f \\| injected \\| row`");
  });

  it("the function table shows the names of the issue as they are", () => {
    const report = {
      function_changes: [
        {
          scenario: "oltp_read_only",
          tier: "1G",
          threads: 1,
          base: "mariadb@11.4.5 (base)",
          head: "mariadb@11.4.5 (head)",
          verdict: "regression",
          change_pct: 12,
          ci_low_pct: 11,
          ci_high_pct: 13,
          tps_verdict: null,
          functions: [
            {
              name: "Field::make_send_field(Send_field*)",
              object: "mariadbd",
              base: 71,
              head: 80,
              delta: 9,
              share: 0.1,
              complete: true,
            },
            {
              name: "pthread_getspecific@@GLIBC_2.34",
              object: "libc.so.6",
              base: 77,
              head: 613,
              delta: 536,
              share: 0.9,
              complete: true,
            },
          ],
        },
      ],
    } as unknown as ComparisonReport;
    const md = functionChangesMarkdown(report).join("\n");
    expect(md).toContain("| `Field::make_send_field(Send_field*)` | mariadbd |");
    expect(md).toContain("| `pthread_getspecific@@GLIBC_2.34` | libc.so.6 |");
  });
});
