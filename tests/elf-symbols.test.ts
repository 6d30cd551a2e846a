/**
 * src/measuring/profiles/elf-symbols.ts: a stripped binary's raw callgrind addresses named by the library
 * and the function symbol they fall in, or the nearest one before them, from a small ELF file
 * built here (the real MySQL binaries are in the integration runs: docs/instructions.md).
 */
import { describe, expect, it } from "vitest";
import type { CallgrindProfile } from "../src/measuring/profiles/callgrind-parse.js";
import {
  elfFunctionSymbols,
  nameAddress,
  nameAddresses,
  rawAddress,
} from "../src/measuring/profiles/elf-symbols.js";

/** A 64-bit little-endian ELF with one .dynsym (and its string table) holding these symbols. */
function elf(symbols: { name: string; value: number; size: number; type?: number }[]): Uint8Array {
  const names = [""];
  let at = 1;
  const nameAt = symbols.map((s) => {
    const o = at;
    names.push(s.name);
    at += Buffer.byteLength(s.name) + 1;
    return o;
  });
  const str = Buffer.from(`${names.join("\0")}\0`);
  const syms = Buffer.alloc(24 * (symbols.length + 1));
  symbols.forEach((s, i) => {
    const o = 24 * (i + 1);
    syms.writeUInt32LE(nameAt[i]!, o);
    syms[o + 4] = (1 << 4) | (s.type ?? 2); // GLOBAL, FUNC
    syms.writeBigUInt64LE(BigInt(s.value), o + 8);
    syms.writeBigUInt64LE(BigInt(s.size), o + 16);
  });
  const shoff = 64 + syms.length + str.length;
  const sh = Buffer.alloc(64 * 3);
  // [1] .dynsym, linked to [2] .dynstr
  sh.writeUInt32LE(11, 64 + 4);
  sh.writeBigUInt64LE(64n, 64 + 24);
  sh.writeBigUInt64LE(BigInt(syms.length), 64 + 32);
  sh.writeUInt32LE(2, 64 + 40);
  sh.writeBigUInt64LE(24n, 64 + 56);
  sh.writeUInt32LE(3, 128 + 4);
  sh.writeBigUInt64LE(BigInt(64 + syms.length), 128 + 24);
  sh.writeBigUInt64LE(BigInt(str.length), 128 + 32);
  const h = Buffer.alloc(64);
  h.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
  h.writeBigUInt64LE(BigInt(shoff), 0x28);
  h.writeUInt16LE(64, 0x3a);
  h.writeUInt16LE(3, 0x3c);
  return Buffer.concat([h, syms, str, sh]);
}

const readerOf = (b: Uint8Array) => (offset: number, length: number) =>
  b.subarray(Math.min(offset, b.length), Math.min(offset + length, b.length));

const SYMBOLS = [
  { name: "memcpy", value: 0x167700, size: 0x100 },
  { name: "__memcpy_alias", value: 0x167700, size: 0 },
  { name: "dispatch_command(THD*)", value: 0x1000, size: 0x40 },
  { name: "data_object", value: 0x9000, size: 8, type: 1 }, // OBJECT: not a function
];

describe("naming the raw addresses of a stripped binary", () => {
  it("reads the function symbols of .dynsym, by address", () => {
    const s = elfFunctionSymbols(readerOf(elf(SYMBOLS)));
    expect(s.map((x) => x.name)).toEqual(["dispatch_command(THD*)", "memcpy", "__memcpy_alias"]);
  });
  it("names an address by the symbol it falls in, else the nearest before it, else the object alone", () => {
    const s = elfFunctionSymbols(readerOf(elf(SYMBOLS)));
    expect(nameAddress(s, "libc.so.6", 0x167740)).toBe("libc.so.6 memcpy+0x40");
    expect(nameAddress(s, "libc.so.6", 0x167700)).toBe("libc.so.6 memcpy");
    expect(nameAddress(s, "mysqld", 0x1050)).toBe("mysqld 0x1050 [near dispatch_command(THD*)+0x50]");
    expect(nameAddress(s, "mysqld", 0x10)).toBe("mysqld 0x10");
  });
  it("renames only raw addresses of objects it could read; the rest of the profile is unchanged", () => {
    const s = elfFunctionSymbols(readerOf(elf(SYMBOLS)));
    const profile = {
      functions: [
        { object: "/opt/mysql/bin/mysqld", name: "0x0000000000001050", self: 5, inclusive: 5 },
        { object: "/opt/mysql/bin/mysqld", name: "dispatch_command", self: 1, inclusive: 6 },
        { object: "/lib/libother.so", name: "0x0000000000000010", self: 1, inclusive: 1 },
      ],
    } as unknown as CallgrindProfile;
    const named = nameAddresses(profile, (o) => (o.endsWith("mysqld") ? s : null));
    expect(named.functions.map((f) => f.name)).toEqual([
      "mysqld 0x1050 [near dispatch_command(THD*)+0x50]",
      "dispatch_command",
      "0x0000000000000010",
    ]);
    expect(rawAddress("0x00000000027c0b70")).toBe(0x27c0b70);
    expect(rawAddress("memcpy")).toBeNull();
  });
  it("a file that is not ELF, or is cut short, or lies about its sections, has no symbols", () => {
    const good = elf(SYMBOLS);
    expect(elfFunctionSymbols(readerOf(Buffer.from("#!/bin/sh\necho hi\n")))).toEqual([]);
    expect(elfFunctionSymbols(readerOf(good.subarray(0, 100)))).toEqual([]);
    const dynsym = Number(Buffer.from(good).readBigUInt64LE(0x28)) + 64; // section header [1]
    const lying = Buffer.from(good);
    lying.writeBigUInt64LE(0xffffffffn, dynsym + 24); // .dynsym far past the end of the file
    expect(elfFunctionSymbols(readerOf(lying))).toEqual([]);
    const huge = Buffer.from(good);
    huge.writeBigUInt64LE(2n ** 60n, dynsym + 32); // a table larger than any file
    expect(elfFunctionSymbols(readerOf(huge))).toEqual([]);
  });
});
