/**
 * The callgrind parser on real callgrind output (tests/fixtures/callgrind/README.md says how it was
 * made) and on small texts that exercise each rule of the format.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { CallgrindParseError, parseCallgrind } from "../src/measuring/profiles/callgrind-parse.js";

const FIXTURES = join(import.meta.dirname, "fixtures/callgrind");
const real = (name: string) => gunzipSync(readFileSync(join(FIXTURES, name))).toString("utf8");

describe("callgrind output of a real server", () => {
  const profile = parseCallgrind(real("mariadb-11.4.5-point-select-2000.out.gz"), "point-select");

  it("reads the totals line, and every function's self cost adds up to it", () => {
    expect(profile.event).toBe("Ir");
    expect(profile.total).toBe(91_356_856);
    const selfSum = profile.functions.reduce((a, f) => a + f.self, 0);
    expect(selfSum).toBe(profile.total);
    expect(profile.header.creator).toBe("callgrind-3.19.0");
  });

  it("gives the toggle function the whole collected cost inclusively, its callees less", () => {
    const byName = (re: RegExp) => profile.functions.find((f) => re.test(f.name))!;
    const dispatch = byName(/^dispatch_command\(/);
    expect(dispatch.object).toMatch(/\/mariadbd$/);
    expect(dispatch.inclusive / profile.total).toBeGreaterThan(0.99);
    expect(dispatch.inclusive).toBeLessThanOrEqual(profile.total);
    const execute = byName(/^mysql_execute_command\(/);
    expect(execute.inclusive).toBeLessThan(dispatch.inclusive);
    expect(execute.inclusive).toBeGreaterThan(execute.self);
    // a leaf: no calls, inclusive = self
    const memcpy = profile.functions.find(
      (f) => f.name.startsWith("__memcpy") && f.object.endsWith("libc.so.6"),
    )!;
    expect(memcpy.inclusive).toBe(memcpy.self);
  });

  it("keeps the names demangled and the objects apart", () => {
    expect(profile.functions.some((f) => f.name.startsWith("row_search_mvcc(unsigned char*"))).toBe(true);
    const objects = new Set(profile.functions.map((f) => f.object.split("/").pop()));
    expect(objects).toContain("mariadbd");
    expect(objects).toContain("libc.so.6");
  });

  it("every call edge's cost is within its callee's inclusive cost", () => {
    for (const c of profile.calls) {
      if (c.caller === c.callee) continue;
      expect(c.cost).toBeLessThanOrEqual(profile.functions[c.callee]!.inclusive);
    }
  });
});

const HEAD = "# callgrind format\nversion: 1\npositions: line\nevents: Ir Dr\n";

describe("the format's rules", () => {
  it("name compression, relative positions, calls and cob", () => {
    const text = `${HEAD}ob=(1) /bin/server
fl=(1) a.c
fn=(1) main
10 5 1
+2 3
cfn=(2) work
calls=2 20
* 100 7
cob=(2) /lib/libc.so.6
cfi=(2) mem.c
cfn=(3) memcpy
calls=1 0x10
-1 40
fn=(2)
20 60
cfn=(3)
calls=4 1
* 40
ob=(2)
fl=(2)
fn=(3)
1 80
totals: 148 9
`;
    const p = parseCallgrind(text, "t");
    const f = Object.fromEntries(p.functions.map((x) => [`${x.object}:${x.name}`, x]));
    expect(f["/bin/server:main"]).toMatchObject({ self: 8, inclusive: 148 });
    expect(f["/bin/server:work"]).toMatchObject({ self: 60, inclusive: 100 });
    expect(f["/lib/libc.so.6:memcpy"]).toMatchObject({ self: 80, inclusive: 80 });
    expect(p.total).toBe(148);
    expect(p.events).toEqual(["Ir", "Dr"]);
    expect(p.calls.map((c) => c.count)).toEqual([2, 1, 4]);
  });

  it("another event is read from its column; missing counters are 0; no totals means the sum", () => {
    const p = parseCallgrind(`${HEAD}fn=f\n1 5 2\n2 5\n`, "t", "Dr");
    expect(p.functions[0]).toMatchObject({ self: 2 });
    expect(p.total).toBe(2);
  });

  it("self calls do not count twice in the inclusive cost", () => {
    const p = parseCallgrind(`${HEAD}fn=(1) r\n1 10\ncfn=(1)\ncalls=3 1\n1 30\n`, "t");
    expect(p.functions[0]).toMatchObject({ self: 10, inclusive: 10 });
  });

  it("refuses what is not the format, naming the line", () => {
    expect(() => parseCallgrind(`${HEAD}fn=(7)\n1 2\n`, "x.out")).toThrow(/^x\.out:5: fn name id \(7\) used/);
    expect(() => parseCallgrind(`${HEAD}1 2\n`, "x.out")).toThrow(/x\.out:5: a cost line before any fn=/);
    expect(() => parseCallgrind(`${HEAD}fn=f\nhello world\n`, "x.out")).toThrow(
      /x\.out:6: not a callgrind line/,
    );
    expect(() => parseCallgrind(`${HEAD}fn=f\n1 x\n`, "x.out")).toThrow(CallgrindParseError);
    expect(() => parseCallgrind("fn=f\n1 2\n", "x.out")).toThrow(/no events: line/);
    expect(() => parseCallgrind(`${HEAD}fn=f\n1 2\n`, "x.out", "Ir2")).toThrow(/counts Ir, Dr, not Ir2/);
    expect(() => parseCallgrind(`${HEAD}fn=f\ncfn=g\ncalls=1 2\n`, "x.out")).toThrow(/ends after calls=/);
  });
});
