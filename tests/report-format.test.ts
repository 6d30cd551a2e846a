/** The hand-rolled number formatter must write exactly what Intl.NumberFormat("en-US") writes. */
import { describe, expect, it } from "vitest";
import { fmtNumber, mdEscape } from "../src/report/markdown.js";

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
