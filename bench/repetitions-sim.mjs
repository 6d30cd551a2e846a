#!/usr/bin/env node
// Counting until decided (instructions.max_repetitions, docs/instructions.md) against a fixed
// number of repetitions, on simulated instruction counts: each round's paired log-difference of
// head and base is normal around the true change with sd --sd (0.67%: the read-write cell of
// MariaDB 10.11.5 -> 11.4.5 measured on the 2-core VM). The rule is perfgate's own
// (`moreRepetitions` of src/measuring/ab/confirm.ts): after --planned rounds, one more round while the
// verdict at the report's level (0.05 / --comparisons) is undecided, up to --max. Prints, per true
// change, the share of verdicts that are right, wrong (decided the wrong way: a change beyond the
// 1% threshold for a true change within it, or the reverse) and undecided, with the mean rounds;
// and the rule it replaced in design, stopping at the first decided verdict.
//   node bench/repetitions-sim.mjs [--seeds 4000] [--sd 0.67] [--planned 5] [--max 40] [--comparisons 4]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const seeds = opt("seeds", 4000);
const sd = opt("sd", 0.67) / 100;
const planned = opt("planned", 5);
const max = opt("max", 40);
const alpha = 0.05 / opt("comparisons", 4);

const dir = mkdtempSync(join(tmpdir(), "repetitions-sim-"));
let confirm;
try {
  // the rule (src/measuring/ab/confirm.ts) and the seeded normals the bisect simulation uses
  const out = await build({
    stdin: {
      contents:
        'export { judgePaired, moreRepetitions } from "./src/measuring/ab/confirm.ts";\nexport { rng } from "./src/measuring/bisect/core/simulate.ts";',
      resolveDir: join(import.meta.dirname, ".."),
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "node",
    write: false,
  });
  const file = join(dir, "confirm.mjs");
  writeFileSync(file, out.outputFiles[0].text);
  confirm = await import(pathToFileURL(file).href);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const right = (verdict, pct) =>
  Math.abs(pct) <= 1 ? verdict === "unchanged" : verdict === (pct > 0 ? "regression" : "improvement");

function one(pct, seed, rule) {
  const z = confirm.rng(seed).normal;
  const base = [];
  const head = [];
  const round = () => {
    const b = 4_000_000 * Math.exp(z() * 0.005);
    base.push(b);
    head.push(b * (1 + pct / 100) * Math.exp(z() * sd));
  };
  for (let i = 0; i < rule.planned; i++) round();
  if (rule.anyDecided) {
    // the rejected rule: stop at the first confirmed verdict, settled or not
    while (
      base.length < rule.max &&
      !confirm.judgePaired("instructions", base, head, undefined, alpha).confirmed
    )
      round();
  } else while (confirm.moreRepetitions(base, head, rule.max, undefined, alpha)) round();
  const v = confirm.judgePaired("instructions", base, head, undefined, alpha);
  return { verdict: v.confirmed ? v.verdict : "inconclusive", rounds: base.length };
}

console.log(`# node bench/repetitions-sim.mjs ${argv.join(" ")}`);
console.log(
  `# paired sd ${(sd * 100).toFixed(2)}%, alpha ${alpha.toFixed(4)}, ${seeds} simulated cells per row`,
);
console.log("true change | rule | right | wrong | undecided | mean rounds");
for (const pct of [0, -0.6, -1.5, 2]) {
  for (const rule of [
    { name: `fixed ${planned}`, planned, max: planned },
    { name: `fixed ${max}`, planned: max, max },
    { name: `${planned} up to ${max}`, planned, max },
    {
      name: `${planned} up to ${max}, stopping at any decided verdict (rejected)`,
      planned,
      max,
      anyDecided: true,
    },
  ]) {
    const tally = { right: 0, wrong: 0, undecided: 0, rounds: 0 };
    for (let s = 1; s <= seeds; s++) {
      const r = one(pct, s * 7919 + Math.round(pct * 1000), rule);
      tally.rounds += r.rounds;
      if (r.verdict === "inconclusive") tally.undecided++;
      else if (right(r.verdict, pct)) tally.right++;
      else tally.wrong++;
    }
    const share = (n) => `${((100 * n) / seeds).toFixed(1)}%`;
    console.log(
      `${pct > 0 ? "+" : ""}${pct}% | ${rule.name} | ${share(tally.right)} | ${share(tally.wrong)} | ${share(tally.undecided)} | ${(tally.rounds / seeds).toFixed(1)}`,
    );
  }
}
