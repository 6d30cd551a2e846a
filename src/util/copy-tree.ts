/** Copying a directory tree: what a dataset snapshot and a restored datadir are made with. */
import { runChecked } from "./processes.js";

/**
 * Copies `from` to `to` (which must not exist): `cp -a` keeps modes and times; `--reflink=auto`
 * shares blocks on btrfs/xfs and copies elsewhere.
 */
export async function copyTree(from: string, to: string, signal?: AbortSignal): Promise<void> {
  await runChecked("cp", ["-a", "--reflink=auto", "--", from, to], signal ? { signal } : {});
}
