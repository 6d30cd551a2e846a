/**
 * package.json promises Node >= 20. Every locked package must agree, or `npm ci` on Node 20 warns
 * EBADENGINE and the promise is not kept: what users install (runtime dependencies) must run on
 * the oldest Node 20, and everything `npm ci` installs (build and test tools too) on the Node 20
 * line that CI uses.
 */
import { readFileSync } from "node:fs";
import semver from "semver";
import { describe, expect, it } from "vitest";

interface LockedPackage {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  engines?: { node?: string } | string[];
}

const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { engines: { node: string } };
const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as {
  packages: Record<string, LockedPackage>;
};

function nodeRange(p: LockedPackage): string | undefined {
  return Array.isArray(p.engines) ? undefined : p.engines?.node;
}

/** Locked packages whose engines.node range does not admit `version`. */
function refusing(version: string, keep: (p: LockedPackage) => boolean): string[] {
  return Object.entries(lock.packages)
    .filter(([path, p]) => path !== "" && keep(p))
    .filter(([, p]) => {
      const range = nodeRange(p);
      return range !== undefined && !semver.satisfies(version, range);
    })
    .map(([path, p]) => `${path.replace(/^.*node_modules\//, "")}@${p.version} needs node ${nodeRange(p)}`);
}

describe("Node engines in package-lock.json", () => {
  const oldest = semver.minVersion(pkg.engines.node)?.version ?? "";

  it("package.json names a Node 20 minimum", () => {
    expect(oldest).toBe("20.0.0");
  });

  it("every runtime dependency runs on the oldest Node package.json accepts", () => {
    expect(refusing(oldest, (p) => p.dev !== true)).toEqual([]);
  });

  it("every locked package (dev included) accepts the Node 20 line CI runs on", () => {
    // The latest Node 20 release this lockfile was checked against; build and test tools (vite)
    // need a recent 20.x, the runtime above does not.
    expect(refusing("20.20.0", () => true)).toEqual([]);
  });
});
