/**
 * The sysbench command lines of counted repetitions: base and head of a round get the same
 * --rand-seed (they run the same statements with the same keys, so the paired difference is the
 * servers'), rounds get different ones, and a seed the workload sets itself is left alone.
 */
import { describe, expect, it } from "vitest";
import { eventArgs, roundSeed } from "../src/measuring/instructions/collect.js";
import type { Side } from "../src/measuring/run/phases.js";
import type { SysbenchCall } from "../src/measuring/sysbench/command.js";

const call: SysbenchCall = {
  script: "oltp_read_write",
  tables: 1,
  tableSize: 10_000,
  threads: 1,
  options: {},
};
const side = (port: number) => ({ label: null, target: { host: "127.0.0.1", port } }) as unknown as Side;
const seedOf = (args: string[]) => args.filter((a) => a.startsWith("--rand-seed=")).map((a) => a.slice(12));

describe("counted repetitions' random seed", () => {
  it("is the same for both sides of a round and differs between rounds", () => {
    const base = eventArgs(call, side(3306), 300, roundSeed(2));
    const head = eventArgs(call, side(3307), 300, roundSeed(2));
    expect(seedOf(base)).toEqual(seedOf(head));
    expect(seedOf(base)).toHaveLength(1);
    expect(Number(seedOf(base)[0])).toBeGreaterThan(0); // 0 would make sysbench seed from the clock
    const seeds = new Set(
      [0, 1, 2, 3, 4, 5].map((r) => seedOf(eventArgs(call, side(3306), 300, roundSeed(r)))[0]),
    );
    expect(seeds.size).toBe(6);
    expect(base.at(-1)).toBe("run");
    expect(base).toContain("--events=300");
    expect(base).toContain("--time=0");
  });

  it("leaves a workload's own --rand-seed as the only one", () => {
    const own = { ...call, options: { "rand-seed": 42 } };
    expect(seedOf(eventArgs(own, side(3306), 300, roundSeed(1)))).toEqual(["42"]);
  });
});
