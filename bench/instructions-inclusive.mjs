#!/usr/bin/env node
// Where in the call tree instructions per transaction changed, from an A/B file with instruction
// counts: for each counted cell, the named functions kept on both sides, by the change of their
// inclusive (and self) instructions per transaction, mean over the repetitions. Useful where the
// report's self-cost table is dominated by addresses: a stripped binary (MySQL's own builds keep
// only the dynamic symbol table) names its exported functions, not its static ones, so the
// inclusive cost of the named callers says where the unnamed work happens.
//
//   node bench/instructions-inclusive.mjs ab.json [--top 15] [--cell oltp_read_write]
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith("--") && !/^\d+$/.test(a));
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
if (!file) {
  console.error("usage: node bench/instructions-inclusive.mjs <ab.json> [--top N] [--cell <script>]");
  process.exit(2);
}
const top = Number(opt("top", "15"));
const only = opt("cell", null);
const ab = JSON.parse(readFileSync(file, "utf8"));

/** Mean per-transaction value of `key` per function over a side's repetitions. */
function means(reps, key) {
  const m = new Map();
  for (const r of reps) {
    for (const f of r.functions) {
      const k = `${f.name} (${f.object})`;
      m.set(k, (m.get(k) ?? 0) + (f[key] ?? 0) / reps.length);
    }
  }
  return m;
}

const fmt = (x) => Math.round(x).toLocaleString("en-US");
for (const c of ab.cells) {
  const i = c.instructions;
  if (!i || i.base.length === 0 || i.head.length === 0 || (only && c.script !== only)) continue;
  const total = (reps) => reps.reduce((a, r) => a + r.per_transaction, 0) / reps.length;
  const [tb, th] = [total(i.base), total(i.head)];
  console.log(
    `${c.script} ${c.threads}t ${c.tier}: ${fmt(tb)} -> ${fmt(th)} instructions per transaction (${fmt(th - tb)})`,
  );
  for (const key of ["inclusive", "self"]) {
    const b = means(i.base, key);
    const h = means(i.head, key);
    const rows = [...new Set([...b.keys(), ...h.keys()])]
      .filter((n) => !/^0x[0-9a-f]+ /.test(n) && b.has(n) && h.has(n))
      .map((n) => ({ n, b: b.get(n), h: h.get(n), d: h.get(n) - b.get(n) }))
      .sort((x, y) => Math.abs(y.d) - Math.abs(x.d))
      .slice(0, top);
    console.log(`  ${key} (named functions kept on both sides):`);
    for (const r of rows) {
      const share = th !== tb ? `${((100 * r.d) / (th - tb)).toFixed(0)}%`.padStart(5) : "";
      console.log(
        `    ${fmt(r.b).padStart(11)} -> ${fmt(r.h).padStart(11)} ${fmt(r.d).padStart(10)} ${share}  ${r.n.slice(0, 110)}`,
      );
    }
  }
}
