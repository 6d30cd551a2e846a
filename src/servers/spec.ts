/**
 * Server spec strings, e.g. `mariadb@11.4.5`, `deb:mariadb@10.11.18`, `maven:mariadb@10.11.5`,
 * `tarball:mysql@8.4.3`, `docker:percona@8.0.36`, `path:/opt/mariadb`. Pure: parsing only;
 * resolving a spec to files is the sources' job.
 */
import { UsageError } from "../util/errors.js";
import { parseBuildSpec } from "./sources/build.js";

export const FLAVORS = ["mariadb", "mysql", "percona"] as const;
export type Flavor = (typeof FLAVORS)[number];

/** Sources that fetch a flavor at a version. `path` is separate: it names a directory. */
export const VERSIONED_SOURCES = ["maven", "deb", "tarball", "docker"] as const;
export type VersionedSource = (typeof VERSIONED_SOURCES)[number];
export type SourceName = VersionedSource | "path" | "build";

export type ServerSpec =
  | { kind: "versioned"; raw: string; source: VersionedSource | null; flavor: Flavor; version: string }
  | { kind: "path"; raw: string; source: "path"; dir: string }
  | { kind: "build"; raw: string; source: "build"; repo: string; ref: string };

const VERSION_RE = /^\d+\.\d+\.\d+$/;
const ACCEPTED =
  "accepted: [maven:|deb:|tarball:|docker:]<mariadb|mysql|percona>@<X.Y.Z> (e.g. mariadb@11.4.5, deb:mariadb@10.11.18, tarball:mysql@8.4.3), build:<dir or git URL>@<ref> or path:<dir>";

export function parseServerSpec(raw: string): ServerSpec {
  const spec = raw.trim();
  if (spec.startsWith("build:"))
    return { kind: "build", raw: spec, source: "build", ...parseBuildSpec(spec) };
  if (spec.startsWith("path:")) {
    const dir = spec.slice("path:".length);
    if (dir === "") throw new UsageError(`server spec "${raw}": path is empty; ${ACCEPTED}`);
    return { kind: "path", raw: spec, source: "path", dir };
  }
  let source: VersionedSource | null = null;
  let rest = spec;
  const colon = spec.indexOf(":");
  if (colon >= 0) {
    const name = spec.slice(0, colon);
    if (!(VERSIONED_SOURCES as readonly string[]).includes(name)) {
      throw new UsageError(`server spec "${raw}": unknown source "${name}"; ${ACCEPTED}`);
    }
    source = name as VersionedSource;
    rest = spec.slice(colon + 1);
  }
  const at = rest.indexOf("@");
  if (at < 0) throw new UsageError(`server spec "${raw}": missing @version; ${ACCEPTED}`);
  const flavor = rest.slice(0, at);
  const version = rest.slice(at + 1);
  if (!(FLAVORS as readonly string[]).includes(flavor)) {
    throw new UsageError(`server spec "${raw}": unknown flavor "${flavor}"; ${ACCEPTED}`);
  }
  if (!VERSION_RE.test(version)) {
    throw new UsageError(`server spec "${raw}": version "${version}" is not X.Y.Z; ${ACCEPTED}`);
  }
  return { kind: "versioned", raw: spec, source, flavor: flavor as Flavor, version };
}

/** Compares dotted versions numerically: -1, 0 or 1. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}
