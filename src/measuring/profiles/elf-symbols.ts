/**
 * Names for the raw addresses callgrind gives functions of a stripped binary (pure). MySQL's
 * builds keep only their dynamic symbol table, so a static function is listed as its address in
 * the object (`0x00000000027c0b70` in `mysqld`, `0x0000000000167740` in `libc.so.6`), which differs
 * between versions and says nothing. Read from the object's own ELF symbol tables (.symtab where
 * it was kept, else .dynsym), each such address is named by the function symbol it falls in
 * (`libc.so.6 memcpy+0x40`) or, past the end of every symbol, by the nearest one before it
 * (`mysqld 0xe15740 [near net_flush(NET*)+0x50]`: the offset says how near). The ELF
 * file is hostile input: every offset and size is checked against the file, and at most
 * MAX_SYMBOLS symbols are read. The caller reads the bytes (src/measuring/instructions/symbols.ts).
 */

import type { CallgrindProfile } from "./callgrind-parse.js";

/** A function symbol: its address in the object, its size (0: unknown) and its name. */
export interface ElfSymbol {
  value: number;
  size: number;
  name: string;
}

/** Reads `length` bytes at `offset` of the file; fewer (or none) past its end. */
export type ReadAt = (offset: number, length: number) => Uint8Array;

const MAX_SYMBOLS = 2_000_000;
/** A "near" symbol's name is cut to this many characters (template names run to hundreds). */
const MAX_NEAR_CHARS = 120;
const MAX_TABLE_BYTES = 256 * 1024 * 1024;
const SHT_SYMTAB = 2;
const SHT_DYNSYM = 11;
const STT_FUNC = 2;
const STT_GNU_IFUNC = 10;

interface Section {
  type: number;
  offset: number;
  size: number;
  link: number;
  entsize: number;
}

function view(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/** The section headers of a 64-bit little-endian ELF file, or null for anything else. */
function sections(read: ReadAt): Section[] | null {
  const h = read(0, 64);
  if (h.length < 64 || h[0] !== 0x7f || h[1] !== 0x45 || h[2] !== 0x4c || h[3] !== 0x46) return null;
  if (h[4] !== 2 || h[5] !== 1) return null; // ELFCLASS64, little-endian
  const v = view(h);
  const shoff = Number(v.getBigUint64(0x28, true));
  const shentsize = v.getUint16(0x3a, true);
  const shnum = v.getUint16(0x3c, true);
  if (shentsize < 64 || shnum === 0 || !Number.isSafeInteger(shoff)) return null;
  const t = read(shoff, shentsize * shnum);
  if (t.length < shentsize * shnum) return null;
  const tv = view(t);
  const out: Section[] = [];
  for (let i = 0; i < shnum; i++) {
    const o = i * shentsize;
    out.push({
      type: tv.getUint32(o + 4, true),
      offset: Number(tv.getBigUint64(o + 24, true)),
      size: Number(tv.getBigUint64(o + 32, true)),
      link: tv.getUint32(o + 40, true),
      entsize: Number(tv.getBigUint64(o + 56, true)),
    });
  }
  return out;
}

function cString(b: Uint8Array, at: number): string {
  if (at >= b.length) return "";
  let end = at;
  while (end < b.length && b[end] !== 0 && end - at < 4096) end++;
  return new TextDecoder("utf-8", { fatal: false }).decode(b.subarray(at, end));
}

/** The function symbols of one symbol table section. */
function tableSymbols(read: ReadAt, all: Section[], s: Section, out: ElfSymbol[]): void {
  const strtab = all[s.link];
  if (!strtab || s.entsize < 24 || s.size > MAX_TABLE_BYTES || strtab.size > MAX_TABLE_BYTES) return;
  const syms = read(s.offset, s.size);
  const names = read(strtab.offset, strtab.size);
  const v = view(syms);
  for (let o = 0; o + 24 <= syms.length && out.length < MAX_SYMBOLS; o += s.entsize) {
    const type = syms[o + 4]! & 0xf;
    if (type !== STT_FUNC && type !== STT_GNU_IFUNC) continue;
    const value = Number(v.getBigUint64(o + 8, true));
    if (value === 0 || !Number.isSafeInteger(value)) continue;
    const name = cString(names, v.getUint32(o, true));
    if (name === "") continue;
    out.push({ value, size: Number(v.getBigUint64(o + 16, true)), name });
  }
}

/**
 * The function symbols of an ELF file, by address: from .symtab where the file kept it, else from
 * .dynsym (what a stripped binary keeps). Empty for a file that is not a 64-bit little-endian ELF.
 */
export function elfFunctionSymbols(read: ReadAt): ElfSymbol[] {
  const all = sections(read);
  if (!all) return [];
  const out: ElfSymbol[] = [];
  const symtab = all.find((s) => s.type === SHT_SYMTAB);
  const dynsym = all.find((s) => s.type === SHT_DYNSYM);
  for (const s of symtab ? [symtab] : dynsym ? [dynsym] : []) tableSymbols(read, all, s, out);
  out.sort((a, b) => a.value - b.value || b.size - a.size);
  return out;
}

/** A raw callgrind address name (`0x00000000027c0b70`), else null. */
export function rawAddress(name: string): number | null {
  const m = /^0x([0-9a-f]{1,16})$/i.exec(name);
  if (!m) return null;
  const n = Number.parseInt(m[1]!, 16);
  return Number.isSafeInteger(n) ? n : null;
}

const hex = (n: number) => `0x${n.toString(16)}`;

/**
 * An address named by the symbol it falls in (`libc.so.6 memcpy+0x40`), else by the nearest symbol
 * before it and the distance (`mysqld 0x27c0b70 [near foo+0x1a0]`), else by the object and the
 * address alone.
 */
export function nameAddress(symbols: readonly ElfSymbol[], object: string, address: number): string {
  let lo = 0;
  let hi = symbols.length - 1;
  let at = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (symbols[mid]!.value <= address) {
      at = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (at < 0) return `${object} ${hex(address)}`;
  // several symbols may share the address (aliases): the first of them, the sized one first
  let s = symbols[at]!;
  while (at > 0 && symbols[at - 1]!.value === s.value) s = symbols[--at]!;
  const off = address - s.value;
  if (off < s.size || (off === 0 && s.size === 0))
    return `${object} ${s.name}${off > 0 ? `+${hex(off)}` : ""}`;
  const near = s.name.length > MAX_NEAR_CHARS ? `${s.name.slice(0, MAX_NEAR_CHARS - 1)}…` : s.name;
  // in brackets, not parentheses: a frame name ending in ")" loses its last (...) as a parameter list
  return `${object} ${hex(address)} [near ${near}+${hex(off)}]`;
}

/**
 * The profile with every raw address of an object named (nameAddress); `symbolsOf(object)` gives
 * the object's function symbols (null or empty: it could not be read, the address stays raw).
 * Two addresses that name the same symbol stay two functions (their names differ by offset).
 */
export function nameAddresses(
  profile: CallgrindProfile,
  symbolsOf: (object: string) => readonly ElfSymbol[] | null,
): CallgrindProfile {
  let renamed = false;
  const functions = profile.functions.map((f) => {
    const address = rawAddress(f.name);
    if (address === null || f.object === "???") return f;
    const symbols = symbolsOf(f.object);
    if (!symbols || symbols.length === 0) return f;
    renamed = true;
    return { ...f, name: nameAddress(symbols, objectName(f.object), address) };
  });
  return renamed ? { ...profile, functions } : profile;
}

function objectName(path: string): string {
  const i = path.lastIndexOf("/");
  return i >= 0 ? path.slice(i + 1) : path;
}
