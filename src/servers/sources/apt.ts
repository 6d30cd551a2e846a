/**
 * apt states the deb source reads package indexes from: the host's own (as configured), and one
 * private state per extra Debian suite under `<cache>/apt/<suite>/` — its own one-line sources
 * list, lists and archive directories, passed to apt-get/apt-cache with `-o Dir::…` options. The
 * system's sources, lists and installed packages are never changed; a private index is refreshed
 * when missing or older than a day (Debian's mirrors only keep a suite's current versions).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { runChecked } from "../../util/processes.js";
import { withLock } from "../cache.js";

/** Debian suites searched after the host's own sources, in order. */
export const DEB_SUITES = ["sid"] as const;

export const DEBIAN_KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg";
const DEFAULT_MIRROR = "http://deb.debian.org/debian";
const MAX_AGE_MS = 24 * 3600 * 1000;

export interface AptState {
  /** `host` for the system's own sources, else the Debian suite name */
  suite: string;
  /** extra apt-get/apt-cache arguments selecting this state */
  args: string[];
  /** makes sure the index is there and fresh enough (no-op for the host's) */
  ready(log: Logger, signal?: AbortSignal): Promise<void>;
}

/**
 * The Debian mirror the host's apt already uses (the first `…/debian` URI in its sources), so a
 * private suite goes through the same proxy/mirror; PERFGATE_DEBIAN_MIRROR overrides it.
 */
export function debianMirror(env: NodeJS.ProcessEnv = process.env, etc = "/etc/apt"): string {
  if (env.PERFGATE_DEBIAN_MIRROR) return env.PERFGATE_DEBIAN_MIRROR.replace(/\/+$/, "");
  const files = [join(etc, "sources.list")];
  const parts = join(etc, "sources.list.d");
  if (existsSync(parts)) files.push(...readdirSync(parts).map((f) => join(parts, f)));
  for (const file of files) {
    if (!/(\.list|\.sources|sources\.list)$/.test(file) || !existsSync(file)) continue;
    const m = /(https?:\/\/\S+\/debian)\/?(?:\s|$)/m.exec(readFileSync(file, "utf8"));
    if (m?.[1]) return m[1];
  }
  return DEFAULT_MIRROR;
}

/** The one-line sources entry of a private suite. */
export function suiteSourcesLine(mirror: string, suite: string, keyring = DEBIAN_KEYRING): string {
  return `deb [signed-by=${keyring}] ${mirror} ${suite} main`;
}

/** apt options that point every directory apt reads or writes at the private state in `dir`. */
export function privateAptArgs(dir: string): string[] {
  return [
    "-o",
    `Dir::Etc::sourcelist=${join(dir, "sources.list")}`,
    "-o",
    "Dir::Etc::sourceparts=/dev/null",
    "-o",
    `Dir::State::Lists=${join(dir, "lists")}`,
    "-o",
    `Dir::Cache=${join(dir, "cache")}`,
    // only the package index: no translations, no AppStream metadata
    "-o",
    "Acquire::Languages=none",
    "-o",
    "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false",
    "-o",
    "Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false",
    "-o",
    "Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false",
  ];
}

function indexAge(dir: string): number {
  const lists = join(dir, "lists");
  if (!existsSync(lists)) return Number.POSITIVE_INFINITY;
  const packages = readdirSync(lists).filter((f) => f.includes("_Packages"));
  if (packages.length === 0) return Number.POSITIVE_INFINITY;
  return Date.now() - Math.min(...packages.map((f) => statSync(join(lists, f)).mtimeMs));
}

function privateState(cacheDir: string, suite: string): AptState {
  const dir = join(cacheDir, "apt", suite);
  const args = privateAptArgs(dir);
  return {
    suite,
    args,
    async ready(log, signal) {
      if (indexAge(dir) < MAX_AGE_MS) return;
      await withLock(
        dir,
        async () => {
          if (indexAge(dir) < MAX_AGE_MS) return;
          if (!existsSync(DEBIAN_KEYRING)) {
            throw new UserError(
              `deb source, suite ${suite}: ${DEBIAN_KEYRING} is missing; install the debian-archive-keyring package`,
            );
          }
          mkdirSync(join(dir, "lists", "partial"), { recursive: true });
          mkdirSync(join(dir, "cache", "archives", "partial"), { recursive: true });
          writeFileSync(join(dir, "sources.list"), `${suiteSourcesLine(debianMirror(), suite)}\n`);
          log.info(`updating the private apt index for Debian ${suite} (${join(dir, "lists")})`);
          const t0 = Date.now();
          await runChecked("apt-get", [...args, "-q", "update"], signal ? { signal } : {});
          log.info(`Debian ${suite} index ready in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
        },
        log,
      );
    },
  };
}

/** The host's apt state, then one private state per DEB_SUITES entry. */
export function aptStates(cacheDir: string): AptState[] {
  const host: AptState = { suite: "host", args: [], ready: async () => {} };
  return [host, ...DEB_SUITES.map((s) => privateState(cacheDir, s))];
}
