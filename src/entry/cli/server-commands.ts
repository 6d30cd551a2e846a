/**
 * `perfgate server fetch [--force]`, `perfgate server list` and `perfgate server verify`: fill the
 * server cache, list what is in it, and check unpacked servers against the file manifests written
 * when they were unpacked.
 */
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { plainText } from "../../output/report/escape.js";
import { cacheRoot, installDir, removeInstallDir, verifyInstallDir } from "../../servers/cache.js";
import { type CachedServer, listCachedServers } from "../../servers/list.js";
import { resolveServer } from "../../servers/resolve.js";
import { parseServerSpec, VERSIONED_SOURCES } from "../../servers/spec.js";
import { errorMessage, UsageError } from "../../util/errors.js";
import { consoleLogger, type Logger } from "../../util/log.js";
import { writeOut } from "../../util/terminal.js";
import { cliOption } from "../options/commander.js";
import { CACHE_DIR, FORCE, TEXT_OR_JSON } from "../options/definitions.js";

/** Removes the cached installs a versioned spec can resolve to, so fetch unpacks them afresh. */
async function forget(raw: string, cacheDir: string, log: Logger): Promise<void> {
  const spec = parseServerSpec(raw);
  if (spec.kind !== "versioned") {
    throw new UsageError(
      `--force ${raw}: only for [source:]flavor@X.Y.Z specs; a build: or path: install is removed by deleting its directory`,
    );
  }
  for (const source of spec.source ? [spec.source] : VERSIONED_SOURCES) {
    const dir = installDir(cacheDir, source, spec.flavor, spec.version);
    if (await removeInstallDir(dir, log)) log.info(`removed ${dir}`);
  }
}

/** Install directories in the cache (those holding an install record). */
function cachedInstallDirs(cacheDir: string): string[] {
  const servers = join(cacheDir, "servers");
  if (!existsSync(servers)) return [];
  return readdirSync(servers)
    .filter((name) => !/\.(tmp-\d+|lock)$/.test(name)) // an unpack in progress, a lock
    .map((name) => join(servers, name))
    .filter((dir) => existsSync(join(dir, "perfgate-install.json")));
}

function verifyDirs(dirs: string[]): number {
  let bad = 0;
  for (const dir of dirs) {
    try {
      const r = verifyInstallDir(dir);
      writeOut(
        `${r.state === "intact" ? "ok" : "recorded"} ${dir} (${r.files} entries, ${r.ms.toFixed(0)} ms)\n`,
      );
    } catch (err) {
      bad++;
      writeOut(`refused ${dir}: ${errorMessage(err)}\n`);
    }
  }
  return bad;
}

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** One server: spec, source, size and checksum on its line; where it came from below. */
function serverText(s: CachedServer): string[] {
  const head = `${plainText(s.spec)}  ${plainText(s.source ?? "?")}  ${megabytes(s.bytes)}  sha256 ${s.sha256 ?? "none (a build)"}`;
  const files = `${s.files} file${s.files === 1 ? "" : "s"}`;
  const when = s.unpacked_at ? `, unpacked ${s.unpacked_at.slice(0, 10)}` : "";
  const lines = [head, `  from ${plainText(s.origin ?? "?")} (${files}${when})`];
  if (s.error) lines.push(`  record: ${plainText(s.error)}`);
  if (s.manifest !== "ok")
    lines.push(`  manifest: ${s.manifest}; perfgate server verify ${plainText(s.dir)} says more`);
  return lines;
}

function listText(cacheDir: string, list: CachedServer[]): string {
  const dir = join(cacheDir, "servers");
  if (list.length === 0) return `No servers in ${dir} (perfgate server fetch <spec> adds one)\n`;
  const total = list.reduce((n, s) => n + s.bytes, 0);
  const lines = list.flatMap(serverText);
  lines.push(
    `${list.length} server${list.length === 1 ? "" : "s"}, ${megabytes(total)} in ${dir} (perfgate server verify checks their files)`,
  );
  return `${lines.join("\n")}\n`;
}

export function registerServerCommands(program: Command): void {
  const server = program
    .command("server")
    .description("Server binaries: fetch into the cache, list the cache, verify the cache.");
  server
    .command("fetch")
    .description("Download, verify and unpack a server into the cache (what run does first).")
    .argument(
      "<spec>",
      "server spec, e.g. mariadb@11.4.5, deb:mariadb@10.11.18, tarball:mysql@8.4.3, build:/src/mariadb@HEAD",
    )
    .addOption(cliOption(CACHE_DIR))
    .addOption(
      cliOption(FORCE, {
        help: "remove the unpacked install first and unpack it again from the verified download",
      }),
    )
    .action(async (spec: string, o: { cacheDir?: string; force?: boolean }) => {
      const log = consoleLogger();
      if (o.force) await forget(spec, o.cacheDir ?? cacheRoot(), log);
      const install = await resolveServer(spec, { log, ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}) });
      writeOut(`${install.spec} ${install.basedir}\n`);
    });
  server
    .command("list")
    .description(
      "The servers in the cache: spec, source, size, the downloaded artifact's sha256 and where it came from (from the install records and file manifests; nothing is re-hashed).",
    )
    .addOption(cliOption(CACHE_DIR))
    .addOption(cliOption(TEXT_OR_JSON))
    .action((o: { cacheDir?: string; format: "text" | "json" }) => {
      const cacheDir = resolve(o.cacheDir ?? cacheRoot());
      const list = listCachedServers(cacheDir);
      writeOut(
        o.format === "json"
          ? `${JSON.stringify({ cache: cacheDir, servers: list }, null, 2)}\n`
          : listText(cacheDir, list),
      );
    });
  server
    .command("verify")
    .description(
      "Check unpacked servers against their file manifests (all in the cache, or the directories given); exit 1 if any was tampered with.",
    )
    .argument("[dirs...]", "install directories (default: every install under <cache>/servers)")
    .addOption(cliOption(CACHE_DIR))
    .action((dirs: string[], o: { cacheDir?: string }) => {
      const list =
        dirs.length > 0 ? dirs.map((d) => resolve(d)) : cachedInstallDirs(o.cacheDir ?? cacheRoot());
      for (const d of list) {
        if (!existsSync(join(d, "perfgate-install.json"))) {
          throw new UsageError(`server verify ${d}: not an unpacked server (no perfgate-install.json in it)`);
        }
      }
      if (verifyDirs(list) > 0) process.exitCode = 1;
    });
}
