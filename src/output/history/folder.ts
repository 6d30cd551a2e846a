/**
 * The history store as a folder: `runs/<id>.json` (one compact file per run, never edited) and
 * `index.json` (every run, oldest first). The index is derived from the run files: an append
 * adds its entry and picks up any run file the index lacks, so it heals itself. Appends from
 * several processes to one folder are serialized by a lock file around the index update.
 */
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseJson, validateDocument } from "../../util/documents.js";
import { OptionError, UserError } from "../../util/errors.js";
import { type LockNote, withLock } from "./lock.js";
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
  RUN_ID_RE,
} from "./schema.js";
import {
  listStoreDir,
  readStoreText,
  removeStoreFile,
  storeFileExists,
  writeStoreText,
} from "./store-files.js";

export const INDEX_FILE = "index.json";
export const RUNS_DIR = "runs";
/** A run dated more than this ahead of the appending machine's clock is refused (docs/decisions). */
export const FUTURE_TOLERANCE_MS = 10 * 60_000;

export function runPath(root: string, id: string): string {
  return join(root, RUNS_DIR, `${id}.json`);
}

function runRel(id: string): string {
  return `${RUNS_DIR}/${id}.json`;
}

export function parseHistoryRun(data: unknown, where: string): HistoryRun {
  return validateDocument(data, where, {
    schema: HISTORY_RUN_SCHEMA,
    version: HISTORY_RUN_SCHEMA_VERSIONS,
    zod: HistoryRunSchema,
  });
}

