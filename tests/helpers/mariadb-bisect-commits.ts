/**
 * 16 synthetic commits on top of a MariaDB release tag, for the slow bisect test
 * (tests/bisect-build-slow.test.ts). One of them adds CPU work to every statement in the server's
 * C++ (a loop over a volatile counter at the top of `mysql_execute_command` in sql/sql_parse.cc);
 * the others change a comment at the top of a small sql/*.cc file (so the server is recompiled and
 * relinked, with no change in behaviour) or a documentation file (nothing to rebuild).
 *
 * The commits are written with git plumbing through a temporary index: the repository's checkout,
 * index and HEAD are not touched. Author, committer and dates are fixed, so the same tag always
 * gives the same commit ids, and the branch is simply moved to them again.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Index (1-16, the tag being 0) of the commit that adds work per statement. */
export const PLANTED_AT = 11;
export const COMMITS = 16;

/** Iterations of the planted loop: several thousand instructions per statement, a clear share of a point select. */
const LOOP = 1000;

/** Where each harmless commit writes: small server sources (rebuild) and documentation (none). */
const HARMLESS = [
  "sql/sql_mode.cc",
  "README.md",
  "sql/hash_filo.cc",
  "sql/sql_do.cc",
  "CREDITS",
  "sql/sql_list.cc",
  "sql/sql_crypt.cc",
  "THIRDPARTY",
  "sql/rpl_reporting.cc",
  "sql/thr_malloc.cc",
  "CONTRIBUTING.md",
  "sql/procedure.cc",
  "Docs/myisam.txt",
  "sql/sql_analyze_stmt.cc",
  "Docs/INSTALL-BINARY",
];

const ANCHOR = "int\nmysql_execute_command(THD *thd, bool is_called_from_prepared_stmt)\n{\n";

/** The planted change: the anchor followed by a loop whose counter the compiler may not drop. */
export function plantWork(sqlParse: string): string {
  if (!sqlParse.includes(ANCHOR)) throw new Error("sql/sql_parse.cc: mysql_execute_command not found");
  const work = [
    "  /* Extra work per statement (a planted regression for perfgate's bisect test). */",
    "  {",
    "    volatile ulonglong planted_work= 0;",
    `    for (uint planted_i= 0; planted_i < ${LOOP}; planted_i++)`,
    "      planted_work+= planted_i;",
    "  }",
    "",
  ].join("\n");
  return sqlParse.replace(ANCHOR, `${ANCHOR}${work}`);
}

function harmlessEdit(path: string, text: string, i: number): string {
  const note = `commit ${i} of perfgate's bisect test: no change in behaviour`;
  return path.endsWith(".cc") ? `/* ${note} */\n${text}` : `${text}\n${note}\n`;
}

/**
 * Writes the commits on top of `tag` and points `branch` at the last; returns the 17 commit ids,
 * the tag's first. Each commit's subject says what it changes.
 */
export function plantMariadbCommits(repo: string, tag: string, branch: string): string[] {
  const index = join(mkdtempSync(join(tmpdir(), "pg-bisect-index-")), "index");
  const env = {
    ...process.env,
    GIT_INDEX_FILE: index,
    GIT_AUTHOR_NAME: "perfgate",
    GIT_AUTHOR_EMAIL: "perfgate@localhost",
    GIT_COMMITTER_NAME: "perfgate",
    GIT_COMMITTER_EMAIL: "perfgate@localhost",
  };
  const raw = (args: string[], input?: string) =>
    execFileSync("git", ["-c", "core.hooksPath=/dev/null", ...args], {
      cwd: repo,
      env,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      ...(input !== undefined ? { input } : {}),
    });
  const git = (args: string[], input?: string) => raw(args, input).trim();
  try {
    const shas = [git(["rev-parse", `${tag}^{commit}`])];
    git(["read-tree", shas[0]!]);
    for (let i = 1; i <= COMMITS; i++) {
      const planted = i === PLANTED_AT;
      const path = planted ? "sql/sql_parse.cc" : HARMLESS[i < PLANTED_AT ? i - 1 : i - 2]!;
      const before = raw(["show", `${shas[i - 1]}:${path}`]);
      const after = planted ? plantWork(before) : harmlessEdit(path, before, i);
      const blob = git(["hash-object", "-w", "--stdin"], after);
      git(["update-index", "--cacheinfo", `100644,${blob},${path}`]);
      const tree = git(["write-tree"]);
      const subject = planted
        ? `commit ${i}: extra work per statement in mysql_execute_command`
        : `commit ${i}: comment in ${path}`;
      const date = `2000-01-03T00:${String(i).padStart(2, "0")}:00Z`;
      const sha = execFileSync("git", ["commit-tree", tree, "-p", shas[i - 1]!, "-m", subject], {
        cwd: repo,
        env: { ...env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
        encoding: "utf8",
      }).trim();
      shas.push(sha);
    }
    git(["update-ref", `refs/heads/${branch}`, shas[COMMITS]!]);
    return shas;
  } finally {
    rmSync(join(index, ".."), { recursive: true, force: true });
  }
}
