/**
 * The commit a run measured, from what was measured: a server built from source (`build:` spec)
 * records its commit in its spec (`build:<repo>@<40 hex>`). Binaries (release tarballs, packages,
 * containers) measure no commit of any repository perfgate can see, so a run of them has none
 * unless the user or the workflow's event says which. Pure.
 */

/** What a run without a known commit records as its commit (docs/history.md). */
export const NO_COMMIT = "";

const BUILD_COMMIT_RE = /^build:.*@([0-9a-f]{40})$/;

/** The one commit the runs' build: servers were built from; null when none (or several) are builds. */
export function measuredCommit(servers: readonly { spec: string }[]): string | null {
  const commits = new Set<string>();
  for (const s of servers) {
    const m = BUILD_COMMIT_RE.exec(s.spec);
    if (m) commits.add(m[1]!);
  }
  return commits.size === 1 ? [...commits][0]! : null;
}

/** How a point without a commit is labelled on pages and in change ranges: server version and date. */
export function pointLabel(run: {
  commit: string;
  date: string;
  servers: readonly { version: string }[];
}): string {
  if (run.commit !== NO_COMMIT) return run.commit;
  return `${run.servers[0]?.version || "?"} ${run.date.slice(0, 10)}`;
}

/** The commit as a short text for lists and messages: 12 characters, or "no commit". */
export function shortCommitText(commit: string): string {
  return commit === NO_COMMIT ? "no commit" : commit.slice(0, 12);
}