/** A run file; its id must be its file name (a copy under another name would count twice). */
export function readRun(root: string, id: string): HistoryRun {
  const path = runPath(root, id);
  const text = readStoreText(root, runRel(id));
  if (text === null) {
    throw new UserError(
      `${path}: no such file, but ${INDEX_FILE} lists run ${id}; put the file back, or drop the run from ${INDEX_FILE} with perfgate history prune --run ${id}`,
    );
  }
  const run = parseHistoryRun(parseJson(text, path), path);
  if (run.id !== id) {
    throw new UserError(
      `${path}: holds run ${run.id}; a run file is named after its id, so this copy would count that run twice (remove it)`,
    );
  }
  return run;
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

/**
 * The index: index.json, or, when there is none, the index derived from the run files in runs/
 * (empty when the store is new). A store whose index.json was lost reads as the runs it holds.
 */
export function readIndex(root: string): HistoryIndex {
  return storedIndex(root) ?? derivedIndex(root, new Map());
}

/** index.json as stored, checked; null when there is none. */
function storedIndex(root: string): HistoryIndex | null {
  const path = join(root, INDEX_FILE);
  const text = readStoreText(root, INDEX_FILE);
  if (text === null) return null;
  let index: HistoryIndex;
  try {
    index = validateDocument(parseJson(text, path), path, {
      schema: HISTORY_INDEX_SCHEMA,
      version: HISTORY_SCHEMA_VERSION,
      zod: HistoryIndexSchema,
    });
  } catch (err) {
    // one of a newer perfgate is for that perfgate to read, not to remove
    if (!(err instanceof UserError) || /schema_version .* is not supported/.test(err.message)) throw err;
    throw new UserError(
      `${err.message} (if this is a history store, remove ${INDEX_FILE}: it is derived from ${RUNS_DIR}/ and read from the run files without it)`,
    );
  }
  const seen = new Set<string>();
  for (const e of index.runs) {
    if (seen.has(e.id)) throw new UserError(`${path}: run ${e.id} is listed twice (ids are unique)`);
    seen.add(e.id);
  }
  return index;
}

/** The index of exactly the run files present, oldest first; `known` entries are kept, the others read. */
function derivedIndex(root: string, known: ReadonlyMap<string, IndexEntry>): HistoryIndex {
  const runs = runIdsOnDisk(root).map((id) => known.get(id) ?? entryOf(readRun(root, id)));
  runs.sort(byDate);
  return { ...emptyIndex(), runs };
}

function emptyIndex(): HistoryIndex {
  return { schema: HISTORY_INDEX_SCHEMA, schema_version: HISTORY_SCHEMA_VERSION, runs: [] };
}

/** The run ids of the files in runs/; a file named otherwise is an error naming it. */
function runIdsOnDisk(root: string): string[] {
  const names = listStoreDir(root, RUNS_DIR).filter((f) => !f.startsWith("."));
  return names.map((f) => {
    const id = f.endsWith(".json") ? f.slice(0, -5) : "";
    if (!RUN_ID_RE.test(id)) {
      throw new UserError(
        `${join(root, RUNS_DIR, f)}: not a run file name (accepted: <yyyymmddThhmmssZ>-<10 hex digits>.json)`,
      );
    }
    return id;
  });
}

/**
 * Writes index.json for exactly the run files present (old entries kept, missing ones read). An
 * index.json that is not a history index is refused as a read refuses it, never overwritten: it
 * may be someone else's file in a folder named by mistake.
 */
export function rebuildIndex(root: string): HistoryIndex {
  const old = storedIndex(root)?.runs ?? [];
  const index = derivedIndex(root, new Map(old.map((e) => [e.id, e])));
  writeStoreText(root, INDEX_FILE, `${JSON.stringify(index, null, 1)}\n`);
  return index;
}

export interface AppendOutcome {
  id: string;
  added: boolean;
  /** the run already there (added false), as the index lists it: its commit, branch, date, … */
  stored?: IndexEntry;
}

/**
 * A run dated more than FUTURE_TOLERANCE_MS ahead of `now` is refused: it would be "0 days old"
 * forever, always among the newest runs and never pruned by age.
 */
export function checkRunDate(run: HistoryRun, now = Date.now()): void {
  const t = new Date(run.date).getTime();
  if (Number.isNaN(t)) throw new UserError(`run ${run.id}: date ${JSON.stringify(run.date)} is not a date`);
  if (t > now + FUTURE_TOLERANCE_MS) {
    throw new UserError(
      `run ${run.id}: dated ${run.date}, in the future (now ${new Date(now).toISOString()}); give the date it was measured (--date) or fix the clock`,
    );
  }
}

/** The hash of the source file in a run id: its 10 hex digits after the date. */
const fileHashOf = (id: string) => id.slice(-10);

/**
 * The run of the store made from the same file as `run`, whatever its date (`--date` changes the
 * id's date, not the file): one whose id ends in the same hash and, when both record the file's
 * whole SHA-256 (`raw`), the same one; null when there is none.
 */
function sameFileRun(root: string, run: HistoryRun, byHash: ReadonlyMap<string, string[]>): string | null {
  for (const id of byHash.get(fileHashOf(run.id)) ?? []) {
    if (id === run.id) return id;
    const there = readRun(root, id).raw?.sha256;
    if (there === undefined || run.raw === undefined || there === run.raw.sha256) return id;
  }
  return null;
}

/**
 * Writes the run files (those not there yet: no run of that id, nor one made from the same file
 * under another date) and updates the index. Every run is checked first against the schema a
 * reader checks it with (caps, dates, intervals), so nothing is written that the store would
 * refuse to read back. On any failure (a full disk, a bad run file found by the index rebuild)
 * the files this call wrote are removed again, so a later rebuild does not pick
 * them up.
 */
export function appendManyToFolderSync(root: string, runs: readonly HistoryRun[]): AppendOutcome[] {
  for (const run of runs) {
    parseHistoryRun(run, `run ${run.id}`);
    checkRunDate(run);
  }
  storedIndex(root); // an index.json that is not a history index is refused before anything is written
  const written: string[] = [];
  const byHash = new Map<string, string[]>();
  for (const id of runIdsOnDisk(root))
    byHash.set(fileHashOf(id), [...(byHash.get(fileHashOf(id)) ?? []), id]);
  try {
    const outcomes = runs.map((run) => {
      const there = sameFileRun(root, run, byHash);
      if (there !== null) return { id: there, added: false, stored: entryOf(readRun(root, there)) };
      written.push(run.id);
      writeStoreText(root, runRel(run.id), `${JSON.stringify(run)}\n`);
      byHash.set(fileHashOf(run.id), [...(byHash.get(fileHashOf(run.id)) ?? []), run.id]);
      return { id: run.id, added: true };
    });
    rebuildIndex(root);
    return outcomes;
  } catch (err) {
    for (const id of written) removeStoreFile(root, runRel(id));
    throw err;
  }
}

/** One run: appendManyToFolderSync of one. */
export function appendToFolderSync(root: string, run: HistoryRun): AppendOutcome {
  return appendManyToFolderSync(root, [run])[0]!;
}

export function appendManyToFolder(
  root: string,
  runs: readonly HistoryRun[],
  note?: LockNote,
): Promise<AppendOutcome[]> {
  return withLock(ensureDir(root), () => appendManyToFolderSync(root, runs), note);
}

export function appendToFolder(root: string, run: HistoryRun, note?: LockNote): Promise<AppendOutcome> {
  return withLock(ensureDir(root), () => appendToFolderSync(root, run), note);
}

function ensureDir(root: string): string {
  if (statSync(root, { throwIfNoEntry: false })?.isDirectory() === false) {
    throw new OptionError(`{store} ${root}: not a directory`, ["store"]);
  }
  mkdirSync(root, { recursive: true });
  return root;
}

/** Is there a store at `root` (an index or a runs folder)? */
export function isStore(root: string): boolean {
  return storeFileExists(root, INDEX_FILE) || storeFileExists(root, RUNS_DIR);
}

/**
 * What an append finds at `root`: a store, nothing (no folder, or one holding only hidden entries
 * such as `.git` or the lock), or other files and no store (a folder that is not a store).
 */
export function folderState(root: string): "store" | "none" | "other" {
  if (statSync(root, { throwIfNoEntry: false })?.isDirectory() !== true) return "none";
  if (isStore(root)) return "store";
  return readdirSync(root).some((name) => !name.startsWith(".")) ? "other" : "none";
}

export interface PruneRule {
  keep?: number;
  maxAgeDays?: number;
  /** these runs, by id (each must be in the index) */
  runs?: readonly string[];
  now?: Date;
}

/**
 * The runs a rule removes: all but the newest `keep`, those older than `maxAgeDays`, and those
 * named in `runs` (an id the index does not list is an error naming it). With
 * `maxAgeDays`, a run dated in the future (beyond FUTURE_TOLERANCE_MS; appended by an older
 * perfgate or by hand) goes too: its age is unknown, and it would otherwise never age out.
 */
export function runsToPrune(index: HistoryIndex, rule: PruneRule): IndexEntry[] {
  const now = (rule.now ?? new Date()).getTime();
  const runs = index.runs;
  const cut = rule.keep !== undefined ? Math.max(0, runs.length - rule.keep) : 0;
  const named = new Set(rule.runs ?? []);
  for (const id of named) {
    if (!runs.some((e) => e.id === id))
      throw new UserError(`run ${id}: not in the store (give a whole run id as history list prints it)`);
  }
  return runs.filter((e, i) => {
    if (i < cut || named.has(e.id)) return true;
    if (rule.maxAgeDays === undefined) return false;
    const t = new Date(e.date).getTime();
    return now - t > rule.maxAgeDays * 86_400_000 || t > now + FUTURE_TOLERANCE_MS;
  });
}

export function pruneFolderSync(root: string, rule: PruneRule): IndexEntry[] {
  const gone = runsToPrune(readIndex(root), rule);
  for (const e of gone) removeStoreFile(root, runRel(e.id));
  rebuildIndex(root);
  return gone;
}

export function pruneFolder(root: string, rule: PruneRule, note?: LockNote): Promise<IndexEntry[]> {
  return withLock(root, () => pruneFolderSync(root, rule), note);
}

/**
 * The index with every entry made again from its run file (read and checked): what `history list`
 * shows. A hand-edited index.json can then neither change what a run says (its cell count, its
 * branch) nor carry a value its run file's schema would refuse. Oldest first, as the index.
 */
export function checkedIndex(root: string): HistoryIndex {
  const index = readIndex(root);
  const runs = index.runs.map((e) => entryOf(readRun(root, e.id)));
  runs.sort(byDate);
  return { ...index, runs };
}

/** Every run of the store, oldest first (reads each run file). */
export function readAllRuns(root: string): HistoryRun[] {
  return readIndex(root).runs.map((e) => readRun(root, e.id));
}
