/**
 * A parser of Valgrind's callgrind output format ("Callgrind Format Specification", version 1),
 * reduced to what perfgate needs: the total of one event (instructions, `Ir`), and per function
 * (object + demangled name) its self and inclusive cost and its calls to other functions.
 *
 * What the format says and how it is read here:
 * - a header of `key: value` lines (`events:`, `positions:`, `summary:`, `totals:`, `cmd:`, ...);
 * - position-name lines `ob=` / `fl=` / `fi=` / `fe=` / `fn=` set the current object, file and
 *   function; `cob=` / `cfi=` / `cfl=` / `cfn=` name the target of the next call;
 * - names may be compressed: `(id) name` defines id, a later `(id)` alone refers to it; objects,
 *   files and functions have separate id spaces (cob shares the objects', cfi/cfl the files', cfn
 *   the functions');
 * - a cost line is the positions (as many as `positions:` names, absolute, `+n`, `-n` or `*`)
 *   followed by one counter per event (missing ones are 0). It adds to the current function's self
 *   cost, except right after `calls=<count> <target position>`: then it is the inclusive cost of
 *   those calls.
 * - `cob=` and `cfi=` hold for the next call only; without `cob=` the callee is in the caller's
 *   object (this is how callgrind writes them).
 *
 * Positions are skipped, not decoded: costs are summed per function. Callgrind demangles C++
 * names itself unless run with `--demangle=no`.
 *
 * Inclusive cost is self cost plus the cost of calls to other functions; calls of a function to
 * itself are left out (their cost is already in the function's own lines). Mutual recursion
 * (a → b → a) is counted once per level, as callgrind_annotate does.
 */

export interface CallgrindFunction {
  /** the ELF object (binary or shared library) as callgrind names it, usually a full path; "???" if unknown */
  object: string;
  /** the function name, demangled by callgrind (C++ signature included) */
  name: string;
  /** cost of the function's own instructions, of the chosen event */
  self: number;
  /** self plus the cost of its calls to other functions */
  inclusive: number;
}

export interface CallgrindCall {
  /** index into `functions` */
  caller: number;
  /** index into `functions` */
  callee: number;
  /** how many calls */
  count: number;
  /** the inclusive cost of those calls */
  cost: number;
}

export interface CallgrindProfile {
  /** the event whose cost is kept (`Ir`: instructions executed) */
  event: string;
  /** every event the file counts, in its order */
  events: string[];
  /** the event's total: the `totals:` line, else `summary:`, else the sum of self costs */
  total: number;
  /** the file's header lines (`cmd`, `pid`, `creator`, `version`, `part`, ...) */
  header: Record<string, string>;
  functions: CallgrindFunction[];
  calls: CallgrindCall[];
}

export class CallgrindParseError extends Error {
  override name = "CallgrindParseError";
}

const SPEC = /^(ob|fl|fi|fe|fn|cob|cfi|cfl|cfn|calls|jump|jcnd)=(.*)$/;
const HEADER = /^([A-Za-z][A-Za-z0-9_]*):\s*(.*)$/;
const COMPRESSED = /^\((\d+)\)(?:\s+(.*))?$/;

type NameKind = "ob" | "fl" | "fn";
const KIND: Record<string, NameKind> = {
  ob: "ob",
  cob: "ob",
  fl: "fl",
  fi: "fl",
  fe: "fl",
  cfi: "fl",
  cfl: "fl",
  fn: "fn",
  cfn: "fn",
};

/** The parse state: the current position names, the pending call, and the functions so far. */
interface State {
  source: string;
  lineNo: number;
  names: Record<NameKind, Map<string, string>>;
  ob: string;
  fn: string | null;
  cob: string | null;
  cfn: string | null;
  /** after `calls=`: the count; the next cost line is those calls' cost */
  pendingCalls: number | null;
  /** after `jump=`/`jcnd=`: the next cost line is a jump's, not a cost (skipped) */
  pendingJump: boolean;
  positions: number;
  eventIndex: number;
  index: Map<string, number>;
  functions: CallgrindFunction[];
  callCost: Map<string, CallgrindCall>;
  selfSum: number;
}

function fail(s: State, message: string): never {
  throw new CallgrindParseError(`${s.source}:${s.lineNo}: ${message}`);
}

/** Resolves `(id) name`, `(id)` or a plain name for one id space. */
function resolveName(s: State, kind: NameKind, raw: string): string {
  const m = COMPRESSED.exec(raw.trim());
  if (!m) return raw.trim();
  const id = m[1]!;
  const table = s.names[kind];
  if (m[2] !== undefined) {
    table.set(id, m[2]);
    return m[2];
  }
  const known = table.get(id);
  if (known === undefined) fail(s, `${kind} name id (${id}) used before it was defined`);
  return known;
}

function functionIndex(s: State, object: string, name: string): number {
  const key = `${object}\u0000${name}`;
  let i = s.index.get(key);
  if (i === undefined) {
    i = s.functions.length;
    s.functions.push({ object, name, self: 0, inclusive: 0 });
    s.index.set(key, i);
  }
  return i;
}

/** One counter: decimal (callgrind writes no hex for costs, but positions may be hex). */
function counter(s: State, token: string): number {
  if (!/^\d+$/.test(token)) fail(s, `expected a cost counter, got ${JSON.stringify(token.slice(0, 40))}`);
  return Number(token);
}

