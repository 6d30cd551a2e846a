/**
 * The function symbols of the objects a callgrind dump names (src/measuring/profiles/elf-symbols.ts), read
 * from the files once per process: what names a stripped binary's raw addresses by the library
 * and the nearest symbol, demangled where the host has `c++filt`. An object that cannot be read
 * has none (its addresses stay raw).
 */
import { spawnSync } from "node:child_process";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { type ElfSymbol, elfFunctionSymbols } from "../profiles/elf-symbols.js";

const cache = new Map<string, readonly ElfSymbol[]>();

function readSymbols(path: string): readonly ElfSymbol[] {
  let fd: number | null = null;
  try {
    fd = openSync(path, "r");
    const size = fstatSync(fd).size;
    const file = fd;
    return elfFunctionSymbols((offset, length) => {
      const n = Math.max(0, Math.min(length, size - offset));
      const b = Buffer.alloc(n);
      if (n > 0) readSync(file, b, 0, n, offset);
      return b;
    });
  } catch {
    return [];
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/**
 * The symbols with their C++ names demangled by binutils' `c++filt` where the host has it (one
 * call per object); as the table holds them (mangled) where it does not.
 */
function demangled(symbols: readonly ElfSymbol[]): readonly ElfSymbol[] {
  if (!symbols.some((s) => s.name.startsWith("_Z"))) return symbols;
  const r = spawnSync("c++filt", [], {
    input: symbols.map((s) => s.name.replaceAll("\n", " ")).join("\n"),
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
    timeout: 60_000,
  });
  const names = r.status === 0 ? r.stdout.split("\n") : [];
  if (names.length < symbols.length) return symbols;
  return symbols.map((s, i) => ({ ...s, name: names[i]! }));
}

/** The function symbols of an object file named by its absolute path (empty when it cannot be read). */
export function objectSymbols(path: string): readonly ElfSymbol[] {
  if (!path.startsWith("/")) return [];
  let s = cache.get(path);
  if (!s) {
    s = demangled(readSymbols(path));
    cache.set(path, s);
  }
  return s;
}
