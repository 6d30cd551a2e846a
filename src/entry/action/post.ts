/**
 * The action's post step (bundled to action/dist/post.mjs). It runs after the job's steps even
 * when the main step failed or was cancelled, and kills any mysqld or sysbench the main step
 * started that is still alive (src/entry/action/cleanup.ts). With no saved state (compare mode, or main
 * never got that far) it does nothing. It never fails the job.
 */
import * as core from "@actions/core";
import { killLeftovers } from "./cleanup.js";
import { STATE } from "./constants.js";

async function post(): Promise<void> {
  const runId = core.getState(STATE.runId);
  if (runId === "") {
    core.info("perfgate post: nothing to clean up");
    return;
  }
  const pids = core
    .getState(STATE.pids)
    .split(",")
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n > 1);
  const killed = await killLeftovers(pids, runId, (m) => core.info(m));
  core.info(
    killed.length === 0
      ? "perfgate post: no leftover processes"
      : `perfgate post: stopped ${killed.length} leftover process(es)`,
  );
  const workDir = core.getState(STATE.workDir);
  if (workDir !== "") core.info(`perfgate post: server logs and datadirs are in ${workDir}`);
}

post().catch((err: unknown) => {
  core.warning(`perfgate post: ${err instanceof Error ? err.message : String(err)}`);
});