function costLine(s: State, line: string): void {
  if (s.pendingJump) {
    s.pendingJump = false;
    return;
  }
  const tokens = line.trim().split(/\s+/);
  const token = tokens[s.positions + s.eventIndex];
  const cost = token === undefined ? 0 : counter(s, token);
  if (s.fn === null) fail(s, "a cost line before any fn=");
  const caller = functionIndex(s, s.ob, s.fn);
  if (s.pendingCalls === null) {
    s.functions[caller]!.self += cost;
    s.selfSum += cost;
    return;
  }
  if (s.cfn === null) fail(s, "calls= without a cfn= before it");
  const callee = functionIndex(s, s.cob ?? s.ob, s.cfn);
  const key = `${caller}>${callee}`;
  const edge = s.callCost.get(key) ?? { caller, callee, count: 0, cost: 0 };
  edge.count += s.pendingCalls;
  edge.cost += cost;
  s.callCost.set(key, edge);
  s.pendingCalls = null;
  s.cob = null;
}

function specLine(s: State, key: string, value: string): void {
  switch (key) {
    case "ob":
      s.ob = resolveName(s, "ob", value);
      return;
    case "fn":
      s.fn = resolveName(s, "fn", value);
      return;
    case "cob":
      s.cob = resolveName(s, "ob", value);
      return;
    case "cfn":
      s.cfn = resolveName(s, "fn", value);
      return;
    case "calls": {
      const count = value.trim().split(/\s+/)[0] ?? "";
      if (!/^\d+$/.test(count)) fail(s, `calls=${value.slice(0, 40)}: expected a call count`);
      s.pendingCalls = Number(count);
      return;
    }
    case "jump":
    case "jcnd":
      s.pendingJump = true;
      return;
    default:
      // fl, fi, fe, cfi, cfl: files are not kept, but their ids must be learnt for later references.
      resolveName(s, KIND[key]!, value);
  }
}

function headerLine(s: State, header: Record<string, string>, key: string, value: string): void {
  if (key === "totals" || key === "summary") {
    // several parts in one file (--combine-dumps) each have their own; they add up
    const prev = header[key];
    const add = (v: string) => v.trim().split(/\s+/).map(Number);
    if (prev === undefined) header[key] = value.trim();
    else
      header[key] = add(prev)
        .map((n, i) => n + (add(value)[i] ?? 0))
        .join(" ");
    return;
  }
  header[key] = value;
  if (key === "positions") s.positions = value.trim().split(/\s+/).length;
}

/** Inclusive costs: self plus calls to other functions (self-calls left out, see the file comment). */
function withInclusive(functions: CallgrindFunction[], calls: CallgrindCall[]): void {
  for (const f of functions) f.inclusive = f.self;
  for (const c of calls) if (c.caller !== c.callee) functions[c.caller]!.inclusive += c.cost;
}

function pickEvent(s: State, header: Record<string, string>, event: string): string[] {
  const events = (header.events ?? "").trim().split(/\s+/).filter(Boolean);
  if (events.length === 0) fail(s, "no events: line before the first cost line");
  const i = events.indexOf(event);
  if (i < 0) fail(s, `the file counts ${events.join(", ")}, not ${event}`);
  s.eventIndex = i;
  return events;
}

function total(s: State, header: Record<string, string>, key: "totals" | "summary"): number | null {
  const v = header[key];
  if (v === undefined) return null;
  const token = v.split(/\s+/)[s.eventIndex];
  if (token === undefined || !/^\d+$/.test(token))
    fail(s, `${key}: ${v.slice(0, 60)}: no counter for the event`);
  return Number(token);
}

/**
 * Parses a callgrind output file's text. `source` names it in errors (`cg.out:12: ...`); `event`
 * is the counter kept (default `Ir`). Throws CallgrindParseError on what is not the format.
 */
export function parseCallgrind(text: string, source = "callgrind output", event = "Ir"): CallgrindProfile {
  const s: State = {
    source,
    lineNo: 0,
    names: { ob: new Map(), fl: new Map(), fn: new Map() },
    ob: "???",
    fn: null,
    cob: null,
    cfn: null,
    pendingCalls: null,
    pendingJump: false,
    positions: 1,
    eventIndex: -1,
    index: new Map(),
    functions: [],
    callCost: new Map(),
    selfSum: 0,
  };
  const header: Record<string, string> = {};
  let events: string[] = [];
  for (const raw of text.split("\n")) {
    s.lineNo++;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "" || line.startsWith("#")) continue;
    const spec = SPEC.exec(line);
    if (spec) {
      specLine(s, spec[1]!, spec[2]!);
      continue;
    }
    if (/^[\d+\-*]/.test(line)) {
      if (s.eventIndex < 0) events = pickEvent(s, header, event);
      costLine(s, line);
      continue;
    }
    const h = HEADER.exec(line);
    if (!h) fail(s, `not a callgrind line: ${JSON.stringify(line.slice(0, 60))}`);
    headerLine(s, header, h[1]!, h[2]!);
  }
  if (s.eventIndex < 0) events = pickEvent(s, header, event);
  if (s.pendingCalls !== null) fail(s, "the file ends after calls= without the call's cost line");
  const calls = [...s.callCost.values()];
  withInclusive(s.functions, calls);
  const sum = total(s, header, "totals") ?? total(s, header, "summary") ?? s.selfSum;
  const { totals: _t, summary: _s, ...rest } = header;
  return { event, events, total: sum, header: rest, functions: s.functions, calls };
}
