#!/usr/bin/env node
// How long the pre-use check of an unpacked server takes (sha256 of every file against the
// manifest written at unpack time). Unpacks the server into a private cache (the download is
// hard-linked from the shared cache when it is there), then times `perfgate server verify` N times
// and prints each check's own time as perfgate reports it, plus the process wall time.
//
//   node bench/cache-verify.mjs [--spec maven:mariadb@11.4.5] [--runs 5]
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};
const spec = opt("spec", "maven:mariadb@11.4.5");
const runs = Number(opt("runs", "5"));
const cli = join(import.meta.dirname, "..", "bin", "perfgate.mjs");
const shared =
  process.env.PERFGATE_CACHE_DIR || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "perfgate");
const cache = mkdtempSync(join(tmpdir(), "perfgate-bench-verify-"));
try {
  mkdirSync(join(cache, "downloads"));
  const downloads = join(shared, "downloads");
  for (const f of existsSync(downloads) ? readdirSync(downloads) : []) {
    try {
      linkSync(join(downloads, f), join(cache, "downloads", f));
    } catch {
      copyFileSync(join(downloads, f), join(cache, "downloads", f));
    }
  }
  const env = { ...process.env, PERFGATE_CACHE_DIR: cache };
  const fetched = execFileSync(process.execPath, [cli, "server", "fetch", spec], { env, encoding: "utf8" });
  const dir = join(
    cache,
    "servers",
    readdirSync(join(cache, "servers")).find((d) => !d.endsWith(".lock")),
  );
  const size = execFileSync("du", ["-sb", dir], { encoding: "utf8" }).split("\t")[0];
  console.log(`# node bench/cache-verify.mjs --spec ${spec} --runs ${runs}`);
  console.log(`# ${fetched.trim()}; ${(Number(size) / 1e6).toFixed(0)} MB unpacked`);
  const checks = [];
  for (let i = 1; i <= runs; i++) {
    const t0 = performance.now();
    const out = execFileSync(process.execPath, [cli, "server", "verify", dir], { env, encoding: "utf8" });
    const wall = performance.now() - t0;
    const m = /\((\d+) entries, (\d+) ms\)/.exec(out);
    checks.push(Number(m?.[2]));
    console.log(`run ${i}: check ${m?.[2]} ms over ${m?.[1]} entries; process wall ${wall.toFixed(0)} ms`);
  }
  checks.sort((a, b) => a - b);
  console.log(
    `check: min ${checks[0]} ms, median ${checks[Math.floor(checks.length / 2)]} ms, max ${checks.at(-1)} ms`,
  );
} finally {
  rmSync(cache, { recursive: true, force: true });
}
