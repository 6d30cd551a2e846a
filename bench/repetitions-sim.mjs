#!/usr/bin/env node
// Counting until decided (instructions.max_repetitions, docs/instructions.md) against a fixed
// number of repetitions, on simulated instruction counts: each round's paired log-difference of
// head and base is normal around the true change with sd --sd (0.67%: the read-write cell of
// MariaDB 10.11.5 -> 11.4.5 measured on the 2-core VM). The rule is perfgate's own
// (`moreRepetitions` of src/measuring/ab/confirm.ts): after --planned rounds, one more round while the
// verdict at the report's level (0.05 / --comparisons) is undecided, up to --max. Prints, per true
// change, the share of verdicts that are right, wrong (decided the wrong way: a change beyond the
// 1% threshold for a true change within it, or the reverse) and undecided, with the mean rounds;
// and the rule it replaced in design, stopping at the first decided verdict. With --sessions
// shared each simulated A/B is one pair of server sessions whose offset (sd --session-sd %, default
// the metrics table's part for --script, default oltp_read_write: 0.6%) no round averages away;
// with --sessions per_round (the default for a script that writes, as perfgate counts it) each
// round is a fresh pair of sessions, so the offset is drawn again every round and the rule judges
// with the read-only part. --session-sd 0 leaves the offset out (--sd is then a round's whole
// scatter, e.g. the 0.6% measured for fresh read-write rounds: docs/measured.md).
//   node bench/repetitions-sim.mjs [--seeds 4000] [--sd 0.67] [--planned 5] [--max 40] [--comparisons 4] [--script oltp_read_write] [--sessions per_round|shared] [--session-sd 0.6]
import { loadSources } from "./lib.mjs";

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

// the rule (src/measuring/ab/confirm.ts), the seeded normals the bisect simulation uses, and the
// metrics table's between-sessions part for the script
const confirm = await loadSources(
  'export { judgePaired, moreRepetitions } from "./src/measuring/ab/confirm.ts";\nexport { rng, sessionSdOf } from "./src/measuring/bisect/core/simulate.ts";\nexport { roundSessionsFor } from "./src/workloads/scripts.ts";',
);
const text = (name, dflt) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : dflt);
const script = text("script", "oltp_read_write");
const sessions = confirm.roundSessionsFor(text("sessions", "auto"), script);
const perRound = sessions === "per_round";
// each simulated A/B is one pair of server sessions: their offset, drawn once, is the table's part
const sessionSd = opt("session-sd", Number.NaN);
const session = Number.isNaN(sessionSd) ? confirm.sessionSdOf(script) : sessionSd / 100;

const right = (verdict, pct) =>
  Math.abs(pct) <= 1 ? verdict === "unchanged" : verdict === (pct > 0 ? "regression" : "improvement");

function one(pct, seed, rule) {
  const z = confirm.rng(seed).normal;
  const base = [];
  const head = [];
  const offset = session > 0 && !perRound ? Math.exp(z() * session) : 1;
  const round = () => {
    const b = 4_000_000 * Math.exp(z() * 0.005);
    base.push(b);
    const fresh = session > 0 && perRound ? Math.exp(z() * session) : 1;
    head.push(b * (1 + pct / 100) * offset * fresh * Math.exp(z() * sd));
  };
  for (let i = 0; i < rule.planned; i++) round();
  if (rule.anyDecided) {
    // the rejected rule: stop at the first confirmed verdict, settled or not
    while (
      base.length < rule.max &&
      !confirm.judgePaired("instructions", script, base, head, undefined, alpha, sessions).confirmed
    )
      round();
  } else while (confirm.moreRepetitions(script, base, head, rule.max, undefined, alpha, sessions)) round();
  const v = confirm.judgePaired("instructions", script, base, head, undefined, alpha, sessions);
  return { verdict: v.confirmed ? v.verdict : "inconclusive", rounds: base.length };
}

console.log(`# node bench/repetitions-sim.mjs ${argv.join(" ")}`);
console.log(
  `# paired sd ${(sd * 100).toFixed(2)}%, session offset ${(session * 100).toFixed(2)}% ${perRound ? "drawn every round (a session per round)" : "per A/B (one session)"} (${script}), alpha ${alpha.toFixed(4)}, ${seeds} simulated cells per row`,
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
