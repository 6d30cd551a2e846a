/**
 * The bisect tests' git repository: 32 commits whose trees hold a server-options file
 * (server.opts); commit 0 has the options before, commit `planted` those after, the others change
 * only a notes file. A `--provision` of `echo "<spec> $(cat server.opts)"` maps each commit to a
 * server with its options.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const PLANTED = 19;

/** The durability change of the tps test: costs a write workload most of its throughput. */
export const DURABILITY = {
  before: "innodb_flush_log_at_trx_commit=0 sync_binlog=0",
  after: "innodb_flush_log_at_trx_commit=1 sync_binlog=1",
  subject: "durable commits",
};

/** `count` commits (32): commit 0 has the options before, commit `planted` those after, the rest notes only. */
export function plantedRepo(
  dir: string,
  opts: { before: string; after: string; subject: string } = DURABILITY,
  planted = PLANTED,
  count = 32,
): void {
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "pipe" });
  git("init", "-q", "-b", "main", ".");
  git("config", "user.email", "dev@example.org");
  git("config", "user.name", "Dev One");
  writeFileSync(join(dir, "server.opts"), `${opts.before}\n`);
  git("add", "-A");
  git("commit", "-q", "-m", "commit 0: the good one");
  for (let i = 1; i < count; i++) {
    writeFileSync(join(dir, "notes.txt"), `change ${i}\n`);
    if (i === planted) writeFileSync(join(dir, "server.opts"), `${opts.after}\n`);
    git("add", "-A");
    git("commit", "-q", "-m", i === planted ? `commit ${i}: ${opts.subject}` : `commit ${i}`);
  }
}
