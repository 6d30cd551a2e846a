/**
 * The history store as a folder: `runs/<id>.json` (one compact file per run, never edited) and
 * `index.json` (every run, oldest first). The index is derived from the run files: an append
 * adds its entry and picks up any run file the index lacks, so it heals itself. Appends from
 * several processes to one folder are serialized by a lock file around the index update.
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../results/store.js";
import { parseJson, readTextFile, validateDocument } from "../util/documents.js";
import { UserError } from "../util/errors.js";
import {
  HISTORY_INDEX_SCHEMA,
  HISTORY_RUN_SCHEMA,
  HISTORY_RUN_SCHEMA_VERSIONS,
  HISTORY_SCHEMA_VERSION,
  type HistoryIndex,
  HistoryIndexSchema,
  type HistoryRun,
  HistoryRunSchema,
  type IndexEntry,
} from "./schema.js";

export const INDEX_FILE = "index.json";
export const RUNS_DIR = "runs";
const LOCK_FILE = ".index.lock";
const LOCK_STALE_MS = 60_000;

export function runPath(root: string, id: string): string {
  return join(root, RUNS_DIR, `${id}.json`);
}

export function parseHistoryRun(data: unknown, where: string): HistoryRun {
  return validateDocument(data, where, {
    schema: HISTORY_RUN_SCHEMA,
    version: HISTORY_RUN_SCHEMA_VERSIONS,
    zod: HistoryRunSchema,
  });
}

export function readRun(root: string, id: string): HistoryRun {
  const path = runPath(root, id);
  if (!existsSync(path)) throw new UserError(`run ${id}: not in the store (see perfgate history list)`);
  return parseHistoryRun(parseJson(readTextFile(path), path), path);
}

export function entryOf(run: HistoryRun): IndexEntry {
  return {
    id: run.id,
    date: run.date,
    commit: run.commit,
    branch: run.branch,
    runner_class: run.runner_class,
    matrix: run.matrix,
    workload: run.workload.name,
    // an imported github-action-benchmark run has a tool, not a server version: its spec (gab:go)
    servers: run.servers.map((s) => (s.version === "" ? s.spec : `${s.flavor}@${s.version}`)),
    cells: run.cells.length,
  };
}

function byDate(a: IndexEntry, b: IndexEntry): number {
  return a.date < b.date ? -1 : a.date > b.date ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The index as stored (empty when the store is new). */
export function readIndex(root: string): HistoryIndex {
  const path = join(root, INDEX_FILE);
  if (!existsSync(path)) return emptyIndex();
  return validateDocument(parseJson(readTextFile(path), path), path, {
    schema: HISTORY_INDEX_SCHEMA,
    version: HISTORY_SCHEMA_VERSION,
    zod: HistoryIndexSchema,
  });
}

function emptyIndex(): HistoryIndex {
  return { schema: HISTORY_INDEX_SCHEMA, schema_version: HISTORY_SCHEMA_VERSION, runs: [] };
}

function runIdsOnDisk(root: string): string[] {
  const dir = join(root, RUNS_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json") && !f.startsWith("."))
    .map((f) => f.slice(0, -5));
}

/** Index entries for exactly the run files present (old entries kept, missing ones read). */
export function rebuildIndex(root: string): HistoryIndex {
  let old: HistoryIndex;
  try {
    old = readIndex(root);
  } catch {
    old = emptyIndex(); // a damaged index is rebuilt from the run files
  }
  const known = new Map(old.runs.map((e) => [e.id, e]));
  const runs = runIdsOnDisk(root).map((id) => known.get(id) ?? entryOf(readRun(root, id)));
  runs.sort(byDate);
  const index: HistoryIndex = { ...emptyIndex(), runs };
  writeFileAtomic(join(root, INDEX_FILE), `${JSON.stringify(index, null, 1)}\n`);
  return index;
}

async function withLock<T>(root: string, fn: () => T): Promise<T> {
  const lock = join(root, LOCK_FILE);
  const deadline = Date.now() + 5 * LOCK_STALE_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, "wx"));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      try {
        if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) rmSync(lock, { force: true });
      } catch {
        // released meanwhile
      }
      if (Date.now() > deadline) throw new UserError(`${lock}: held by another process for too long`);
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 80));
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

export interface AppendOutcome {
  id: string;
  added: boolean;
}

/** Writes the run file (unless the id is there already) and updates the index. */
export function appendToFolderSync(root: string, run: HistoryRun): AppendOutcome {
  const path = runPath(root, run.id);
  const added = !existsSync(path);
  if (added) writeFileAtomic(path, `${JSON.stringify(run)}\n`);
  rebuildIndex(root);
  return { id: run.id, added };
}

/** Several runs at once (an imported history): every run file, then one index update. */
export function appendManyToFolderSync(root: string, runs: readonly HistoryRun[]): AppendOutcome[] {
  const outcomes = runs.map((run) => {
    const path = runPath(root, run.id);
    const added = !existsSync(path);
    if (added) writeFileAtomic(path, `${JSON.stringify(run)}\n`);
    return { id: run.id, added };
  });
  rebuildIndex(root);
  return outcomes;
}

export function appendManyToFolder(root: string, runs: readonly HistoryRun[]): Promise<AppendOutcome[]> {
  return withLock(ensureDir(root), () => appendManyToFolderSync(root, runs));
}

export function appendToFolder(root: string, run: HistoryRun): Promise<AppendOutcome> {
  return withLock(ensureDir(root), () => appendToFolderSync(root, run));
}

function ensureDir(root: string): string {
  if (existsSync(root) && !statSync(root).isDirectory()) {
    throw new UserError(`--store ${root}: not a directory`);
  }
  mkdirSync(root, { recursive: true });
  return root;
}

export interface PruneRule {
  keep?: number;
  maxAgeDays?: number;
  now?: Date;
}

/** The runs a rule removes: all but the newest `keep`, and those older than `maxAgeDays`. */
export function runsToPrune(index: HistoryIndex, rule: PruneRule): IndexEntry[] {
  const now = (rule.now ?? new Date()).getTime();
  const runs = index.runs;
  const cut = rule.keep !== undefined ? Math.max(0, runs.length - rule.keep) : 0;
  return runs.filter((e, i) => {
    if (i < cut) return true;
    if (rule.maxAgeDays === undefined) return false;
    return now - new Date(e.date).getTime() > rule.maxAgeDays * 86_400_000;
  });
}

export function pruneFolderSync(root: string, rule: PruneRule): IndexEntry[] {
  const gone = runsToPrune(readIndex(root), rule);
  for (const e of gone) rmSync(runPath(root, e.id), { force: true });
  if (gone.length > 0 || existsSync(join(root, RUNS_DIR))) rebuildIndex(root);
  return gone;
}

export function pruneFolder(root: string, rule: PruneRule): Promise<IndexEntry[]> {
  if (!existsSync(join(root, INDEX_FILE))) return Promise.resolve([]);
  return withLock(root, () => pruneFolderSync(root, rule));
}

/** Every run of the store, oldest first (reads each run file). */
export function readAllRuns(root: string): HistoryRun[] {
  return readIndex(root).runs.map((e) => readRun(root, e.id));
}
