/** Test environment checks: the real things the integration tests need, with install hints on failure. */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "..", "..");
export const CLI = join(ROOT, "bin", "perfgate.mjs");

/** Real MySQL servers reachable from these machines: Debian sid's package and Oracle's build in a Maven jar. */
export const MYSQL_SERVERS = ["deb:mysql@9.7.4", "maven:mysql@8.0.15"] as const;

/**
 * The server specs every integration test exercises: one per source available on these machines,
 * MySQL as well as MariaDB (sid's MariaDB 11.8 runs with its own C library, like sid's MySQL).
 * Tests fetch what is missing into the cache (first fetch, measured on a busy 2-core host:
 * deb:mysql@9.7.4 about 90 s, deb:mariadb@11.8.9 25 s, maven:mysql@8.0.15 4 s).
 */
export const REAL_SERVERS = [
  "maven:mariadb@11.4.5",
  "maven:mariadb@10.11.5",
  "deb:mariadb@10.11.18",
  "deb:mariadb@11.8.9",
  ...MYSQL_SERVERS,
] as const;

export function requireSysbench(): void {
  try {
    execFileSync(process.env.PERFGATE_SYSBENCH || "sysbench", ["--version"], { stdio: "pipe" });
  } catch {
    throw new Error(
      "sysbench is required by the integration tests and was not found: install it with `sudo apt-get install sysbench` or `bash runner-setup/install-deps.sh`",
    );
  }
}

/** valgrind's version ("3.19.0"); throws naming how to install it when it is missing. */
export function requireValgrind(): string {
  try {
    const out = execFileSync("valgrind", ["--version"], { encoding: "utf8", stdio: "pipe" });
    return /valgrind-(\S+)/.exec(out)![1]!;
  } catch {
    throw new Error("valgrind is required by this test: `bash runner-setup/install-deps.sh` installs it");
  }
}

export function requireBuild(): void {
  if (!existsSync(join(ROOT, "dist", "cli.mjs"))) {
    throw new Error("dist/cli.mjs is missing: run `npm run build` (npm test does it first)");
  }
}

/** PIDs of processes whose command line contains `needle` (for leak checks). */
export function processesMatching(needle: string): string[] {
  try {
    const out = execFileSync("pgrep", ["-a", "-f", "--", needle], { encoding: "utf8" });
    return out.split("\n").filter((l) => l.trim() !== "" && !l.includes("pgrep"));
  } catch {
    return [];
  }
}
