/**
 * The one table of server sources: spec source name → the object that provisions it. The mapped
 * type makes every source in spec.ts's SourceName have exactly one entry, typed for its spec.
 */
import type { BuildSpec, PathSpec, SourceName, VersionedSource, VersionedSpec } from "../spec.js";
import { buildSource } from "./build.js";
import { debSource } from "./deb.js";
import { dockerSource } from "./docker.js";
import { mavenSource } from "./maven.js";
import { pathSource } from "./path.js";
import type { ServerSource } from "./source.js";
import { tarballSource } from "./tarball.js";

type SpecOf<N extends SourceName> = N extends VersionedSource
  ? VersionedSpec
  : N extends "build"
    ? BuildSpec
    : PathSpec;

export const SOURCES: { readonly [N in SourceName]: ServerSource<SpecOf<N>> } = {
  maven: mavenSource,
  deb: debSource,
  tarball: tarballSource,
  docker: dockerSource,
  build: buildSource,
  path: pathSource,
};

/**
 * Sources a bare `flavor@X` tries, in order: the vendors' builds (repackaged on Maven Central, or
 * their own tarballs) first, then distribution packages. `docker` is never tried for a bare spec.
 */
export const SOURCE_ORDER: readonly VersionedSource[] = ["maven", "tarball", "deb"];
